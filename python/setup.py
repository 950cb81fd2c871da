"""Installs the tmcml package with the library it needs (docs/library.md,
"Installing the Python package").  The library is, in this order:

1. the file named by $TMCML_LIBRARY: copied beside the modules;
2. the checkout's build/libtmcml.so (not a sanitizer build): copied;
3. an installed tmcml that pkg-config knows (tmcml.pc): not copied, its
   path recorded in tmcml/_installed.py, so the package follows the
   system's library;
4. else built here: cmake on the source tree above this folder into a build
   folder of the package's own (build/libtmcml under this folder, kept for
   the next install), the libtmcml target alone, Release; then copied.

The package then carries an x86-64 (or whatever this machine is) library:
its wheel is platform-specific, not py3-none-any."""

import importlib.util
import os
import re
import shutil
import subprocess
import sys

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)


def _finder():
    """tmcml/_find.py, loaded alone (the package itself needs numpy and a
    library to import)."""
    spec = importlib.util.spec_from_file_location("tmcml_find", os.path.join(HERE, "tmcml",
                                                                             "_find.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def version():
    """The project's version, from its one place (CMakeLists.txt's project())."""
    try:
        with open(os.path.join(TOP, "CMakeLists.txt")) as f:
            found = re.search(r"project\(tmcml\s+VERSION\s+([0-9.]+)", f.read())
    except OSError:
        found = None
    if not found:
        sys.exit("tmcml: no CMakeLists.txt with project(tmcml VERSION ...) above %s: install "
                 "from a source checkout" % HERE)
    return found.group(1)


def pkg_config_library():
    if not shutil.which("pkg-config"):
        return None
    out = subprocess.run(["pkg-config", "--variable=libdir", "tmcml"], capture_output=True,
                         text=True)
    libdir = out.stdout.strip()
    for name in ("libtmcml.so.1", "libtmcml.so"):
        if out.returncode == 0 and libdir and os.path.exists(os.path.join(libdir, name)):
            return os.path.join(libdir, name)
    return None


def build_library(build_temp):
    """Builds libtmcml with cmake into build_temp/libtmcml; its path."""
    cmake = shutil.which("cmake")
    if not cmake or not os.path.exists(os.path.join(TOP, "CMakeLists.txt")):
        sys.exit("tmcml: no libtmcml.so to install and %s: set TMCML_LIBRARY to one, or build "
                 "it first (cmake -S . -B build && cmake --build build)"
                 % ("cmake is not installed" if not cmake else "no source tree above " + HERE))
    tree = os.path.abspath(os.path.join(build_temp, "libtmcml"))
    jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
    print("tmcml: building libtmcml.so with cmake in %s (-j%s)" % (tree, jobs), flush=True)
    steps = [[cmake, "-S", TOP, "-B", tree, "-DCMAKE_BUILD_TYPE=Release", "-DBUILD_TESTING=OFF",
              "-DTMCML_SANITIZE=OFF", "-DTMCML_MPI=OFF"],
             [cmake, "--build", tree, "--target", "libtmcml", "--parallel", jobs]]
    for step in steps:
        if subprocess.run(step).returncode != 0:
            sys.exit("tmcml: building the library failed (%s): the C dependencies are "
                     "liblua5.4-dev, libcjson-dev, libpng-dev (tools/deps.sh)" % " ".join(step))
    return os.path.join(tree, "libtmcml.so")


def choose_library(build_temp):
    """(path of the library, whether to copy it), saying which and why."""
    find = _finder()
    env = os.environ.get("TMCML_LIBRARY")
    if env:
        if find.sanitizer(env):
            print("tmcml: warning: TMCML_LIBRARY=%s is a sanitizer build" % env)
        return env, True
    built = os.path.join(TOP, "build", "libtmcml.so")
    if os.path.exists(built):
        runtime = find.sanitizer(built)
        if not runtime:
            return built, True
        print("tmcml: %s skipped: a sanitizer build (needs %s)" % (built, runtime))
    installed = pkg_config_library()
    if installed:
        return installed, False
    return build_library(build_temp), True


class BuildWithLibrary(build_py):
    def run(self):
        super().run()
        lib, copy = choose_library(self.get_finalized_command("build").build_temp)
        package = os.path.join(self.build_lib, "tmcml")
        if copy:
            shutil.copyfile(os.path.realpath(lib), os.path.join(package, "libtmcml.so"))
            print("tmcml: %s copied into the package" % lib)
        else:
            print("tmcml: the installed %s used where it is (pkg-config tmcml)" % lib)
        with open(os.path.join(package, "_installed.py"), "w") as f:
            f.write('"""Written by setup.py when the package was installed."""\n'
                    "LIBRARY = %r  # an installed library used where it is, else None\n"
                    "VERSION = %r  # the project's, as installed\n"
                    % (None if copy else lib, version()))


class BinaryDistribution(Distribution):
    """The package carries a native library: its wheel names this platform."""

    def has_ext_modules(self):
        return True


setup(version=version(), distclass=BinaryDistribution, cmdclass={"build_py": BuildWithLibrary},
      zip_safe=False)
