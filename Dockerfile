# taldau: one image for the CLI and the Celery workers.
# The base image is pinned to an exact Python release (change it on purpose, with constraints.txt).
FROM python:3.11.14-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    NUMBA_CACHE_DIR=/opt/taldau/numba-cache

WORKDIR /opt/taldau

# Dependencies first, exactly as pinned in constraints.txt: this layer is rebuilt only when they change.
COPY constraints.txt ./
RUN pip install -r constraints.txt

COPY pyproject.toml README.md ./
COPY base base
COPY games games
COPY analysis analysis
COPY schemas schemas
COPY workers workers
COPY measure measure
COPY cli cli
# --no-deps and --no-build-isolation: nothing beyond constraints.txt is installed; pip check proves it is enough.
RUN pip install --no-deps --no-build-isolation . && pip check \
    && useradd --create-home taldau && mkdir /results "$NUMBA_CACHE_DIR" \
    && chown taldau /results "$NUMBA_CACHE_DIR"
USER taldau

# Compile the kernels once at build time so that workers start fast.
RUN taldau perft --depth 3 && taldau search "9S,9S,9S,9S,9S,9S,9S,9S,9S/9S,9S,9S,9S,9S,9S,9S,9S,9S 0 0 S 1" --depth 3
# The engines as `taldau worker` loads them before it takes tasks (backgammon's review kernels too).
RUN python -c "from taldau.games.registry import NAMES, analyser; [analyser(name).warm() for name in NAMES]"

ENTRYPOINT ["taldau"]
CMD ["--help"]
