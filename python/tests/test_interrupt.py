"""Ctrl-C during a long run: KeyboardInterrupt, soon, and the next run works."""

import os
import signal
import threading
import time

import pytest

import tmcml
from conftest import EXAMPLE


def test_sigint_stops_a_long_run():
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    start = time.monotonic()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        tmcml.run(**EXAMPLE, photons=10**12, engine="cpu", threads=2, progress=False)
    elapsed = time.monotonic() - start
    timer.join()
    assert elapsed < 5, elapsed
    r = tmcml.run(**EXAMPLE, photons=2000, engine="cpu", progress=False)
    assert r.photons == 2000


def test_raise_signal_with_progress_shown():
    timer = threading.Timer(0.3, signal.raise_signal, (signal.SIGINT,))
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        tmcml.run(**EXAMPLE, photons=10**12, engine="cpu", threads=2, progress=True)
    timer.join()
    assert tmcml.run(**EXAMPLE, photons=1000, engine="cpu", progress=False).Rd > 0


def test_sigint_while_the_run_starts(monkeypatch):
    """A Ctrl-C that lands while the run's thread starts: held until the
    start is over, then the run cancelled and waited for (it used to
    escape from Thread.start, leaving the call running on the session)."""
    real_start = threading.Thread.start

    def start_then_sigint(self):
        real_start(self)
        if self.name == "tmcml-run":
            signal.raise_signal(signal.SIGINT)
            time.sleep(0.2)  # Python raises a pending KeyboardInterrupt here, unless held

    monkeypatch.setattr(threading.Thread, "start", start_then_sigint)
    with pytest.raises(KeyboardInterrupt):
        tmcml.run(**EXAMPLE, photons=10**12, engine="cpu", threads=2, progress=False)
    monkeypatch.undo()
    # The session is free: the long run was cancelled, not left running.
    box = {}
    after = threading.Thread(target=lambda: box.setdefault(
        "r", tmcml.run(**EXAMPLE, photons=2000, engine="cpu", progress=False)), daemon=True)
    after.start()
    after.join(20)
    assert "r" in box and box["r"].photons == 2000, "the cut run still holds the session"


def test_many_runs_do_not_grow():
    """200 small runs: the process's resident memory stays put (results and
    problems are freed with their Python objects)."""
    def rss_kib():
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        return 0

    for _ in range(20):
        tmcml.run(**EXAMPLE, photons=200, engine="cpu", threads=1, progress=False)
    before = rss_kib()
    for i in range(200):
        layers = [[1.37, 1.0 + 0.01 * i, 100.0, 0.9, 0.1]]
        tmcml.run(layers=layers, photons=200, nz=40, nr=50, na=1, engine="cpu", threads=1,
                  progress=False)
    assert rss_kib() - before < 8 * 1024
