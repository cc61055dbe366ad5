"""The move-token grammar shared by every Togyz Kumalak record format.

A move is written from its origin pit and the pit where its last stone fell (the *destination*, numbered
from its owner's left): ``76`` sows pit 7 and ends in pit 6. Around that core the formats add:

- PlayOK and app exports: ``76X`` (also ``x`` or Cyrillic ``х``) when the move makes a tuzdyk, ``76(10)``
  with the mover's kazan total after an even capture;
- the official scoresheet, short form ``7:6`` (``:`` a capturing move, ``-`` a quiet one), full form
  ``79:610`` (origin pit 7 holding 9 stones, last stone in pit 6 which then holds 10), and the glyphs
  ``!`` ``?`` ``!!`` ``??`` ``?!`` ``!?`` for the quality of a move and ``=`` for a draw offer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from taldau.base.records import excerpt

GLYPHS = ("!!", "??", "?!", "!?", "!", "?")  # longest first, as the suffix pattern tries them
TUZDYK_MARKS = "xXх"  # Latin x, X and Cyrillic х
CAPTURE, QUIET = ":", "-"

_MOVE = re.compile(
    r"""
    (?P<pit>[1-9])(?P<pit_stones>\d{1,9})?
    (?P<separator>[:\-])?
    (?P<destination>[1-9])(?P<landed>\d{1,9})?
    """,
    re.VERBOSE,
)
_GLYPH = "|".join(map(re.escape, GLYPHS))
_SUFFIX = re.compile(
    rf"(?P<tuzdyk>[{TUZDYK_MARKS}])|\((?P<kazan>\d{{1,9}})\)|(?P<glyph>{_GLYPH})|(?P<draw>=)"
)


@dataclass(frozen=True)
class MoveText:
    """One move as a record wrote it, with every claim the record makes about it.

    ``pit`` is the origin pit (1..9). Each other field is None (or False) when the record does not say:
    ``destination`` the pit of the last stone; ``separator`` ``:`` or ``-`` (scoresheets); ``pit_stones``
    and ``landed`` the full scoresheet form's counts; ``kazan`` the ``(n)`` kazan total; ``tuzdyk`` the X
    mark; ``glyph`` an annotation glyph; ``draw_offer`` a ``=`` sign. ``line`` and ``column`` are 1-based.
    """

    pit: int
    destination: int | None
    text: str
    line: int
    column: int
    separator: str | None = None
    pit_stones: int | None = None
    landed: int | None = None
    kazan: int | None = None
    tuzdyk: bool = False
    glyph: str | None = None
    draw_offer: bool = False


class NotationError(ValueError):
    """A token that is not a move in any of the formats."""


def parse_suffixes(text: str) -> dict[str, object] | None:
    """The MoveText fields claimed by a suffix string (X mark, ``(n)``, glyph, ``=``), or None if invalid."""
    fields: dict[str, object] = {}
    position = 0
    while position < len(text):
        match = _SUFFIX.match(text, position)
        if match is None:
            return None
        value: object
        if match.group("tuzdyk"):
            name, value = "tuzdyk", True
        elif match.group("kazan"):
            name, value = "kazan", int(match.group("kazan"))
        elif match.group("glyph"):
            name, value = "glyph", match.group("glyph")
        else:
            name, value = "draw_offer", True
        if name in fields:
            return None
        fields[name] = value
        position = match.end()
    return fields


def parse_move(text: str, line: int, column: int) -> MoveText:
    """Parse one move token of any format; raises NotationError saying what is wrong."""
    core = _MOVE.match(text)
    if core is None:
        raise NotationError(f"{excerpt(text)} is not a move (expected origin and destination pits, like 76)")
    separator = core.group("separator")
    pit_stones, landed = core.group("pit_stones"), core.group("landed")
    if (pit_stones is None) != (landed is None):
        raise NotationError(f"{excerpt(text)} mixes the short and the full scoresheet forms")
    if pit_stones is not None and separator is None:
        halves = "the full scoresheet form needs ':' or '-' between its two halves"
        raise NotationError(f"{excerpt(text)}: {halves}")
    suffix = text[core.end() :]
    fields = parse_suffixes(suffix)
    if fields is None:
        raise NotationError(f"{excerpt(text)} has an unreadable suffix {excerpt(suffix)}")
    return MoveText(
        pit=int(core.group("pit")),
        destination=int(core.group("destination")),
        text=text,
        line=line,
        column=column,
        separator=separator,
        pit_stones=None if pit_stones is None else int(pit_stones),
        landed=None if landed is None else int(landed),
        **fields,  # type: ignore[arg-type]
    )


def add_suffix(move: MoveText, suffix: str) -> MoveText | None:
    """``move`` with the claims of a detached suffix token (``(10)``, ``!``, ``=``), or None if invalid."""
    fields = parse_suffixes(suffix)
    if fields is None or any(getattr(move, name) not in (None, False) for name in fields):
        return None
    return replace(move, text=f"{move.text} {suffix}", **fields)  # type: ignore[arg-type]
