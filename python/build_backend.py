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

It carries a native library, so it is tagged for a platform, never
py3-none-any: for what that library truly needs, read from its ELF headers
(wheel_platform): manylinux_2_N_<arch> (PEP 600) when it needs glibc's own
libraries alone, N the newest GLIBC_2.N of its symbol versions; else
linux_<arch>, and the reason is said.  The library built here is configured
with TMCML_STATIC_DEPS=ON, which links Lua, cJSON and libpng in where their
static archives allow (packaging/static_deps.cmake); Debian 12's do not, so
there it needs them shared and the wheel is linux_x86_64.  The pkg-config
case (3) holds no library but depends on the system's: linux_<arch> too.

build_sdist writes tmcml-VERSION.tar.gz: the C sources the libtmcml target
needs, this folder without its tests, PKG-INFO and a pyproject.toml at its
top that names this backend in python/ (SDIST_*).  `pip install` of it
builds the library with cmake from those sources (4 above)."""

import base64
import gzip
import hashlib
import importlib.util
import io
import os
import re
import shutil
import struct
import subprocess
import sys
import sysconfig
import tarfile
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
                           "install from a source checkout or its sdist (tmcml-VERSION.tar.gz)"
                           % HERE)
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
    # TMCML_STATIC_DEPS: Lua, cJSON and libpng linked in where their
    # archives allow, so that the wheel may be manylinux (wheel_platform).
    steps = [[cmake, "-S", TOP, "-B", tree, "-DCMAKE_BUILD_TYPE=Release", "-DBUILD_TESTING=OFF",
              "-DTMCML_SANITIZE=OFF", "-DTMCML_MPI=OFF", "-DTMCML_STATIC_DEPS=ON"],
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


# --- the wheel's platform: what its library needs (PEP 600) ----------------------

# glibc's own libraries and its loader: a manylinux wheel's library may need
# these, at the symbol versions its tag names.  The manylinux policy allows a
# few more (libgcc_s, libstdc++, X11, GL, glib) at versions of their own,
# which are not checked here: a library that needs one of them, or anything
# else (liblua5.4.so.0), is tagged linux_<arch>, which pip installs on this
# machine and a package index refuses.
GLIBC_LIBRARIES = ("libc.so.6", "libm.so.6", "libdl.so.2", "librt.so.1", "libpthread.so.0",
                   "libutil.so.1", "libnsl.so.1", "libresolv.so.2", "ld-linux-x86-64.so.2",
                   "ld-linux-aarch64.so.1", "ld-linux.so.2", "ld-linux-armhf.so.3", "ld64.so.1",
                   "ld64.so.2")
# The oldest manylinux of each architecture (2_17 where not named here, as
# pip has it): a library that asks for no newer GLIBC_2.N is tagged with it.
OLDEST_GLIBC = {"x86_64": (2, 5), "i686": (2, 5)}


def wheel_platform(path):
    """(the platform tag a wheel that carries the library at path may
    have, why): manylinux_2_N_<arch> when it needs glibc alone (N the
    newest GLIBC_2.N it asks for), else linux_<arch>."""
    here = platform_tag()
    if not here.startswith("linux_"):
        return here, "not Linux"
    try:
        arch, needed, versions = _finder().elf_needs(path)
    except (OSError, ValueError, IndexError, struct.error) as e:
        raise RuntimeError("tmcml: %s: cannot read what it needs from its ELF headers (%s)"
                           % (path, e))
    if arch is None:
        return here, "its architecture is not one manylinux names"
    if here != "linux_" + arch:
        raise RuntimeError("tmcml: %s is a library for %s, and this Python is %s: set "
                           "TMCML_LIBRARY to one built for it" % (path, arch, here))
    others = [n for n in needed if n not in GLIBC_LIBRARIES]
    if others:
        return here, ("%s needs %s beside glibc (a manylinux wheel needs them linked in: "
                      "docs/library.md)" % (os.path.basename(path), ", ".join(others)))
    glibc = OLDEST_GLIBC.get(arch, (2, 17))
    for library, names in sorted(versions.items()):
        for name in sorted(names):
            found = re.match(r"GLIBC_(\d+)\.(\d+)(\.\d+)?$", name)
            if found:
                glibc = max(glibc, (int(found.group(1)), int(found.group(2))))
            elif name == "GLIBC_ABI_DT_RELR":  # packed relocations: glibc 2.36
                glibc = max(glibc, (2, 36))
            else:
                return here, "%s needs %s of %s" % (os.path.basename(path), name, library)
    return ("manylinux_%d_%d_%s" % (glibc[0], glibc[1], arch),
            "%s needs glibc %d.%d alone (%s)" % (os.path.basename(path), glibc[0], glibc[1],
                                                 ", ".join(needed)))


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


def get_requires_for_build_sdist(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    ver = version()
    lib, copy = choose_library()
    if copy:
        platform, why = wheel_platform(lib)
    else:
        platform, why = platform_tag(), "it depends on the system's %s" % lib
    say("the wheel is tagged %s: %s" % (platform, why))
    wheel = Wheel(wheel_directory, ver, "py3-none-" + platform)
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


# --- the source distribution (PEP 517 build_sdist) -------------------------------

# What tmcml-VERSION.tar.gz holds of the repository: what cmake needs to
# configure it with BUILD_TESTING=OFF and build the libtmcml target (every
# room, the build's scripts, packaging/ and the shipped profiles), the
# license and readmes, and this folder without its tests.  Not tests/,
# bench/, docs/, examples/, the other tools/ or .ci/.
SDIST_FILES = ("CMakeLists.txt", "LICENSE", "README.md", "CHANGELOG.md", "tools/embed.cmake",
               "tools/physics_hash.cmake", "tools/script_args.cmake", "tools/mwc_multipliers.c")
SDIST_FOLDERS = ("api/", "base/", "cli/", "driver/", "gen/", "packaging/", "profiles/",
                 "runtime/", "templates/", "tuner/", "python/")
SDIST_LEFT = ("python/tests/", "python/build/", "python/dist/", "python/CMakeLists.txt")
# The sdist's own pyproject.toml, at its top: this backend, in python/.
SDIST_PYPROJECT = """\
# The source distribution's build (written by python/build_backend.py): the
# backend of python/pyproject.toml, which builds libtmcml with cmake from the
# sources beside this file (docs/library.md, "Installing the Python package").
[build-system]
requires = []
build-backend = "build_backend"
backend-path = ["python"]
"""
# Its files' time when neither SOURCE_DATE_EPOCH nor git gives one: the
# wheel's (2020-01-01).
FALLBACK_DATE = 1577836800


def in_sdist(path):
    """Whether the file at path (relative to the top, with /) goes in."""
    parts = path.split("/")
    if "__pycache__" in parts or path.endswith(".pyc") or path.startswith(SDIST_LEFT):
        return False
    return path in SDIST_FILES or path.startswith(SDIST_FOLDERS)


def _git(*args):
    """git's output in the checkout above this folder, or None where this is
    no checkout's top (an unpacked sdist), or git is missing."""
    git = shutil.which("git")
    if not git:
        return None
    top = subprocess.run([git, "-C", TOP, "rev-parse", "--show-toplevel"], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL)
    if top.returncode != 0 or (os.path.realpath(top.stdout.decode().strip())
                               != os.path.realpath(TOP)):
        return None
    out = subprocess.run([git, "-C", TOP] + list(args), stdout=subprocess.PIPE)
    if out.returncode != 0:
        raise RuntimeError("tmcml: git %s in %s failed" % (" ".join(args), TOP))
    return out.stdout.decode("utf-8", "surrogateescape")


