"""Executors of the batch analysis: the local process pool and Celery on Redis (arrive with the service)."""
