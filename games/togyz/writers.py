"""Writing replayed Togyz Kumalak games: PlayOK style and the official scoresheet (short and full forms).

Both write ``[Tag "value"]`` headers, then the movetext, then the result; reading the output back gives
the same games (headers, moves, result). Glyphs come from the record, or from ``marks`` (ply index -> glyph)
when the caller annotates a game, for example with the analysis' own marks.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping

from .notation import CAPTURE, QUIET
from .position import Side, Sowing, Termination
from .replay import Game

LINE_WIDTH = 60  # PlayOK wraps its movetext near 60 characters
SCORESHEET_FORMS = ("short", "full")


def task_headers(game: Game, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The record's headers with the result kept in step with the game (``Result``: the result the replay
    settled, or ``*``, where the game has one or the record a tag), then ``extra`` headers: those a written
    game, and a task's game, carry."""
    headers = dict(game.record.headers) | dict(extra or {})
    if game.result is not None or "Result" in headers:
        headers["Result"] = game.result or "*"
    return headers


def _headers(game: Game, extra: Mapping[str, str] | None = None) -> list[str]:
    """Header lines with the result kept in step with the game, then ``extra`` headers."""
    headers = task_headers(game, extra)
    escaped = {name: value.replace("\\", "\\\\").replace('"', '\\"') for name, value in headers.items()}
    return [f'[{name} "{value}"]' for name, value in escaped.items()]


def _movetext(game: Game, tokens: list[str]) -> str:
    """Move numbers, move tokens and the closing result, wrapped; ``{zero}`` after an atsyrau ending."""
    words: list[str] = []
    for ply, token in enumerate(tokens):
        position = game.positions[ply]
        if ply == 0 and position.turn is Side.BLACK:
            words.append(f"{position.move_number}...")
        elif position.turn is Side.WHITE:
            words.append(f"{position.move_number}.")
        words.append(token)
    words.append(game.result or "*")
    if game.termination is Termination.ATSYRAU:
        words.append("{zero}")
    return "\n".join(textwrap.wrap(" ".join(words), LINE_WIDTH, break_on_hyphens=False))


def scoresheet_token(sowing: Sowing, form: str) -> str:
    """A move in the scoresheet's short (``7:6 (10)``) or full (``79:610``) form, without glyph."""
    separator = CAPTURE if sowing.captured else QUIET
    if form == "full":
        token = f"{sowing.pit}{sowing.stones}{separator}{sowing.destination}{sowing.landed}"
    else:
        token = f"{sowing.pit}{separator}{sowing.destination}"
    if sowing.tuzdyk:
        return token + "x"
    if sowing.captured:
        return f"{token} ({sowing.kazan})"
    return token


def write_playok(game: Game) -> str:
    """The game in PlayOK's PGN-like format."""
    tokens = [sowing.notation for sowing in game.sowings]
    return "\n".join(_headers(game)) + "\n\n" + _movetext(game, tokens) + "\n"


def write_scoresheet(
    game: Game,
    form: str = "short",
    marks: Mapping[int, str] | None = None,
    headers: Mapping[str, str] | None = None,
) -> str:
    """The game in the official scoresheet notation, ``short`` or ``full`` form, with glyphs; ``marks``
    (ply -> glyph) replace the record's own glyphs, ``headers`` are added to the record's."""
    if form not in SCORESHEET_FORMS:
        raise ValueError(f"scoresheet form must be one of {SCORESHEET_FORMS}, not {form!r}")
    recorded = game.record.moves
    tokens = []
    for ply, sowing in enumerate(game.sowings):
        glyph = marks.get(ply) if marks is not None else recorded[ply].glyph
        draw = "=" if recorded[ply].draw_offer else ""
        tokens.append(scoresheet_token(sowing, form) + (glyph or "") + draw)
    return "\n".join(_headers(game, headers)) + "\n\n" + _movetext(game, tokens) + "\n"
