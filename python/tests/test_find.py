"""Where the package finds libtmcml.so (tmcml/_find.py, issue 24): beside the
module, then the installed prefix, then the checkout's build trees - never a
sanitizer build but through $TMCML_LIBRARY (loaded into a Python without its
runtime, an ASan library aborts the process); import without numpy says
what to install; __version__ is the library's."""

import os
import re
import shutil
import subprocess
import sys

import pytest

import tmcml
from tmcml import _find, _lib
from conftest import ROOT


def fake_asan_library(path):
    """A shared library that needs libasan, as the ASan build's does."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if not compiler:
        pytest.skip("no C compiler for a fake ASan library")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    source = path + ".c"
    with open(source, "w") as f:
        f.write("int tmcml_fake(int x) { return x + 1; }\n")
    if subprocess.run([compiler, "-shared", "-fPIC", "-fsanitize=address", source, "-o", path]
                      ).returncode != 0:
        pytest.skip("the compiler cannot link with -fsanitize=address")
    return path


@pytest.fixture
def checkout(tmp_path):
    """A copy of the package in a checkout of its own: TOP/python/tmcml."""
    top = tmp_path / "checkout"
    shutil.copytree(os.path.join(ROOT, "python", "tmcml"), top / "python" / "tmcml",
                    ignore=shutil.ignore_patterns("__pycache__", "libtmcml.so*", "_installed.py"))
    return top


def import_in(top, tmp_path, code="import tmcml; print(tmcml.library_path)"):
    """Runs code with the checkout's package, no $TMCML_LIBRARY and no
    pkg-config package (an empty search path)."""
    env = {k: v for k, v in os.environ.items() if k not in ("TMCML_LIBRARY", "LD_PRELOAD")}
    env["PYTHONPATH"] = str(top / "python")
    empty = tmp_path / "no-pkgconfig"
    empty.mkdir(exist_ok=True)
    env["PKG_CONFIG_LIBDIR"] = env["PKG_CONFIG_PATH"] = str(empty)
    return subprocess.run([sys.executable, "-c", code], cwd=str(tmp_path), env=env,
                          capture_output=True, text=True)


def test_sanitizer_build_skipped(checkout, tmp_path):
    asan = fake_asan_library(str(checkout / "build-asan" / "libtmcml.so"))
    assert _find.sanitizer(asan).startswith("libasan.so")
    # build-asan sorts before build-release: it must be passed over, not loaded.
    release = checkout / "build-release" / "libtmcml.so"
    release.parent.mkdir()
    shutil.copyfile(_lib.path, release)
    out = import_in(checkout, tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == str(release)


def test_only_a_sanitizer_build_is_refused_with_the_reason(checkout, tmp_path):
    asan = fake_asan_library(str(checkout / "build-asan" / "libtmcml.so"))
    out = import_in(checkout, tmp_path)
    assert out.returncode != 0 and "ImportError" in out.stderr
    assert re.search(re.escape(asan) + r" \(a sanitizer build \(needs libasan\.so[.0-9]*\): "
                     r"skipped; set TMCML_LIBRARY", out.stderr), out.stderr


def test_tmcml_library_may_name_a_sanitizer_build(tmp_path, monkeypatch):
    asan = fake_asan_library(str(tmp_path / "asan" / "libtmcml.so"))
    monkeypatch.setenv("TMCML_LIBRARY", asan)
    assert list(_find.candidates()) == [(asan, None)]


def test_beside_the_module_first(checkout, tmp_path):
    for where in ("python/tmcml", "build"):
        (checkout / where).mkdir(exist_ok=True)
        shutil.copyfile(_lib.path, checkout / where / "libtmcml.so")
    out = import_in(checkout, tmp_path)
    assert out.stdout.strip() == str(checkout / "python" / "tmcml" / "libtmcml.so"), out.stderr
    os.unlink(checkout / "python" / "tmcml" / "libtmcml.so")
    out = import_in(checkout, tmp_path)
    assert out.stdout.strip() == str(checkout / "build" / "libtmcml.so"), out.stderr


def test_nothing_found_says_what_to_do(checkout, tmp_path):
    out = import_in(checkout, tmp_path)
    assert "no usable libtmcml.so" in out.stderr and "TMCML_LIBRARY" in out.stderr


def test_without_numpy_says_what_to_install(checkout, tmp_path):
    out = import_in(checkout, tmp_path, "import sys; sys.modules['numpy'] = None; import tmcml")
    assert out.returncode != 0
    assert "tmcml needs numpy" in out.stderr and "python3-numpy" in out.stderr, out.stderr


def test_needed_entries_of_the_library():
    needed = _find.elf_needs(_lib.path)[1]
    assert any(n.startswith("libc.so") for n in needed) and _find.sanitizer(_lib.path) is None
    assert _find.sanitizer(os.path.join(ROOT, "CMakeLists.txt")) is None  # not ELF


def test_version_is_the_projects(monkeypatch):
    with open(os.path.join(ROOT, "CMakeLists.txt")) as f:
        project = re.search(r"project\(tmcml\s+VERSION\s+([0-9.]+)", f.read()).group(1)
    assert tmcml.__version__ == project
    # A library older than tmcml_version: the version recorded at install (a
    # checkout records none).
    monkeypatch.setattr(_lib.lib, "tmcml_version", None)
    assert _lib.version() in (None, project)
