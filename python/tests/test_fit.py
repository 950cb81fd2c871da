"""examples/fit_optical_properties.py --quick recovers mua and mus' within
4 of the standard errors it reports (a normal deviate beyond with 6e-5)."""

import os
import re
import subprocess
import sys


def test_fit_quick(root):
    out = subprocess.run([sys.executable, os.path.join(root, "examples",
                                                       "fit_optical_properties.py"), "--quick"],
                         check=True, capture_output=True, text=True, timeout=300).stdout
    m = re.search(r"recovered: mua ([0-9.]+) /cm  mus' ([0-9.]+) /cm", out)
    e = re.search(r"errors:    mua ([0-9.]+) /cm  mus' ([0-9.]+) /cm", out)
    assert m and e, out
    mua, musp = float(m.group(1)), float(m.group(2))
    e_mua, e_musp = float(e.group(1)), float(e.group(2))
    assert abs(mua - 0.5) < 4 * e_mua and abs(musp - 10.0) < 4 * e_musp, out
    runs = int(re.search(r"runs: (\d+)", out).group(1))
    assert 2 <= runs <= 40, out
