"""Installs the tmcml package with libtmcml.so beside its modules: the file
named by $TMCML_LIBRARY, else the one in the checkout's build/ (build it
first: cmake -S . -B build && cmake --build build).  Without either, the
package is installed alone and finds the library at import time through
$TMCML_LIBRARY (python/README.md)."""

import os
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))


def library():
    env = os.environ.get("TMCML_LIBRARY")
    if env:
        return env
    built = os.path.join(os.path.dirname(HERE), "build", "libtmcml.so")
    return built if os.path.exists(built) else None


class BuildWithLibrary(build_py):
    def run(self):
        super().run()
        lib = library()
        if lib:
            target = os.path.join(self.build_lib, "tmcml", "libtmcml.so")
            shutil.copyfile(os.path.realpath(lib), target)
            print("tmcml: %s copied into the package" % lib)
        else:
            print("tmcml: no libtmcml.so found: set TMCML_LIBRARY at run time")


setup(cmdclass={"build_py": BuildWithLibrary})
