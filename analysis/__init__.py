"""Game-agnostic work on replayed records: archive checks now; per-move analysis and marks next."""
