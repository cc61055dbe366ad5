"""Export the AlphaZero checkpoint of nitromir/togyzkumalak-engine to the ``.npz`` that ``net.py`` reads.

Run once, with torch, outside the package's environment (torch is needed by this script alone; nothing of
the package imports it)::

    git --git-dir=MIRROR show COMMIT:togyzkumalak-engine/models/alphazero/best.pth.tar > best.pth.tar
    python -m venv /tmp/torchenv && /tmp/torchenv/bin/pip install torch==2.13.0 numpy
    /tmp/torchenv/bin/python measure/togyz/alphazero/export.py best.pth.tar \
        measure/togyz/alphazero/weights-iter54.npz

Every float tensor of the checkpoint's ``state_dict`` is written as float32 under its torch name with dots
as ``_`` (``fc1.weight`` -> ``fc1_weight``); ``num_batches_tracked`` (a training counter) is left out.
"""

from __future__ import annotations

import argparse
import hashlib
from pathlib import Path

import numpy as np


def export(checkpoint: Path, out: Path) -> dict[str, tuple[int, ...]]:
    """Write the checkpoint's weights to ``out``; returns the arrays' names and shapes."""
    import torch  # only here: the package never needs it

    data = torch.load(checkpoint, map_location="cpu", weights_only=False)
    arrays = {
        name.replace("module.", "").replace(".", "_"): tensor.detach().cpu().numpy().astype(np.float32)
        for name, tensor in data["state_dict"].items()
        if tensor.is_floating_point()
    }
    np.savez(out, **arrays)
    return {name: array.shape for name, array in arrays.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkpoint", type=Path)
    parser.add_argument("out", type=Path)
    args = parser.parse_args()
    shapes = export(args.checkpoint, args.out)
    digest = hashlib.sha256(args.checkpoint.read_bytes()).hexdigest()
    print(f"{args.checkpoint} (sha256 {digest}) -> {args.out}: {len(shapes)} arrays")
    for name, shape in shapes.items():
        print(f"  {name} {shape}")


if __name__ == "__main__":
    main()
