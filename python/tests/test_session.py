"""Sessions closed while another thread runs on them, and paths the library
would read cut short at a NUL (issue 21, items 2 and 9)."""

import os
import threading
import time

import pytest

import tmcml
from tmcml import _lib
from conftest import EXAMPLE

DAYS = 2**40  # photons: a run that only a cancel ends
PROMPT = 5.0  # seconds: a close that waited longer did not cancel the run


def start_long_run(session, monkeypatch):
    """A CPU run of DAYS photons on a thread; returns (thread, box, entered):
    entered is set as the run goes into the library, box gets its
    exception."""
    entered = threading.Event()
    real = _lib.lib.tmcml_run

    def tmcml_run(*args):
        entered.set()
        return real(*args)

    monkeypatch.setattr(_lib.lib, "tmcml_run", tmcml_run)
    box = {}

    def work():
        try:
            tmcml.run(**EXAMPLE, photons=DAYS, engine="cpu", threads=2, progress=False,
                      session=session)
        except BaseException as e:
            box["error"] = e

    thread = threading.Thread(target=work)
    thread.start()
    assert entered.wait(30)
    time.sleep(0.1)  # the engine's workers into their photons
    return thread, box


def ended_cancelled(thread, box):
    thread.join(PROMPT)
    assert not thread.is_alive()
    assert isinstance(box.get("error"), tmcml.CancelledError), box
    assert "closed during the call" in str(box["error"])


def test_close_during_a_run_cancels_and_waits(monkeypatch):
    s = tmcml.Session()
    thread, box = start_long_run(s, monkeypatch)
    t0 = time.monotonic()
    s.close()
    assert time.monotonic() - t0 < PROMPT
    ended_cancelled(thread, box)
    assert s.closed
    with pytest.raises(ValueError, match="after close"):
        s.stats()
    with pytest.raises(ValueError, match="after close"):
        tmcml.run(**EXAMPLE, photons=100, engine="cpu", progress=False, session=s)
    s.close()  # again: nothing


def test_leaving_the_with_block_during_a_run(monkeypatch):
    with tmcml.Session() as s:
        thread, box = start_long_run(s, monkeypatch)
    ended_cancelled(thread, box)


def test_results_outlive_their_session(tmp_path):
    with tmcml.Session() as s:
        res = tmcml.run(**EXAMPLE, photons=1000, engine="cpu", progress=False, session=s)
    assert res.tallies["A_rz"].shape == (50, 40)
    res.save_mco(tmp_path / "after.mco")
    assert (tmp_path / "after.mco").exists()


def test_a_closed_default_session_is_made_again():
    tmcml.default_session().close()
    assert not tmcml.default_session().closed


@pytest.mark.parametrize("bad", ["in\0.mci", b"in\0.mci"])
def test_paths_with_a_nul_are_refused(tmp_path, bad):
    res = tmcml.run(**EXAMPLE, photons=100, engine="cpu", progress=False)
    here = os.getcwd()
    os.chdir(tmp_path)  # a path cut at the NUL would be "in" here
    try:
        calls = [
            lambda: tmcml.run_mci(bad),
            lambda: tmcml.load_mco(bad),
            lambda: tmcml.save_mci(bad, **EXAMPLE, photons=100),
            lambda: tmcml.save_mci("ok.mci", **EXAMPLE, photons=100, out_name="a\0b.mco"),
            lambda: res.save_mco(bad),
            lambda: tmcml.run(**EXAMPLE, photons=100, engine="cpu", progress=False,
                              cache_dir=bad),
            lambda: tmcml.run(**EXAMPLE, photons=100, engine="cpu", progress=False,
                              profile_dir=bad),
        ]
        for call in calls:
            with pytest.raises(ValueError, match="embedded null byte"):
                call()
        assert os.listdir(".") == []
    finally:
        os.chdir(here)
