"""The progress display of a run: tqdm when it is installed, else one line
on a terminal's stderr; nothing for runs shorter than a second."""

import sys
import time

QUIET_SECONDS = 1.0


class Progress:
    def __init__(self, enabled, total, label=""):
        self.enabled = enabled
        self.total = total
        self.label = label
        self.start = time.monotonic()
        self.bar = None
        self.line = False
        self.done = 0

    def _open(self):
        try:
            from tqdm import tqdm
        except ImportError:
            self.bar = False
            return
        self.bar = tqdm(total=self.total, desc=self.label or "tmcml", unit=" photons",
                        unit_scale=True, leave=False)

    def update(self, done, total):
        """Called from the run's thread with photons done of total (the
        library's total where none was given)."""
        self.done = done
        if self.total is None:
            self.total = total
        if not self.enabled or time.monotonic() - self.start < QUIET_SECONDS:
            return
        if self.bar is None:
            self._open()
        if self.bar:
            self.bar.update(done - self.bar.n)
        elif sys.stderr.isatty():
            elapsed = time.monotonic() - self.start
            rate = done / elapsed if elapsed > 0 else 0.0
            sys.stderr.write("\r%s%d / %d photons (%.1f%%), %.3g photons/s   " % (
                self.label, done, total, 100.0 * done / total if total else 100.0, rate))
            sys.stderr.flush()
            self.line = True

    def close(self):
        if self.bar:
            self.bar.close()
        if self.line:
            sys.stderr.write("\n")
            sys.stderr.flush()
        self.bar = None
        self.line = False
