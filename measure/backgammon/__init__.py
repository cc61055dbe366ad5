"""Measurements of backgammon: move generation and evaluation speed (``bench``), engines against a deeper
reference (``strength``), the levels of review against rollouts (``judge``), the review against GNU
Backgammon's own analysis (``reference``) and matches between engines (``match``)."""
