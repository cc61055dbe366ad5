"""Loaded by the worker of test_celery's engine version test (via PYTHONPATH): the worker reports another
engine version, as a worker installed from another release of taldau would."""

import taldau.games.togyz.engine as engine

engine.engine_version = lambda settings=None: "taldau 0.0.0 togyz-eval 00000000"
