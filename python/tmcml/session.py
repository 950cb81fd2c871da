"""Sessions: what stays alive across runs of one process - the GPU context,
the last kernel module, the kernel variant of each problem shape.  The
functions of the package use one default session unless given another."""

import ctypes
import threading

from . import _lib
from ._lib import lib


class Session:
    """A libtmcml session (tmcml_session).  Runs on one session take turns;
    use one session per thread to run in parallel."""

    def __init__(self):
        handle = lib.tmcml_session_new()
        if not handle:
            raise MemoryError("tmcml: cannot create a session")
        self._handle = handle
        self._closed = False

    @property
    def handle(self):
        if self._closed:
            raise ValueError("session: closed")
        return self._handle

    def close(self):
        """Closes the GPU context, if one was opened.  Idempotent."""
        if not self._closed:
            self._closed = True
            lib.tmcml_session_delete(self._handle)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def stats(self):
        """What the session did so far: runs, gpu_runs, compiles (NVRTC),
        module_loads and plans (kernel variants chosen)."""
        st = _lib.SessionStats()
        lib.tmcml_session_stats_get(self.handle, ctypes.byref(st))
        return {name: int(getattr(st, name)) for name, _ in _lib.SessionStats._fields_}

    def check(self, status):
        _lib.check(self.handle, status)


_default = None
_default_lock = threading.Lock()


def default_session():
    """The session the package's functions use when given none (created at
    the first call, kept for the life of the process)."""
    global _default
    with _default_lock:
        if _default is None:
            _default = Session()
        return _default
