"""The reference pages that are made, not written: every command's help (``docs/commands.md``) and every
Parquet table's columns (``docs/schemas.md``), generated from the click commands and the Arrow schemas
themselves, so that they cannot drift from what taldau does (a test compares the committed pages with
these). ``python -m taldau.cli.reference docs/`` writes them again."""

from __future__ import annotations

import sys
from pathlib import Path

import click
from taldau.cli.main import main
from taldau.schemas import GAMES_SCHEMA, MOVES_SCHEMA
from taldau.schemas.book import BOOK_EVALS_SCHEMA, BOOK_MOVES_SCHEMA, BOOK_PLIES_SCHEMA, BOOK_POSITIONS_SCHEMA

WIDTH = 100  # the terminal width the help is laid out for
PAGES = ("commands.md", "schemas.md")
TABLES = (
    ("moves", "`DIR/moves/<key>-00000.parquet`: one row per analysed decision", MOVES_SCHEMA),
    ("games", "`DIR/games/<key>-00000.parquet`: one row per game, analysed or not", GAMES_SCHEMA),
    (
        "book plies",
        "`BOOK/plies/<digest>.parquet`: the opening plies of each input's games",
        BOOK_PLIES_SCHEMA,
    ),
    (
        "book evals",
        "`BOOK/evals/<digest>.parquet`: the judged opening moves of an analysis",
        BOOK_EVALS_SCHEMA,
    ),
    ("book positions", "`BOOK/positions.parquet`: one row per position (and roll)", BOOK_POSITIONS_SCHEMA),
    ("book moves", "`BOOK/moves.parquet`: one row per move of a position", BOOK_MOVES_SCHEMA),
)


def _commands(command: click.Command, path: list[str], parent: click.Context | None) -> list[tuple[str, str]]:
    """Each command under ``command`` (itself first) with its help as ``taldau <path> --help`` prints it:
    under the root's context settings (``-h``, every default shown), as the command line makes them."""
    settings = command.context_settings if parent is None else {}
    context = click.Context(
        command,
        info_name=path[-1],
        parent=parent,
        terminal_width=WIDTH,
        max_content_width=WIDTH,
        **settings,
    )
    found = [(" ".join(path), command.get_help(context))]
    if isinstance(command, click.Group):
        for name in command.list_commands(context):
            sub = command.get_command(context, name)
            assert sub is not None
            found += _commands(sub, [*path, name], context)
    return found


def command_reference() -> str:
    """``docs/commands.md``: every command of ``taldau`` with its help, in the order ``--help`` lists them."""
    lines = [
        "# Commands",
        "",
        "Every command's `--help`, generated from the commands themselves (`python -m taldau.cli.reference "
        "docs/`); README.md has the tour.",
        "",
    ]
    entries = _commands(main, ["taldau"], None)
    lines += [f"- [`{name}`](#{name.replace(' ', '-')})" for name, _ in entries]
    for name, text in entries:
        lines += ["", f"## {name}", "", "```text", text.rstrip(), "```"]
    return "\n".join(lines) + "\n"


def schema_reference() -> str:
    """``docs/schemas.md``: each Parquet table taldau writes, its version and every column with its Arrow
    type, whether it may be null, and what it holds (the schema's own ``doc``)."""
    lines = [
        "# Parquet tables",
        "",
        "Every table taldau writes, generated from its Arrow schema (`taldau.schemas`; `python -m "
        "taldau.cli.reference docs/`). Each file carries its table and version in its schema's metadata "
        "(`taldau.table`, `taldau.schema_version`) and each column its description (`doc`); DuckDB and "
        "pandas read them as they are. An analysis folder's older files read as today's through "
        "`taldau.analysis.folder`.",
    ]
    for title, where, schema in TABLES:
        metadata = schema.metadata or {}
        version = metadata.get(b"taldau.schema_version", b"?").decode()
        lines += ["", f"## {title} (version {version})", "", f"{where}.", ""]
        lines += ["| column | type | null | what it holds |", "|---|---|---|---|"]
        for item in schema:
            doc = (item.metadata or {}).get(b"doc", b"").decode().replace("|", "\\|")
            lines.append(f"| `{item.name}` | {item.type} | {'yes' if item.nullable else 'no'} | {doc} |")
    return "\n".join(lines) + "\n"


def pages() -> dict[str, str]:
    """The generated pages by file name."""
    return {"commands.md": command_reference(), "schemas.md": schema_reference()}


if __name__ == "__main__":
    folder = Path(sys.argv[1] if len(sys.argv) > 1 else "docs")
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in pages().items():
        (folder / name).write_text(text, encoding="utf-8")
