"""examples/fit_optical_properties.py --quick recovers mua and mus'."""

import os
import re
import subprocess
import sys


def test_fit_quick(root):
    out = subprocess.run([sys.executable, os.path.join(root, "examples",
                                                       "fit_optical_properties.py"), "--quick"],
                         check=True, capture_output=True, text=True, timeout=120).stdout
    m = re.search(r"recovered: mua ([0-9.]+) /cm  mus' ([0-9.]+) /cm", out)
    assert m, out
    mua, musp = float(m.group(1)), float(m.group(2))
    assert abs(mua / 0.5 - 1) < 0.2 and abs(musp / 10.0 - 1) < 0.2, out
    runs = int(re.search(r"runs: (\d+)", out).group(1))
    assert 10 < runs < 200, out
