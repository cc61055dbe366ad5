"""Coverage-guided fuzzing of the record readers: targets (no atheris needed), seeds, the atheris runner."""