def source_files():
    """The sdist's files, relative to the top: git's (tracked, as they are
    in the work tree) in a checkout, else the tree's, those in_sdist takes."""
    tracked = _git("ls-files", "-z")
    if tracked is not None:
        paths = [p for p in tracked.split("\0") if p]
        others = [p for p in _git("ls-files", "-z", "--others", "--exclude-standard").split("\0")
                  if p and in_sdist(p)]
        if others:
            say("left out, not tracked by git (git add them to ship them): " + ", ".join(others))
    else:
        say("%s is no git checkout: its files are taken as they are" % TOP)
        paths = []
        for start in SDIST_FILES + SDIST_FOLDERS:
            full = os.path.join(TOP, start)
            if os.path.isfile(full):
                paths.append(start)
            for folder, subfolders, names in os.walk(full):
                rel = os.path.relpath(folder, TOP).replace(os.sep, "/")
                subfolders[:] = [d for d in subfolders if in_sdist(rel + "/" + d + "/")]
                paths += [rel + "/" + n for n in names]
    files = []
    for path in sorted(set(paths)):
        if not in_sdist(path):
            continue
        if not os.path.isfile(os.path.join(TOP, path)):
            say("%s left out: tracked by git but not in the work tree" % path)
            continue
        files.append(path)
    for need in ("CMakeLists.txt", "LICENSE", "python/build_backend.py"):
        if need not in files:
            raise RuntimeError("tmcml: no %s in %s: not a tmcml source tree" % (need, TOP))
    return files


