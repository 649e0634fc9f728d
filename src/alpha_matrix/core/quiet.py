"""What C libraries print goes to this process's log (debug level), not to the user's terminal.

llama.cpp (``llama_kv_cache_iswa: using full-size SWA cache (ref: ...)`` when a model loads),
PyBullet (``b3Warning ... urdfdom: no axis element`` for the humanoid's URDF, the ``pybullet
build time`` banner at import) write to file descriptors 1 and 2 from C, past Python's
``sys.stdout``. ``native_output`` points both descriptors at a temporary file around such a call,
flushes C's stdio buffers (on a pipe the banner waits there), puts the descriptors back and logs
each captured line at DEBUG on the ``alpha_matrix.native`` logger; a node forwards that logger to
its own log (ros/lifecycle.py), so ``--ros-args --log-level debug`` shows it.

The descriptors are the process's: whatever another thread writes meanwhile is captured too, so
the windows are kept to the C call itself (a model load, a URDF load, an import). A native crash
inside one still prints its stack on the terminal (faulthandler is pointed at the real stderr).
"""

from __future__ import annotations

import contextlib
import ctypes
import faulthandler
import importlib.abc
import importlib.machinery
import logging
import os
import sys
import tempfile
import threading
from collections.abc import Iterator, Sequence
from types import ModuleType

LOG = logging.getLogger("alpha_matrix.native")
LOG.propagate = True  # to the handlers on "alpha_matrix" (launch's logger class turns it off at creation)
_LOCK = threading.RLock()
_depth = 0


def _flush_c_stdio() -> None:
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None).fflush(None)


@contextlib.contextmanager
def native_output(what: str) -> Iterator[None]:
    """Capture fds 1 and 2 while the block runs (``what``: the C call, named in each logged line).

    A nested use shares the outer capture; another thread's use waits for this one to end."""
    global _depth
    with _LOCK:
        if _depth:
            _depth += 1
            try:
                yield
            finally:
                _depth -= 1
            return
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        _flush_c_stdio()
        saved = (os.dup(1), os.dup(2))
        crash_log = faulthandler.is_enabled()
        with tempfile.TemporaryFile() as sink:
            try:
                if crash_log:  # a crash in the C call: its stacks on the real stderr, not in the sink
                    faulthandler.enable(file=saved[1], all_threads=True)
                os.dup2(sink.fileno(), 1)
                os.dup2(sink.fileno(), 2)
                _depth = 1
                try:
                    yield
                finally:
                    _depth = 0
                    for stream in (sys.stdout, sys.stderr):
                        with contextlib.suppress(Exception):
                            stream.flush()
                    _flush_c_stdio()
            finally:
                for fd, copy in zip((1, 2), saved, strict=True):
                    os.dup2(copy, fd)
                if crash_log:  # back on fd 2, restored above (sys.stderr may have no fd: a capture)
                    faulthandler.enable(file=2, all_threads=True)
                for copy in saved:
                    os.close(copy)
            sink.seek(0)
            text = sink.read().decode("utf-8", "replace")
    for line in text.splitlines():
        if line.strip():
            LOG.debug("%s: %s", what, line.rstrip())


class _QuietLoader(importlib.abc.Loader):
    """Runs another loader's ``exec_module`` inside ``native_output``."""

    def __init__(self, inner: importlib.abc.Loader, name: str) -> None:
        self.inner, self.name = inner, name

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        with native_output(f"import {self.name}"):
            return self.inner.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        with native_output(f"import {self.name}"):
            self.inner.exec_module(module)


class _QuietImports(importlib.abc.MetaPathFinder):
    """Finds ``names`` with the other finders and loads them quietly (see ``quiet_imports``)."""

    def __init__(self, names: set[str]) -> None:
        self.names = names

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in self.names:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None and spec.loader is not None:
                spec.loader = _QuietLoader(spec.loader, fullname)
                return spec
        return None


def quiet_imports(*names: str) -> None:
    """Whenever this process first imports one of ``names`` (a C extension that prints at import,
    e.g. pybullet's build-time banner), the import runs inside ``native_output``. Installed once
    per process, before anything imports them; costs nothing until then."""
    pending = {n for n in names if n not in sys.modules}
    for finder in sys.meta_path:
        if isinstance(finder, _QuietImports):
            finder.names |= pending
            return
    if pending:
        sys.meta_path.insert(0, _QuietImports(pending))


__all__ = ["LOG", "native_output", "quiet_imports"]
