# taldau: one image for the CLI and the Celery workers.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PIP_NO_CACHE_DIR=1 \
    NUMBA_CACHE_DIR=/tmp/numba-cache

WORKDIR /opt/taldau
COPY pyproject.toml README.md ./
COPY games games
COPY analysis analysis
COPY schemas schemas
COPY workers workers
COPY cli cli
RUN pip install . && useradd --create-home taldau && mkdir /results && chown taldau /results
USER taldau

# Compile the kernels once at build time so that workers start fast.
RUN taldau perft --depth 3 && taldau search "9S,9S,9S,9S,9S,9S,9S,9S,9S/9S,9S,9S,9S,9S,9S,9S,9S,9S 0 0 S 1" --depth 3

ENTRYPOINT ["taldau"]
CMD ["--help"]
