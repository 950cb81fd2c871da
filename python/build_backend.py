"""The package's build backend (PEP 517, pyproject.toml's backend-path):
Python's standard library alone - no setuptools, no wheel, nothing from a
package index - so that `pip install ./python` works offline in any Python
3.8+ with pip: Debian's, a venv, pyenv's, conda's.

The wheel holds tmcml/*.py, tmcml/data/* (the chromophores' tables:
docs/chromophores.md) and the library the package needs (docs/library.md,
"Installing the Python package"), in this order:

1. the file named by $TMCML_LIBRARY: copied beside the modules;
2. the checkout's build/libtmcml.so (not a sanitizer build): copied;
3. an installed tmcml that pkg-config knows (tmcml.pc): not copied, its
   path recorded in tmcml/_installed.py, so the package follows the
   system's library;
4. else built here: cmake on the source tree above this folder into a build
   folder of the package's own (python/build/libtmcml, kept for the next
   install), the libtmcml target alone, Release; then copied.

It carries a native library, so it is tagged for this platform
(py3-none-linux_x86_64 here), not py3-none-any."""

import base64
import hashlib
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
NAME = "tmcml"
SUMMARY = ("Monte Carlo light transport in layered tissue (MCML 1.2.2 semantics) over "
           "libtmcml")
REQUIRES = ["numpy"]
EXTRAS = {"progress": ["tqdm"], "plot": ["matplotlib"], "fit": ["scipy"]}


def say(text):
    print("tmcml: " + text, file=sys.stderr, flush=True)


def _finder():
    """tmcml/_find.py, loaded alone (the package itself needs numpy and a
    library to import)."""
    spec = importlib.util.spec_from_file_location("tmcml_find",
                                                  os.path.join(HERE, NAME, "_find.py"))
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
        raise RuntimeError("tmcml: no CMakeLists.txt with project(tmcml VERSION ...) above %s: "
                           "install from a source checkout" % HERE)
    return found.group(1)


def pkg_config_library():
    if not shutil.which("pkg-config"):
        return None
    out = subprocess.run(["pkg-config", "--variable=libdir", "tmcml"], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, universal_newlines=True)
    libdir = out.stdout.strip()
    for name in ("libtmcml.so.1", "libtmcml.so"):
        if out.returncode == 0 and libdir and os.path.exists(os.path.join(libdir, name)):
            return os.path.join(libdir, name)
    return None


def build_library():
    """Builds libtmcml with cmake into python/build/libtmcml; its path."""
    cmake = shutil.which("cmake")
    if not cmake or not os.path.exists(os.path.join(TOP, "CMakeLists.txt")):
        raise RuntimeError(
            "tmcml: no libtmcml.so to install and %s: set TMCML_LIBRARY to one, or build it "
            "first (cmake -S . -B build && cmake --build build)"
            % ("cmake is not installed" if not cmake else "no source tree above " + HERE))
    tree = os.path.join(HERE, "build", "libtmcml")
    jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
    say("building libtmcml.so with cmake in %s (-j%s)" % (tree, jobs))
    steps = [[cmake, "-S", TOP, "-B", tree, "-DCMAKE_BUILD_TYPE=Release", "-DBUILD_TESTING=OFF",
              "-DTMCML_SANITIZE=OFF", "-DTMCML_MPI=OFF"],
             [cmake, "--build", tree, "--target", "libtmcml", "--parallel", jobs]]
    for step in steps:
        # cmake's output to stderr: pip shows it with -v, and on failure.
        if subprocess.run(step, stdout=sys.stderr).returncode != 0:
            raise RuntimeError("tmcml: building the library failed (%s): it needs a C compiler "
                               "and liblua5.4-dev, libcjson-dev, libpng-dev (tools/deps.sh)"
                               % " ".join(step))
    return os.path.join(tree, "libtmcml.so")


def choose_library():
    """(path of the library, whether to copy it), saying which and why."""
    find = _finder()
    env = os.environ.get("TMCML_LIBRARY")
    if env:
        if not os.path.isfile(env):
            raise RuntimeError("tmcml: TMCML_LIBRARY=%s: no such file" % env)
        if find.sanitizer(env):
            say("warning: TMCML_LIBRARY=%s is a sanitizer build" % env)
        return env, True
    built = os.path.join(TOP, "build", "libtmcml.so")
    if os.path.exists(built):
        runtime = find.sanitizer(built)
        if not runtime:
            return built, True
        say("%s skipped: a sanitizer build (needs %s)" % (built, runtime))
    installed = pkg_config_library()
    if installed:
        return installed, False
    return build_library(), True


