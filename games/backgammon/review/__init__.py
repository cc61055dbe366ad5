"""The review of a backgammon match as GNU Backgammon's "analyse match" makes it: every checker play and
every cube decision judged and marked, the luck of each roll, the judgements a file already holds set
beside them, and the reviewed match as gnubg's analysis text.

Words for readers who do not know the game: a *roll* of two dice lets the player on roll move his checkers
(a *play*); before rolling he may *double* (offer the doubling *cube* at twice the stake), and the opponent
*takes* or *passes*. *EMG* (equivalent to money game) is gnubg's normalised equity, the unit of every
error.

- ``match.py``: the review of a match, its levels, checker plays and cube decisions;
- ``luck.py``: the luck of a roll, as gnubg measures it;
- ``verdicts.py``: the judgements a match file holds (XG's, gnubg's), as references or as the analysis;
- ``analysis_text.py``: a reviewed match as gnubg's analysis text, for ``taldau annotate``.
"""
