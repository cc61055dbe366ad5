"""What every game stands on and no game names: the ``GameKind`` and ``Analyser`` Protocols (kind.py),
record files read safely in any encoding (records.py, files.py) and walked through archives (archive.py),
game ids, Zobrist keys, the winning-chance curve and its fit, the numba decorator and its cache, worker
processes, and the SVG both games' diagrams share."""
