"""Backgammon match records: the formats read and written, and a match replayed move by move.

Words of the game: a *match* is a series of games played to a number of points; a record holds each game's
*rolls* of the two dice, the *plays* made with them (the checker moves, ``13/8 24/23``), and the cube
actions (a *double* offered, then *take*, *pass* or *beaver*).

- ``record.py``: a match as read (``MatchRecord``, its games and actions, the judgements a file holds);
- ``jellyfish.py``, ``sgf.py``, ``xg.py``: the readers of Jellyfish .mat/.txt, gnubg's SGF and eXtreme
  Gammon's .xg; ``readers.py``: a file's format told and read;
- ``replay.py``: each game replayed on the board, every play checked against the rules;
- ``writer.py``: a match written back as a Jellyfish match file; ``task.py``: a match as a task's text.
"""
