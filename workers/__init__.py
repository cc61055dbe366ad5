"""Executors of the batch analysis: the batch run, the local process pool and Celery on Redis (the broker,
its client, the supervisor, the status and watch of a run), and the result store, the analysis folder's
one writer."""
