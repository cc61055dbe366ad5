"""The ``taldau`` command line."""