def platform_tag():
    return re.sub(r"[^A-Za-z0-9]", "_", sysconfig.get_platform())


def metadata(ver):
    lines = ["Metadata-Version: 2.1", "Name: " + NAME, "Version: " + ver, "Summary: " + SUMMARY,
             "License: MIT", "Requires-Python: >=3.8"]
    lines += ["Requires-Dist: " + r for r in REQUIRES]
    for extra, needs in EXTRAS.items():
        lines.append("Provides-Extra: " + extra)
        lines += ['Requires-Dist: %s; extra == "%s"' % (n, extra) for n in needs]
    lines.append("Description-Content-Type: text/markdown")
    with open(os.path.join(HERE, "README.md")) as f:
        return "\n".join(lines) + "\n\n" + f.read()


class Wheel:
    """A wheel being written: files added with their RECORD lines."""

    def __init__(self, directory, ver, tag):
        self.ver, self.tag = ver, tag
        self.name = "%s-%s-%s.whl" % (NAME, ver, tag)
        self.info = "%s-%s.dist-info" % (NAME, ver)
        self.zip = zipfile.ZipFile(os.path.join(directory, self.name), "w", zipfile.ZIP_DEFLATED)
        self.record = []

    def add(self, arcname, data, mode=0o644):
        if isinstance(data, str):
            data = data.encode("utf-8")
        entry = zipfile.ZipInfo(arcname, date_time=(2020, 1, 1, 0, 0, 0))
        entry.external_attr = (0o100000 | mode) << 16
        entry.compress_type = zipfile.ZIP_DEFLATED
        self.zip.writestr(entry, data)
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        self.record.append("%s,sha256=%s,%d" % (arcname, digest, len(data)))

    def close(self, pure):
        self.add(self.info + "/METADATA", metadata(self.ver))
        self.add(self.info + "/WHEEL", "Wheel-Version: 1.0\nGenerator: tmcml build_backend\n"
                 "Root-Is-Purelib: %s\nTag: %s\n" % ("true" if pure else "false", self.tag))
        self.record.append(self.info + "/RECORD,,")
        self.zip.writestr(self.info + "/RECORD", "\n".join(self.record) + "\n")
        self.zip.close()
        return self.name


def _read(path):
    with open(path, "rb") as f:
        return f.read()


def add_data(wheel, folder):
    """The package's data files (tmcml/data/*: tables the modules read
    beside themselves), each as it is."""
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        if os.path.isfile(path):
            wheel.add("%s/data/%s" % (NAME, name), _read(path))


# --- PEP 517 and 660 hooks ------------------------------------------------------------


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    ver = version()
    lib, copy = choose_library()
    wheel = Wheel(wheel_directory, ver, "py3-none-" + platform_tag())
    package = os.path.join(HERE, NAME)
    for name in sorted(os.listdir(package)):
        if name.endswith(".py") and name != "_installed.py":
            wheel.add("%s/%s" % (NAME, name), _read(os.path.join(package, name)))
    add_data(wheel, os.path.join(package, "data"))
    if copy:
        wheel.add(NAME + "/libtmcml.so", _read(os.path.realpath(lib)), 0o755)
        say("%s copied into the package" % lib)
    else:
        say("the installed %s used where it is (pkg-config tmcml)" % lib)
    wheel.add(NAME + "/_installed.py",
              '"""Written by build_backend.py when the package was built."""\n'
              "LIBRARY = %r  # an installed library used where it is, else None\n"
              "VERSION = %r  # the project's, as installed\n" % (None if copy else lib, ver))
    return wheel.close(pure=False)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    """pip install -e: a .pth naming this folder; the library is found in
    the checkout's build trees (or through $TMCML_LIBRARY), as by
    PYTHONPATH=python."""
    wheel = Wheel(wheel_directory, version(), "py3-none-any")
    wheel.add("tmcml_editable.pth", HERE + "\n")
    return wheel.close(pure=True)
