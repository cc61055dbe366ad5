"""The backgammon engine: the five cubeless probabilities of a position, by neural nets, an exact bear-off
database, or gnubg's nets, searched to gnubg's plies; a roll's plays ranked by them; cubeful equities and
cube decisions made from them.

- ``analyse.py``: the engine's one entry point, ``analyse(evaluator, position, dice, Search(plies=2))``,
  every legal play of a roll ranked best first, and the choice of evaluator by name;
- ``own.py``, ``gnubg.py``, ``sage.py``: the evaluators (taldau's own nets, GNU Backgammon's, bgsage's),
  with ``inputs.py``, ``net.py``, ``model.py``, ``weights.py`` (the own nets, their inputs and weights
  files, ``nets.npz`` the shipped ones), ``bearoff.py`` (the exact bear-off database), ``plies.py`` (the
  look-ahead), ``rollout.py`` (truncated rollouts), ``probabilities.py`` (the five numbers and equity);
- ``cache.py``: any evaluator with its evaluations remembered by position and plies (a match's review
  evaluates no position twice);
- ``cubeful.py``: cubeful equities and cube decisions from the probabilities at 0-ply (Janowski), match
  winning chances and EMG; ``cube_plies.py``: cube decisions by gnubg's cubeful look-ahead.

How the nets are trained is apart, in ``taldau.games.backgammon.training``.

Words for readers who do not know the game: a side *wins a gammon* when the loser has borne off no checker
(2 points), a *backgammon* when the loser also still has a checker on the bar or in the winner's home board
(3 points). *Cubeless equity* is the points the side on roll expects to win per unit stake, ignoring the
doubling cube: ``2 * win - 1 + (win gammon - lose gammon) + (win backgammon - lose backgammon)``.
*n-ply* is gnubg's word for look-ahead: 0-ply is the raw evaluation, n-ply the average over the 21 rolls of
the opponent's best reply (chosen at 0-ply) evaluated at (n - 1)-ply.

The probabilities of one position are five numbers in gnubg's order (``PROBABILITIES``), each from the
side on roll's point of view and cumulative: *win gammon* counts backgammons too.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

from .probabilities import PROBABILITIES, equities, equity, flipped

__all__ = ["PROBABILITIES", "Evaluator", "equities", "equity", "flipped"]


@runtime_checkable
class Evaluator(Protocol):
    """Something that evaluates backgammon positions before the roll, for the side on roll."""

    @property
    def name(self) -> str:
        """Short name users choose it by (``own``, ``gnubg``)."""
        ...

    @property
    def version(self) -> str:
        """Identity of the evaluation (nets and their weights): it changes whenever evaluations can."""
        ...

    def evaluate(self, boards: np.ndarray, plies: int = 0) -> np.ndarray:
        """The probabilities of each board at ``plies``: ``boards`` is (n, 2, 25) ``int8`` in the rules
        core's layout with the side on roll in row ``MOVER``; returns (n, 5) ``float64`` in
        ``PROBABILITIES`` order from that side's point of view."""
        ...
