"""The rules of backgammon: the board and the plays a roll allows, the position and its text forms, the
doubling cube and the match score, the match equity table.

Words of the game: a *point* is one of the 24 places a checker stands (numbered 1..24 from the mover's home
board); the *bar*, where a hit checker waits to enter again; *off*, the checkers borne off; a *play*, all the
checker moves of one roll; the *cube*, the doubling cube that sets the stake; *Crawford*, the one game of a
match played without the cube after a player comes within a point of winning.

- ``board.py``: the play generator (numba kernels over the board's arrays, Zobrist keys);
- ``position.py``: a position, the dice and the plays of a roll as Python objects;
- ``cube.py``: the rules of a session (money or match, Jacoby, beavers) and the cube and score as a game
  goes (``MatchState``);
- ``met.py``: the match equity table (a player's chance of winning the match from each score);
- ``ids.py``: gnubg's Position ID and Match ID, XG's XGID;
- ``position_text.py``: a position read from any of those texts.
"""
