"""The reference pages in docs/ that are generated (every command's help, every Parquet table's columns) are
what the commands and schemas say now: a new option, command or column without its page fails here, with
the command that writes the pages again."""

from __future__ import annotations

from pathlib import Path

import pytest
from taldau.cli.reference import PAGES, pages

DOCS = Path(__file__).resolve().parent.parent / "docs"


def _words(text: str) -> str:
    """The text without its layout (click wraps help to the width it is given)."""
    return " ".join(text.split())


@pytest.mark.parametrize("name", PAGES)
def test_the_generated_reference_pages_are_current(name: str) -> None:
    committed = (DOCS / name).read_text(encoding="utf-8")
    assert _words(committed) == _words(pages()[name]), (
        f"docs/{name} is out of date: run `python -m taldau.cli.reference docs/`"
    )


def test_every_command_and_column_has_its_entry() -> None:
    commands, schemas = pages()["commands.md"], pages()["schemas.md"]
    for entry in ("## taldau analyze", "## taldau bench judge", "## taldau book build", "--level"):
        assert entry in commands
    for entry in ("## moves (version", "`luck_mwc`", "## games (version", "`white_luck_mwc`"):
        assert entry in schemas


def test_the_readme_links_every_page_in_docs() -> None:
    readme = (DOCS.parent / "README.md").read_text(encoding="utf-8")
    for page in sorted(DOCS.glob("*.md")):
        assert f"docs/{page.name}" in readme, page.name
