"""The games: one subpackage per game (rules core, record formats, engine, review) and the registry of
their kinds (``registry``), the one place the layers above learn which games there are."""
