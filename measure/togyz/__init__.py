"""Measurements of the Togyz Kumalak engine: its speed (``bench``) and matches between engines and against
an independent program (``match``; ``alphazero``: the AlphaZero net of togyzkumalak-engine in NumPy)."""
