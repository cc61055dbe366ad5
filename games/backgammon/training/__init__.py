"""How taldau's own backgammon nets are trained (``taldau train``), apart from what an analysis loads.

Words for readers who do not know the game: the nets estimate, for the side on roll, the chances of
winning, of winning a *gammon* (the loser has borne off no checker, 2 points) and a *backgammon* (the loser
still has a checker on the *bar* or in the winner's home board, 3 points).

- ``train.py``: the stages run reproducibly and resumably, a run's chunks seeded from its seed;
- ``td.py``: TD(lambda) self-play, as TD-Gammon learnt, from random weights;
- ``supervised.py``: positions from self-play and real matches labelled by a deeper search (or rollouts),
  the nets fitted to those labels;
- ``pruning.py``: the small pruning nets that sort a roll's plays before the full evaluation.

The nets it writes are loaded by the engine (``taldau.games.backgammon.engine.weights``).
"""
