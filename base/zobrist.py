"""Fixed pseudo-random words for Zobrist position keys, shared by every game's rules core."""

from __future__ import annotations

import numpy as np


def splitmix64_words(count: int, seed: int) -> np.ndarray:
    """``count`` pseudo-random 64-bit words from SplitMix64: fixed forever, so keys are stable everywhere."""
    mask = (1 << 64) - 1
    words = np.empty(count, dtype=np.uint64)
    x = seed
    for i in range(count):
        x = (x + 0x9E3779B97F4A7C15) & mask
        z = x
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        words[i] = z ^ (z >> 31)
    return words
