"""The package installed as a user installs it (issue 24), from a copy of
the source tree with no build folder - so build_backend.py builds the
library itself - offline (--no-index), then imported from another
directory:
  1. pip into a venv of this Python with --system-site-packages (its
     numpy) and --no-build-isolation: it loads the copy of the library
     installed beside it and the chromophores' tables (tmcml/data/),
     reports the project's version and runs; its wheel is tagged for this
     platform, not py3-none-any;
  2. pip into a bare venv (no wheel, no numpy, build isolation on, as a
     pyenv or conda Python offline): it installs (--no-deps: no numpy to
     fetch) and its import says to install numpy.
Exit 77 (skipped) when this Python has no venv or ensurepip (Debian:
python3-venv).  A minute or two: it builds libtmcml."""

import os
import shutil
import subprocess
import sys
import tempfile

from install_common import ROOT, need_venv, project_version


def ignored(folder, names):
    """Build folders, git's and pip's leftovers stay behind."""
    top = os.path.abspath(folder) == ROOT
    package = os.path.abspath(folder) == os.path.join(ROOT, "python")
    return [n for n in names if n == "__pycache__" or n.endswith(".egg-info")
            or top and (n.startswith("build") or n in (".git", "out", ".devdeps"))
            or package and n == "build"]


def main():
    need_venv()
    work = tempfile.mkdtemp(prefix="tmcml-pip-")
    try:
        tree, venv, bare, elsewhere = (os.path.join(work, n)
                                       for n in ("src", "venv", "bare", "elsewhere"))
        shutil.copytree(ROOT, tree, ignore=ignored, symlinks=True)
        assert not os.path.exists(os.path.join(tree, "build"))
        os.mkdir(elsewhere)
        subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", venv], check=True)
        python = os.path.join(venv, "bin", "python")
        env = {k: v for k, v in os.environ.items()
               if k not in ("TMCML_LIBRARY", "PYTHONPATH", "PYTHONHOME")}
        env.setdefault("CMAKE_BUILD_PARALLEL_LEVEL", "2")
        subprocess.run([python, "-m", "pip", "install", "-q", "--no-index", "--no-build-isolation",
                        os.path.join(tree, "python")], check=True, env=env)
        subprocess.run([sys.executable, "-m", "venv", bare], check=True)
        subprocess.run([os.path.join(bare, "bin", "python"), "-m", "pip", "install", "-q",
                        "--no-index", "--no-deps", os.path.join(tree, "python")], check=True,
                       env=env)
        shutil.rmtree(tree)  # the installed package must not need its source
        check = ("import os, tmcml, numpy\n"
                 "here = os.path.dirname(tmcml.__file__)\n"
                 "assert tmcml.library_path == os.path.join(here, 'libtmcml.so'), "
                 "tmcml.library_path\n"
                 "r = tmcml.run(layers=[[1.37, 1, 100, 0.9, 0.1]], photons=1e3, nz=4, nr=4, na=1,"
                 " engine='cpu', progress=False)\n"
                 "assert r['Rd'] > 0\n"
                 "assert tmcml.chromophores.mua([800], blood=0.01, water=1, lipid=0.1) > 0\n"
                 "print(tmcml.__version__, tmcml.library_path)\n")
        out = subprocess.run([python, "-c", check], cwd=elsewhere, env=env, check=True,
                             capture_output=True, text=True).stdout
        assert out.split()[0] == project_version(), out
        files = subprocess.run([python, "-m", "pip", "show", "-f", "tmcml"], env=env,
                               check=True, capture_output=True, text=True).stdout
        assert "tmcml/libtmcml.so" in files, files
        # A native library inside: a platform wheel, not py3-none-any.
        info = os.path.join(os.path.dirname(os.path.dirname(out.split()[1])),
                            "tmcml-%s.dist-info" % out.split()[0], "WHEEL")
        with open(info) as f:
            tags = f.read()
        assert "Root-Is-Purelib: false" in tags and "none-any" not in tags, tags
        failed = subprocess.run([os.path.join(bare, "bin", "python"), "-c",
                                 "import sys; sys.modules['numpy'] = None; import tmcml"],
                                cwd=elsewhere, env=env, capture_output=True, text=True)
        assert failed.returncode != 0 and "tmcml needs numpy" in failed.stderr, failed.stderr
        print("pip_install_check: installed and imported: " + out.strip())
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
