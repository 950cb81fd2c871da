"""The package as it is published (issue 47): its source distribution and
the tag of its wheel.

1. build_backend.build_sdist (the PEP 517 hook, run from python/) twice:
   the same bytes.  tmcml-VERSION/ at the top, with PKG-INFO (Metadata-
   Version 2.1, the project's name and version), a pyproject.toml that
   names the backend in python/, and the sources cmake needs; every file
   one git tracks; no build folder, .git, tests or bytecode; owner 0 and
   one time for every member ($SOURCE_DATE_EPOCH when set, the gzip header
   too).
2. pip install of the sdist, offline, into a venv of this Python that sees
   its numpy (--system-site-packages, --no-build-isolation; pip's own
   configuration and an installed tmcml's pkg-config file kept out): the
   backend builds libtmcml with cmake from the sdist's own sources; then,
   from another directory, a small CPU run with the installed copy.
3. The installed wheel's tag is what its library's ELF allows, read here
   with readelf (auditwheel is not in Debian 12): manylinux_2_N_<arch>
   when every DT_NEEDED is glibc's, N the newest GLIBC_2.N it asks for;
   else linux_<arch>.
4. A library that needs glibc alone (compiled here), named by
   TMCML_LIBRARY: its wheel is tagged manylinux_2_N_<arch>, N as readelf
   says, and pip installs it here.
Exit 77 (skipped) without venv or ensurepip (python3-venv), cmake, a C
compiler or readelf.  Under a minute on 2 cores: it builds libtmcml."""

import os
import re
import shutil
import struct
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import zipfile

from install_common import ROOT, need_venv, project_version, skip

PYTHON_DIR = os.path.join(ROOT, "python")
# glibc's libraries and loaders: what a manylinux wheel's library may need.
GLIBC = {"libc.so.6", "libm.so.6", "libdl.so.2", "librt.so.1", "libpthread.so.0", "libutil.so.1",
         "libnsl.so.1", "libresolv.so.2", "ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1",
         "ld-linux.so.2", "ld-linux-armhf.so.3", "ld64.so.1", "ld64.so.2"}
TINY = r"""
#include <math.h>
#include <pthread.h>
#include <stdio.h>
static void *nothing(void *arg) { return arg; }
double tiny(double x)
{
    pthread_t thread;
    if (pthread_create(&thread, NULL, nothing, NULL) == 0)
        pthread_join(thread, NULL);
    printf("%lu\n", (unsigned long)pthread_self());
    return sqrt(x);
}
"""


def run(args, **kwargs):
    """args run, their stdout; their stderr shown when they fail."""
    done = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          **kwargs)
    if done.returncode != 0:
        sys.stderr.write(done.stdout + done.stderr)
        raise SystemExit("sdist_check: failed (%d): %s" % (done.returncode, " ".join(args)))
    return done.stdout


def hook(name, directory, env):
    """build_backend's hook name(directory), in a Python of its own started
    in python/ (as pip runs it): the file's name it returns."""
    return run([sys.executable, "-c", "import sys, build_backend\n"
                "print(getattr(build_backend, sys.argv[1])(sys.argv[2]))", name, directory],
               cwd=PYTHON_DIR, env=env).strip().splitlines()[-1]


def expected_platform(library):
    """(the tag the library's ELF allows, the facts), from readelf."""
    arch = sysconfig.get_platform().split("-", 1)[1].replace("-", "_").replace(".", "_")
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]",
                        run(["readelf", "-dW", library]))
    versions, file = [], None
    for line in run(["readelf", "-VW", library]).splitlines():
        found = re.search(r"File: (\S+)", line)
        if found:
            file = found.group(1)
        found = re.search(r"Name: (\S+)", line)
        if found and file:
            versions.append((file, found.group(1)))
    # GLIBC_2.N[.M], and GLIBC_ABI_DT_RELR: packed relocations, glibc 2.36.
    glibc = [tuple(int(n) for n in re.match(r"GLIBC_(\d+)\.(\d+)", v).groups())
             for _, v in versions if re.match(r"GLIBC_\d+\.\d+(\.\d+)?$", v)]
    glibc += [(2, 36) for _, v in versions if v == "GLIBC_ABI_DT_RELR"]
    facts = "NEEDED %s; newest GLIBC_%s" % (", ".join(needed),
                                           "%d.%d" % max(glibc) if glibc else "none")
    if set(needed) <= GLIBC and len(glibc) == len(versions):
        # The oldest manylinux: 2_5 on x86_64 and i686 (manylinux1), else 2_17.
        oldest = (2, 5) if arch in ("x86_64", "i686") else (2, 17)
        return "manylinux_%d_%d_%s" % (max(glibc + [oldest]) + (arch,)), facts
    return "linux_" + arch, facts


