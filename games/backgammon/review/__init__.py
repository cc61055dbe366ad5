"""The review of a backgammon match as GNU Backgammon's "analyse match" makes it: every checker play and every
cube decision judged and marked, in gnubg's conventions so that the figures can be set beside gnubg's
own; the luck of each roll; the judgements a file already holds set beside them; the reviewed match as
gnubg's analysis text.

Words for readers who do not know the game: a *roll* of two dice lets the player on roll move his checkers
(a *play*); a play is *forced* when the roll allows one play only (or none: the player *dances*). Before
rolling, the player may *double* (offer the doubling cube at twice the stake) when the cube is centred or
his; the opponent *takes* (plays on for twice the stake), *passes* (loses the current stake) or, in money
play, *beavers* (takes and redoubles at once). *EMG* (equivalent to money game) is gnubg's normalised
equity: the points a player expects per unit of the current cube, in match play the match winning chances
(MWC) rescaled by ``cubeful.mwc_to_emg``; an error in EMG means the same for both players.

The players' figures (error rates, PR, rating bands, luck) are summed from the decisions by the
game-agnostic ``taldau.analysis.review.player_stats``, as for every game.

The modules of the review:

- ``levels.py``: how deeply a review judges (``ReviewSettings``, the named ``LEVELS``, the decisions in
  doubt and how they are settled), and what every judged decision carries;
- ``plays.py``: checker plays, ranked by cubeful equity in the match's context, and the luck of the roll;
- ``cubes.py``: cube decisions, the double and its answer (take, pass, beaver);
- ``match.py``: the walk through a match's games that assembles each game's decisions (``review_match``);
- ``luck.py``: the luck of a roll, as gnubg measures it;
- ``verdicts.py``: the judgements a match file holds (XG's, gnubg's), as references or as the analysis;
- ``analysis_text.py``: a reviewed match as gnubg's analysis text, for ``taldau annotate``.
"""
