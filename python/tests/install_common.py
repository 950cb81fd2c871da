"""What the checks of the package as pip installs it share
(pip_install_check.py, sdist_check.py; scripts that ctest runs, beside
this module): the source tree, the project's version, a skip (exit 77,
which ctest reads as skipped) and the venv they need."""

import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def project_version():
    """The version in CMakeLists.txt's project(tmcml VERSION ...)."""
    with open(os.path.join(ROOT, "CMakeLists.txt")) as f:
        return re.search(r"project\(tmcml\s+VERSION\s+([0-9.]+)", f.read()).group(1)


def skip(why):
    """Ends the check skipped, saying why under the script's name."""
    print("%s: skipped: %s" % (os.path.splitext(os.path.basename(sys.argv[0]))[0], why))
    sys.exit(77)


def need_venv():
    """Skips the check when this Python cannot make a venv with pip in it."""
    for module in ("venv", "ensurepip"):
        try:
            __import__(module)
        except ImportError:
            skip("%s has no %s (Debian: python3-venv)" % (sys.executable, module))
