"""Game-agnostic work on replayed records: archive checks now; per-move analysis, marks and statistics next."""