def source_date():
    """The sdist's timestamp: $SOURCE_DATE_EPOCH, else the checkout's last
    commit, else FALLBACK_DATE: the same sources give the same bytes."""
    given = os.environ.get("SOURCE_DATE_EPOCH")
    if given:
        try:
            return int(given)
        except ValueError:
            raise RuntimeError("tmcml: SOURCE_DATE_EPOCH=%r: not a whole number of seconds"
                               % given)
    commit = _git("log", "-1", "--format=%ct")
    return int(commit) if commit and commit.strip().isdigit() else FALLBACK_DATE


def build_sdist(sdist_directory, config_settings=None):
    """tmcml-VERSION.tar.gz in sdist_directory: its files under
    tmcml-VERSION/, sorted, with one time (source_date), owner 0 and modes
    0644 (0755 for an executable), in a gzip that names no file and has
    that time: two builds of the same sources are the same bytes."""
    ver = version()
    top = "%s-%s" % (NAME, ver)
    when = source_date()
    entries = {top + "/PKG-INFO": (metadata(ver).encode("utf-8"), 0o644),
               top + "/pyproject.toml": (SDIST_PYPROJECT.encode("utf-8"), 0o644)}
    for path in source_files():
        full = os.path.join(TOP, path)
        mode = 0o755 if os.stat(full).st_mode & 0o111 else 0o644
        entries[top + "/" + path] = (_read(full), mode)

    def member(name, kind, mode, size=0):
        info = tarfile.TarInfo(name)
        info.type, info.mode, info.size, info.mtime = kind, mode, size, when
        info.uid = info.gid = 0
        info.uname = info.gname = ""
        return info

    name = top + ".tar.gz"
    path = os.path.join(sdist_directory, name)
    with open(path + ".part", "wb") as raw:
        with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=when) as packed:
            with tarfile.open(fileobj=packed, mode="w", format=tarfile.PAX_FORMAT) as tar:
                folders = set()
                for arcname in sorted(entries):
                    data, mode = entries[arcname]
                    parts = arcname.split("/")
                    for depth in range(1, len(parts)):
                        folder = "/".join(parts[:depth])
                        if folder not in folders:
                            folders.add(folder)
                            tar.addfile(member(folder, tarfile.DIRTYPE, 0o755))
                    tar.addfile(member(arcname, tarfile.REGTYPE, mode, len(data)),
                                io.BytesIO(data))
    os.replace(path + ".part", path)
    say("%s: %d files from %s" % (name, len(entries), TOP))
    return name
