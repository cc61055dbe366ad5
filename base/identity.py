"""Content-derived game ids: the same game gets the same id in any run, on any machine (each game kind
hashes what makes its game: see ``GameKind.identity``)."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence


def game_id(game: str, headers: Mapping[str, str], start: str, moves: Sequence[object]) -> str:
    """16 hex digits of SHA-256 over the game's kind, headers (sorted), start position and moves."""
    canonical = "\n".join(
        [game, start, " ".join(str(move) for move in moves)]
        + [f"{name}={value}" for name, value in sorted(headers.items())]
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]
