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
# ELF e_machine: the architecture PEP 600 names (EM_PPC64 by byte order).
MACHINES = {3: "i686", 22: "s390x", 40: "armv7l", 62: "x86_64", 183: "aarch64"}


def elf_needs(path):
    """(architecture, DT_NEEDED names, {needed file: the symbol versions
    asked of it}) of an ELF shared object, from its section headers: the
    dynamic section and the version needs (SHT_GNU_verneed: Elf_Verneed,
    Elf_Vernaux), each with the string table it links to.  ValueError for a
    file that is not an ELF shared object or has no section headers.  The
    sanitizer check here and build_backend.py's wheel platform read them."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF" or len(data) < 64 or data[4] not in (1, 2) or data[5] not in (1, 2):
        raise ValueError("not an ELF file")
    wide, order = data[4] == 2, "<" if data[5] == 1 else ">"
    machine, = struct.unpack_from(order + "H", data, 0x12)
    if wide:
        shoff, = struct.unpack_from(order + "Q", data, 0x28)
        shentsize, shnum = struct.unpack_from(order + "HH", data, 0x3A)
        section, entry = order + "IIQQQQIIQQ", order + "qQ"
    else:
        shoff, = struct.unpack_from(order + "I", data, 0x20)
        shentsize, shnum = struct.unpack_from(order + "HH", data, 0x2E)
        section, entry = order + "IIIIIIIIII", order + "iI"
    if not shoff or not shnum:
        raise ValueError("no section headers")
    headers = [struct.unpack_from(section, data, shoff + i * shentsize) for i in range(shnum)]

    def string(table, offset):
        start = headers[table][4] + offset
        return data[start:data.index(b"\0", start)].decode("ascii", "replace")

    needed, versions, dynamic = [], {}, False
    for _, kind, _, _, offset, size, link, info, _, _ in headers:
        if kind == 6:  # SHT_DYNAMIC
            dynamic = True
            for at in range(offset, offset + size, struct.calcsize(entry)):
                tag, value = struct.unpack_from(entry, data, at)
                if tag == 0:  # DT_NULL
                    break
                if tag == 1:  # DT_NEEDED
                    needed.append(string(link, value))
        elif kind == 0x6FFFFFFE:  # SHT_GNU_verneed: info is the number of entries
            at = offset
            for _ in range(info):
                _, count, name, aux, following = struct.unpack_from(order + "HHIII", data, at)
                names = versions.setdefault(string(link, name), set())
                there = at + aux
                for _ in range(count):
                    _, _, _, version, step = struct.unpack_from(order + "IHHII", data, there)
                    names.add(string(link, version))
                    there += step
                if not following:
                    break
                at += following
    if not dynamic:
        raise ValueError("no dynamic section: not a shared object")
    arch = MACHINES.get(machine)
    if machine == 21:  # EM_PPC64
        arch = "ppc64le" if order == "<" else "ppc64"
    return arch, needed, versions


def sanitizer(path):
    """The sanitizer runtime path needs ("libasan.so.8"), or None."""
    try:
        needed = elf_needs(path)[1]
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
