"""Weights files: the contact and race nets and what made them, in one ``.npz``.

A file holds each net's four arrays (``contact.w1`` ...), optionally the pruning nets fitted to them
(``prune.contact.w1`` ..., see ``plies``), ``meta``, a JSON text saying how the nets were trained (stage,
games, seed, settings), and ``features``, the names of the features the nets read after the point units
(``inputs.FEATURE_NAMES`` when the file was written). Files of an earlier feature list load with the
features added since weighted zero, so that the nets answer exactly as before and training can go on from
them; a file written before the list was kept read the first seven. A file's identity, the first 12 hex
digits of the SHA-256 of the weight arrays, enters the engine version, so every change of weights changes
the version of the analyses made with them.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np
from taldau.base.files import publish

from .inputs import FEATURE_NAMES, FEATURES, POINT_INPUTS
from .model import NetPair
from .net import Net, load_arrays

SHIPPED = Path(__file__).resolve().parent / "nets.npz"
FIRST_FEATURES = FEATURE_NAMES[:7]  # what files without a ``features`` list were trained on


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
        "features": np.array(FEATURE_NAMES),
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
        features = tuple(str(name) for name in arrays.get("features", FIRST_FEATURES))
        for prefix in ("contact", "race"):
            if f"{prefix}.w1" in arrays:
                arrays[f"{prefix}.w1"] = _with_features(arrays[f"{prefix}.w1"], features)
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


def _with_features(w1: np.ndarray, features: tuple[str, ...]) -> np.ndarray:
    """The first layer ``w1`` of a net that read ``features`` after the point units, laid out for
    FEATURE_NAMES: each known feature's rows moved to its place, the others zero. Raises ValueError for a
    feature this version does not know or rows that do not fit the list."""
    if features == FEATURE_NAMES or w1.shape[0] == POINT_INPUTS:
        return w1
    unknown = [name for name in features if name not in FEATURE_NAMES]
    if unknown:
        raise ValueError(f"the nets read features this version does not know: {', '.join(unknown)}")
    if w1.shape[0] != POINT_INPUTS + 2 * len(features):
        raise ValueError(f"a first layer of {w1.shape[0]} rows does not fit {len(features)} features")
    widened = np.zeros((POINT_INPUTS + 2 * FEATURES, w1.shape[1]), dtype=w1.dtype)
    widened[:POINT_INPUTS] = w1[:POINT_INPUTS]
    for order in range(2):  # the side on roll's features, then the opponent's
        for k, name in enumerate(features):
            widened[POINT_INPUTS + order * FEATURES + FEATURE_NAMES.index(name)] = w1[
                POINT_INPUTS + order * len(features) + k
            ]
    return widened
