"""Sessions: what stays alive across runs of one process - the GPU context,
the last kernel module, the kernel variant of each problem shape.  The
functions of the package use one default session unless given another.

Every call into the library goes through Session.call (or Session.use),
which counts it: close() refuses new calls, cancels those under way and
waits for them to return before tmcml_session_delete frees the session, so
no thread is left holding a freed handle."""

import contextlib
import ctypes
import sys
import threading

from . import _lib
from ._lib import lib

CLOSED = "tmcml.Session: used after close()"
# How often close() asks again: a run that enters the library after a
# cancel starts by clearing it (tmcml_session_cancel).
_CANCEL_EVERY = 0.05


class Session:
    """A libtmcml session (tmcml_session).  Runs on one session take turns;
    use one session per thread to run in parallel.  close() (or leaving a
    with block) cancels a run under way on another thread and waits for it:
    that run raises CancelledError; the session's later use raises
    ValueError."""

    def __init__(self):
        handle = lib.tmcml_session_new()
        if not handle:
            raise MemoryError("tmcml: cannot create a session")
        self._handle = handle
        self._closed = False
        self._calls = 0  # calls in the library now, through use()
        self._cond = threading.Condition()

    @property
    def closed(self):
        return self._closed

    @property
    def handle(self):
        """The raw handle, for ctypes calls of your own: valid until close(),
        which does not wait for calls made with it (use() does)."""
        if self._closed:
            raise ValueError(CLOSED)
        return self._handle

    @contextlib.contextmanager
    def use(self):
        """The raw handle for calls into the library within the block;
        close() waits for the block to end (and cancels a run in it)."""
        with self._cond:
            if self._closed:
                raise ValueError(CLOSED)
            self._calls += 1
        try:
            yield self._handle
        finally:
            with self._cond:
                self._calls -= 1
                self._cond.notify_all()

    def call(self, fn, *args):
        """fn(handle, *args), a tmcml function returning a status; a failure
        raised as its exception (the message read before close() can free
        it)."""
        with self.use() as handle:
            status = fn(handle, *args)
            closed = self._closed and status == _lib.ERR_CANCELLED
            e = _lib.error(handle, status, "tmcml.Session closed during the call: " if closed
                           else "")
        if e is not None:
            raise e

    def cancel(self):
        """Asks the run under way on this session to stop (it raises
        CancelledError).  Any thread; nothing when closed."""
        with self._cond:
            if self._handle:
                lib.tmcml_session_cancel(self._handle)

    def close(self):
        """Cancels the calls under way on other threads, waits for them to
        return, then closes the GPU context, if one was opened, and frees the
        session.  Idempotent.  Not from a progress callback of its own run."""
        with self._cond:
            if self._closed:
                return
            self._closed = True
            while self._calls:
                lib.tmcml_session_cancel(self._handle)
                self._cond.wait(_CANCEL_EVERY)
            handle, self._handle = self._handle, None
        lib.tmcml_session_delete(handle)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        # At interpreter exit a daemon thread may be frozen inside a call,
        # which close() would wait for forever: the process's end frees all.
        if sys.is_finalizing():
            return
        try:
            self.close()
        except Exception:
            pass

    def stats(self):
        """What the session did so far: runs, gpu_runs, compiles (NVRTC),
        module_loads and plans (kernel variants chosen)."""
        st = _lib.SessionStats()
        with self.use() as handle:
            lib.tmcml_session_stats_get(handle, ctypes.byref(st))
        return {name: int(getattr(st, name)) for name, _ in _lib.SessionStats._fields_}

    def check(self, status):
        """Raises the exception of a failed call made with self.handle.
        Prefer call(), which keeps the session open while it reads the
        message."""
        with self.use() as handle:
            e = _lib.error(handle, status)
        if e is not None:
            raise e


_default = None
_default_lock = threading.Lock()


def default_session():
    """The session the package's functions use when given none (created at
    the first call, kept for the life of the process; made again if
    closed)."""
    global _default
    with _default_lock:
        if _default is None or _default.closed:
            _default = Session()
        return _default


def open_session(session):
    """session if it is open, else the default one: what a Result of a
    closed session uses to read its tallies or write its .mco (results
    outlive their session)."""
    return session if session is not None and not session.closed else default_session()
