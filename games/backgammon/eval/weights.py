"""Weights files: the contact and race nets and what made them, in one ``.npz``.

A file holds each net's four arrays (``contact.w1`` ...), optionally the pruning nets fitted to them
(``prune.contact.w1`` ..., see ``plies``), and ``meta``, a JSON text saying how the nets were trained
(stage, games, seed, settings). Its identity, the first 12 hex digits of the SHA-256 of the weight
arrays, enters the engine version, so every change of weights changes the version of the analyses made
with them.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np
from taldau.games.files import publish

from .model import NetPair
from .net import Net, load_arrays

SHIPPED = Path(__file__).resolve().parent / "nets.npz"


def weights_digest(nets: NetPair) -> str:
    """First 12 hex digits of the SHA-256 of the weights, in a fixed order."""
    digest = hashlib.sha256()
    for array in nets.arrays():
        digest.update(np.ascontiguousarray(array, dtype=np.float32).tobytes())
    return digest.hexdigest()[:12]


def save_nets(path: Path, nets: NetPair, meta: dict[str, Any], pruning: NetPair | None = None) -> None:
    """Write ``nets``, their ``pruning`` nets if any and ``meta`` to ``path`` atomically (a temporary
    name, then a rename)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    arrays: dict[str, Any] = {
        "meta": np.array(json.dumps(meta, sort_keys=True)),
        **nets.contact.arrays("contact"),
        **nets.race.arrays("race"),
    }
    if pruning is not None:
        arrays.update(pruning.contact.arrays("prune.contact"))
        arrays.update(pruning.race.arrays("prune.race"))

    def write(temporary: Path) -> None:
        with open(temporary, "wb") as handle:
            np.savez(handle, **arrays)

    publish(path, write)


def load_nets(path: Path = SHIPPED) -> tuple[NetPair, dict[str, Any]]:
    """The nets and meta stored at ``path`` (the shipped weights by default); raises ValueError naming the
    file when it is not a weights file."""
    arrays = load_arrays(Path(path))
    try:
        nets = NetPair(Net.from_arrays(arrays, "contact"), Net.from_arrays(arrays, "race"))
        meta = json.loads(str(arrays["meta"])) if "meta" in arrays else {}
    except (ValueError, json.JSONDecodeError) as error:
        raise ValueError(f"{path}: {error}") from None
    return nets, meta


def load_pruning(path: Path = SHIPPED) -> NetPair | None:
    """The pruning nets stored at ``path``, None when it has none; raises ValueError naming the file when
    it is not a weights file."""
    arrays = load_arrays(Path(path))
    if not any(name.startswith("prune.") for name in arrays):
        return None
    try:
        return NetPair(Net.from_arrays(arrays, "prune.contact"), Net.from_arrays(arrays, "prune.race"))
    except ValueError as error:
        raise ValueError(f"{path}: {error}") from None
