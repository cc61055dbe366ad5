"""The numba decorator of every compiled kernel, with numba's cache kept out of the installed package.

numba's ``cache=True`` writes its files beside the source when it can, which for an installed taldau is
inside ``site-packages/taldau/games/*/__pycache__``; an editable install of the same package made later
is then hidden by those leftover folders. Every kernel module takes ``njit`` from here, never from numba,
so that the cache directory is chosen once, before numba is imported and before any kernel is compiled:

1. ``NUMBA_CACHE_DIR`` when it is set and writable (numba's own setting, used as it is);
2. ``$XDG_CACHE_HOME/taldau/numba/<digest>``, or ``~/.cache/taldau/numba/<digest>`` without
   ``XDG_CACHE_HOME``, where the digest is that of the package's sources: numba checks only the file a
   kernel is written in, not the kernels it calls from other files, so code compiled from other sources
   is never read back;
3. no cache at all when neither is writable (a read-only install run without a writable home): every
   process then compiles the kernels it uses again, which is slower but correct.

The choice is handed to numba through ``NUMBA_CACHE_DIR``, the variable numba documents: numba reads it at
import and again when its configuration reloads, and the worker processes started from here inherit it.

A run says that it compiles (``warm_kernels``) when numba does compile, as numba's compile events tell:
never when every kernel comes from the cache, whatever filled it.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

# The folders whose modules hold compiled kernels: this package and the games beside it (siblings in an
# install and in the repository alike).
KERNEL_DIRS = (Path(__file__).resolve().parent, Path(__file__).resolve().parent.parent / "games")


def source_digest(packages: tuple[Path, ...] = KERNEL_DIRS) -> str:
    """A short digest of every Python source under ``packages``: it changes whenever any kernel does."""
    digest = hashlib.sha256()
    for package in packages:
        for path in sorted(package.rglob("*.py")):
            digest.update(f"{package.name}/{path.relative_to(package).as_posix()}".encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def is_writable(directory: Path) -> bool:
    """Whether ``directory`` exists or can be made, and a file can be created in it (numba's own test)."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=directory).close()
    except OSError:
        return False
    return True


def user_cache_root(environ: Mapping[str, str]) -> Path | None:
    """The per-user cache folder of the XDG rules (``XDG_CACHE_HOME``, else ``~/.cache``), if one is known."""
    xdg = environ.get("XDG_CACHE_HOME", "")
    if xdg and Path(xdg).is_absolute():
        return Path(xdg)
    home = environ.get("HOME") or os.path.expanduser("~")
    if not home or home.startswith("~"):
        return None
    return Path(home) / ".cache"


def choose_cache_dir(environ: Mapping[str, str], digest: str | None = None) -> Path | None:
    """Where numba caches the compiled kernels, in the order of the module docstring (``digest``: that of
    the sources, computed when not given); None for no cache."""
    candidates = []
    if environ.get("NUMBA_CACHE_DIR"):
        candidates.append(Path(environ["NUMBA_CACHE_DIR"]))
    root = user_cache_root(environ)
    if root is not None:
        candidates.append(root / "taldau" / "numba" / (digest or source_digest()))
    return next((path for path in candidates if is_writable(path)), None)


SOURCE_DIGEST = source_digest()  # of the sources this process imported: its kernels' and its cache's
CACHE_DIR = choose_cache_dir(os.environ, SOURCE_DIGEST)
if CACHE_DIR is not None:
    os.environ["NUMBA_CACHE_DIR"] = str(CACHE_DIR)

import numba  # noqa: E402  (after NUMBA_CACHE_DIR is set, which numba reads at import)
from numba.core import event  # noqa: E402

# numba may have been imported before this module; its configuration then rereads the environment here.
numba.config.reload_config()


prange = numba.prange  # the parallel range of kernels compiled with ``njit(parallel=True)``


def use_threads(count: int) -> int:
    """Let kernels compiled with ``parallel=True`` use ``count`` threads (at most numba's pool, at least
    one) from now on in this thread; returns the number set."""
    count = max(1, min(count, numba.config.NUMBA_NUM_THREADS))  # type: ignore[attr-defined]
    numba.set_num_threads(count)
    return count


# CPU seconds that warming each game's analyser (``Analyser.warm``) spends compiling its kernels with
# numba's cache empty: 16.7 s and 11.0 s, each game in a fresh process with ``NUMBA_CACHE_DIR`` an empty
# temporary folder, timed by ``time.process_time`` around ``analyser(game).warm()`` (2026-12-06, numba
# 0.68.1, a 2-core AMD EPYC shared with other jobs, where the wall time was twice that; 0.3 s and 1.3 s
# with the cache full). The figures of 2026-12-04 (15 s and 185 s) were not met again here.
FIRST_COMPILE_SECONDS = {"togyz": 17, "backgammon": 11}


class _FirstCompile(event.Listener):
    """Listens to numba's ``numba:compile`` events, which numba raises only when it compiles a kernel (never
    for one loaded from its cache): calls ``said`` at the first one, and ``compiled`` tells whether one
    came."""

    def __init__(self, said: Callable[[], object]) -> None:
        self.said = said
        self.compiled = False

    def on_start(self, happened: event.Event) -> None:
        if not self.compiled:
            self.compiled = True
            self.said()

    def on_end(self, happened: event.Event) -> None:
        pass


def compiling_notice(game: str, cache_dir: Path | None = CACHE_DIR) -> str:
    """What a run says, once, as it starts compiling ``game``'s kernels, with the time it takes
    (``FIRST_COMPILE_SECONDS``); ``cache_dir`` None: no cache keeps them, every run compiles them."""
    seconds = FIRST_COMPILE_SECONDS.get(game)
    about = "" if seconds is None else f", about {seconds} s on an idle core"
    if cache_dir is None:
        return f"compiling the {game} kernels (no cache to keep them: every run compiles them{about})"
    return f"compiling the {game} kernels (first run of this version on this machine{about})"


def warm_kernels(
    game: str, warm: Callable[[], object], say: Callable[[str], object], cache_dir: Path | None = CACHE_DIR
) -> bool:
    """Run ``warm`` (``game``'s analyser's warm-up, which compiles its kernels or loads them from numba's
    cache) and say ``compiling_notice`` through ``say`` once, as numba starts compiling the first kernel
    that its cache does not hold for these sources: never when they all come from the cache (or run as
    plain Python, ``NUMBA_DISABLE_JIT``). Returns whether it compiled. Processes forked after this inherit
    the compiled kernels; processes started otherwise load them from the cache."""
    listener = _FirstCompile(lambda: say(compiling_notice(game, cache_dir)))
    with event.install_listener("numba:compile", listener):
        warm()
    return listener.compiled


def njit(**options: Any) -> Any:
    """``numba.njit(**options)``: ``cache=True`` caches in ``CACHE_DIR``, or not at all when that is None."""
    if CACHE_DIR is None:
        options["cache"] = False
    return numba.njit(**options)


def _unowned_intrinsic() -> Any:
    """The compiled ``unowned``: a copy of an array's header with no memory owner (meminfo and parent
    null), so that numba's reference counting of it is a null test instead of two atomic operations."""
    from numba.core import types
    from numba.extending import intrinsic

    @intrinsic
    def unowned(typingctx: Any, array: Any) -> Any:
        if not isinstance(array, types.Array):
            return None

        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            source = context.make_array(array)(context, builder, value=args[0])
            view = context.make_array(array)(context, builder)
            context.populate_array(
                view,
                data=source.data,
                shape=source.shape,
                strides=source.strides,
                itemsize=source.itemsize,
                meminfo=None,
                parent=None,
            )
            return view._getvalue()

        return array(array), codegen

    return unowned


def _same(array: Any) -> Any:
    """Plain Python's ``unowned``: the array itself (nothing counts references without numba)."""
    return array


# unowned(array), inside compiled code: the same array, not reference counted. Numba counts references to
# every array a function receives or slices, with atomic operations; in a recursive search, where nothing
# can be inlined, that counting costs a large share of the time. Only for arrays that outlive every use
# of the view (the caller keeps them alive).
unowned = _same if numba.config.DISABLE_JIT else _unowned_intrinsic()
