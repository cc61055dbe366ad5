"""What the ``taldau`` command writes is shown with every control character escaped (C0 but the line break,
DEL, C1: ``\\u001b`` for ESC), so that a name or text read from a record (a player called ``ESC ] 52 ; c ;
... BEL`` writes the clipboard on some terminals) can neither drive the terminal nor hide itself. The group
(``cli.main``) runs every command with stdout and stderr escaped (``escaped_output``): no command can forget
it. The escape is JSON's own, so a ``--json`` output stays JSON and reads back to the text as recorded
(``json.dumps(ensure_ascii=False)`` leaves DEL and C1 raw). Only the progress bar (``cli.progress``) writes
its own cursor movements to the terminal itself (``unescaped``)."""

from __future__ import annotations

import io
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

LINE_BREAK = 0x0A
CONTROLS = (*range(0x00, 0x20), *range(0x7F, 0xA0))  # C0, DEL and C1
ESCAPES = {code: f"\\u{code:04x}" for code in CONTROLS if code != LINE_BREAK}  # JSON's escape of each


def escaped(text: str, width: int | None = None) -> str:
    """``text`` with each control character but the line break as its escape; at most ``width`` characters
    long when a width is given, cut between two characters of ``text``, never inside an escape."""
    if width is None:
        return text.translate(ESCAPES)
    shown: list[str] = []
    for character in text[:width]:  # an escape is never shorter than its character
        piece = ESCAPES.get(ord(character), character)
        width -= len(piece)
        if width < 0:
            break
        shown.append(piece)
    return "".join(shown)


class EscapedStream(io.TextIOBase):
    """A text stream that writes to ``stream`` what it is given, control characters escaped."""

    def __init__(self, stream: TextIO) -> None:
        super().__init__()
        self.stream = stream

    @property
    def encoding(self) -> str:  # type: ignore[override]  # the stream's, so that click writes here
        return self.stream.encoding

    @property
    def errors(self) -> str | None:  # type: ignore[override]
        return self.stream.errors

    def write(self, text: str) -> int:  # type: ignore[override]
        if not isinstance(text, str):  # click asks whether a stream takes bytes by writing b""
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        shown = escaped(text)
        try:
            self.stream.write(shown)
        except UnicodeEncodeError:  # a terminal of fewer letters (ASCII): a name's others as ?, as click does
            self.stream.write(shown.encode(self.encoding, "replace").decode(self.encoding))
        return len(text)

    def writable(self) -> bool:
        return True

    def flush(self) -> None:
        self.stream.flush()

    def isatty(self) -> bool:
        return self.stream.isatty()

    def fileno(self) -> int:
        return self.stream.fileno()


@contextmanager
def escaped_output() -> Iterator[None]:
    """Everything written to stdout and stderr while the block runs (``click.echo``, ``print``) escaped."""
    saved = sys.stdout, sys.stderr
    ours = EscapedStream(sys.stdout), EscapedStream(sys.stderr)
    sys.stdout, sys.stderr = ours
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved
        for stream in ours:
            if not stream.stream.closed:
                stream.flush()


def unescaped(stream: TextIO) -> TextIO:
    """The stream that ``stream`` writes to in the end, with no escape: for a progress bar's own control
    sequences (its text escaped by ``escaped``)."""
    while isinstance(stream, EscapedStream):
        stream = stream.stream
    return stream