def check_sdist(work, env, ver):
    """Builds the sdist twice (and once with SOURCE_DATE_EPOCH), checks it;
    its path."""
    paths = []
    for n in ("one", "two"):
        out = os.path.join(work, "sdist-" + n)
        os.mkdir(out)
        name = hook("build_sdist", out, env)
        assert name == "tmcml-%s.tar.gz" % ver, name
        assert os.listdir(out) == [name], os.listdir(out)  # nothing else written there
        paths.append(os.path.join(out, name))
    with open(paths[0], "rb") as a, open(paths[1], "rb") as b:
        assert a.read() == b.read(), "two builds of the sdist differ"

    top = "tmcml-%s/" % ver
    with tarfile.open(paths[0]) as tar:
        members = tar.getmembers()
        names = [m.name for m in members]
        assert names == sorted(names), "members not sorted"
        files = {m.name[len(top):]: m for m in members if m.isfile()}
        assert all(n == top.rstrip("/") or n.startswith(top) for n in names), names[:5]
        assert all(m.uid == 0 and m.gid == 0 for m in members), "an owner is not 0"
        assert len({m.mtime for m in members}) == 1, "members' times differ"
        info = tar.extractfile(top + "PKG-INFO").read().decode()
        project = tar.extractfile(top + "pyproject.toml").read().decode()
    for need in ("PKG-INFO", "pyproject.toml", "CMakeLists.txt", "LICENSE", "api/tmcml.h",
                 "api/tmcml.map", "base/config.h.in", "cli/main.c", "tools/embed.cmake",
                 "packaging/install.cmake", "packaging/static_deps.cmake",
                 "python/build_backend.py", "python/README.md", "python/tmcml/__init__.py",
                 "python/tmcml/data/hemoglobin_prahl.txt"):
        assert need in files, "the sdist has no " + need
    for name in files:
        parts = name.split("/")
        assert not ({".git", "build", "__pycache__", "tests", "bench", ".ci"} & set(parts)
                    or name.endswith((".pyc", ".o", ".so"))), "the sdist holds " + name
    assert files["tools/embed.cmake"].mode == 0o644, oct(files["tools/embed.cmake"].mode)
    for line in ("Metadata-Version: 2.1", "Name: tmcml", "Version: " + ver,
                 "Requires-Dist: numpy"):
        assert line + "\n" in info, "PKG-INFO lacks " + line
    assert 'build-backend = "build_backend"' in project and \
        'backend-path = ["python"]' in project, project
    if shutil.which("git") and os.path.exists(os.path.join(ROOT, ".git")):
        tracked = set(run(["git", "-C", ROOT, "ls-files"]).splitlines())
        extra = set(files) - tracked - {"PKG-INFO", "pyproject.toml"}
        assert not extra, "files git does not track: %s" % sorted(extra)

    out = os.path.join(work, "sdist-dated")
    os.mkdir(out)
    dated = os.path.join(out, hook("build_sdist", out, dict(env, SOURCE_DATE_EPOCH="1700000000")))
    with open(dated, "rb") as f:
        assert struct.unpack("<I", f.read(8)[4:])[0] == 1700000000, "gzip header's time"
    with tarfile.open(dated) as tar:
        assert {m.mtime for m in tar.getmembers()} == {1700000000}, "SOURCE_DATE_EPOCH ignored"
    print("sdist_check: %s, %d files, reproducible" % (os.path.basename(paths[0]), len(files)))
    return paths[0]


