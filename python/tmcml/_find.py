"""Where libtmcml.so is, in this order (docs/library.md, "Installing the
Python package"):

1. $TMCML_LIBRARY: that file, whatever it is, and nothing else;
2. beside this module: the copy installed with the package;
3. the installed prefix: pkg-config's libdir of `tmcml` (where pkg-config
   and a tmcml.pc are), then the library the package was installed from
   (recorded by setup.py in _installed.py);
4. the build trees of a source checkout: build/, then build-*/ by name.

A sanitizer build (a library that needs libasan, libubsan, libtsan, ...) is
never taken from 2-4: loaded into a Python that does not preload its
runtime, it aborts the process.  It is skipped, and the reason is kept for
the message when nothing else is found; $TMCML_LIBRARY may still name it."""

import glob
import os
import shutil
import struct
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
SANITIZER_RUNTIMES = ("libasan", "libubsan", "libtsan", "liblsan", "libhwasan", "libmsan")


def _elf_needed(path):
    """The DT_NEEDED names of an ELF shared object (its .dynamic section,
    strings from the section it links to); [] for anything else."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF" or len(data) < 64:
        return []
    wide, order = data[4] == 2, "<" if data[5] == 1 else ">"
    if wide:
        shoff, = struct.unpack_from(order + "Q", data, 0x28)
        shentsize, shnum = struct.unpack_from(order + "HH", data, 0x3A)
        section, entry = order + "IIQQQQIIQQ", order + "qQ"
    else:
        shoff, = struct.unpack_from(order + "I", data, 0x20)
        shentsize, shnum = struct.unpack_from(order + "HH", data, 0x2E)
        section, entry = order + "IIIIIIIIII", order + "iI"
    headers = [struct.unpack_from(section, data, shoff + i * shentsize) for i in range(shnum)]
    needed = []
    for h in headers:
        if h[1] != 6:  # SHT_DYNAMIC
            continue
        offset, size, link = h[4], h[5], h[6]
        strtab = headers[link][4]
        step = struct.calcsize(entry)
        for at in range(offset, offset + size, step):
            tag, value = struct.unpack_from(entry, data, at)
            if tag == 0:  # DT_NULL
                break
            if tag == 1:  # DT_NEEDED
                end = data.index(b"\0", strtab + value)
                needed.append(data[strtab + value:end].decode("ascii", "replace"))
    return needed


def sanitizer(path):
    """The sanitizer runtime path needs ("libasan.so.8"), or None."""
    try:
        needed = _elf_needed(path)
    except (OSError, struct.error, ValueError, IndexError):
        return None
    for name in needed:
        if name.startswith(SANITIZER_RUNTIMES):
            return name
    return None


def _pkg_config_libdir():
    if not shutil.which("pkg-config"):
        return None
    try:
        out = subprocess.run(["pkg-config", "--variable=libdir", "tmcml"], capture_output=True,
                             text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() if out.returncode == 0 and out.stdout.strip() else None


def _prefix_candidates():
    libdir = _pkg_config_libdir()
    if libdir:
        yield from (os.path.join(libdir, n) for n in ("libtmcml.so", "libtmcml.so.1"))
    try:
        from ._installed import LIBRARY
    except ImportError:  # a source checkout: nothing recorded
        LIBRARY = None
    if LIBRARY:
        yield LIBRARY


def _build_candidates():
    top = os.path.dirname(os.path.dirname(HERE))  # python/tmcml -> the repository
    trees = ["build"] + sorted(os.path.basename(p) for p in glob.glob(os.path.join(top, "build-*")))
    for tree in trees:
        yield os.path.join(top, tree, "libtmcml.so")


def candidates():
    """(path, why skipped or None) for each library to try, in order."""
    env = os.environ.get("TMCML_LIBRARY")
    if env:
        yield env, None
        return
    found = list(sorted(glob.glob(os.path.join(HERE, "libtmcml.so*"))))
    found += list(_prefix_candidates()) + list(_build_candidates())
    seen = set()
    for path in found:
        real = os.path.realpath(path)
        if real in seen or not os.path.isfile(path):
            continue
        seen.add(real)
        runtime = sanitizer(path)
        if runtime:
            yield path, ("a sanitizer build (needs %s): skipped; set TMCML_LIBRARY to load it "
                         "under that runtime" % runtime)
        else:
            yield path, None
