"""Game packages: one subpackage per game (rules core, record formats, engine) and archive walking."""