def check_install(work, env, sdist, ver):
    venv, elsewhere = os.path.join(work, "venv"), os.path.join(work, "elsewhere")
    os.mkdir(elsewhere)
    run([sys.executable, "-m", "venv", "--system-site-packages", venv])
    python = os.path.join(venv, "bin", "python")
    run([python, "-m", "pip", "install", "-q", "--no-index", "--no-build-isolation", sdist],
        env=env, cwd=elsewhere)
    check = ("import os, tmcml\n"
             "here = os.path.dirname(tmcml.__file__)\n"
             "assert tmcml.library_path == os.path.join(here, 'libtmcml.so'), "
             "tmcml.library_path\n"
             "r = tmcml.run(layers=[[1.4, 0.5, 50, 0.8, 1.0]], photons=1000, engine='cpu',"
             " progress=False)\n"
             "assert 0 < r['Rd'] < 1, r['Rd']\n"
             "print(tmcml.__version__, tmcml.library_path)\n")
    version, library = run([python, "-c", check], cwd=elsewhere, env=env).split()
    assert version == ver, version
    with open(os.path.join(os.path.dirname(os.path.dirname(library)),
                           "tmcml-%s.dist-info" % ver, "WHEEL")) as f:
        tags = re.findall(r"^Tag: (\S+)$", f.read(), re.M)
    want, facts = expected_platform(library)
    assert tags == ["py3-none-" + want], "the wheel is tagged %s; its library (%s) allows %s" % (
        tags, facts, want)
    print("sdist_check: pip installed the sdist and ran it; wheel tag %s (%s)" % (tags[0], facts))
    return python


def check_glibc_only(work, env, ver, python):
    """A library that needs glibc alone: a manylinux wheel, which pip takes
    here."""
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    source, library = os.path.join(work, "tiny.c"), os.path.join(work, "libtiny.so")
    with open(source, "w") as f:
        f.write(TINY)
    run([cc, "-shared", "-fPIC", "-o", library, source, "-lm", "-lpthread"])
    want, facts = expected_platform(library)
    assert want.startswith("manylinux_2_"), (want, facts)
    out = os.path.join(work, "wheel")
    os.mkdir(out)
    name = hook("build_wheel", out, dict(env, TMCML_LIBRARY=library))
    assert name == "tmcml-%s-py3-none-%s.whl" % (ver, want), (name, facts)
    with zipfile.ZipFile(os.path.join(out, name)) as whl:
        wheel = whl.read("tmcml-%s.dist-info/WHEEL" % ver).decode()
    assert "Tag: py3-none-%s\n" % want in wheel, wheel
    # pip on this machine takes the tag (--target: a folder, not the venv).
    run([python, "-m", "pip", "install", "-q", "--no-index", "--no-deps", "--target",
         os.path.join(work, "target"), os.path.join(out, name)], env=env)
    print("sdist_check: a library of glibc alone (%s): %s" % (facts, name))


def main():
    need_venv()
    for tool in ("cmake", "readelf"):
        if not shutil.which(tool):
            skip("no %s (Debian: %s)" % (tool, "binutils" if tool == "readelf" else tool))
    if not (os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")):
        skip("no C compiler")
    ver = project_version()
    work = tempfile.mkdtemp(prefix="tmcml-sdist-")
    try:
        nothing = os.path.join(work, "no-pkg-config")
        os.mkdir(nothing)
        env = {k: v for k, v in os.environ.items()
               if k not in ("TMCML_LIBRARY", "PYTHONPATH", "PYTHONHOME", "SOURCE_DATE_EPOCH")}
        # pip's temporary folders under work; no pip configuration (find-links);
        # no installed tmcml found through pkg-config: the sdist's own build.
        env.update(TMPDIR=work, PIP_CONFIG_FILE=os.devnull, PKG_CONFIG_LIBDIR=nothing,
                   PKG_CONFIG_PATH="", PYTHONDONTWRITEBYTECODE="1")
        env.setdefault("CMAKE_BUILD_PARALLEL_LEVEL", "2")
        sdist = check_sdist(work, env, ver)
        python = check_install(work, env, sdist, ver)
        check_glibc_only(work, env, ver, python)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
