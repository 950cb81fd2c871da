"""README.md's Python example (issue 47) runs as pasted, in a directory of
its own, and writes nothing that the checkout's .gitignore does not cover."""

import fnmatch
import os
import re
import subprocess
import sys


def _example(root):
    text = open(os.path.join(root, "README.md"), encoding="utf-8").read()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    runs = [b for b in blocks if b.startswith("import tmcml")]
    assert runs, "README.md has no Python example starting with 'import tmcml'"
    return runs[0]


def _ignored(root, name):
    patterns = [line.strip() for line in open(os.path.join(root, ".gitignore"))
                if line.strip() and not line.startswith("#")]
    return any(fnmatch.fnmatch("/" + name, p) or fnmatch.fnmatch(name, p) for p in patterns)


def test_readme_example_runs(root, tmp_path):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    done = subprocess.run([sys.executable, "-c", _example(root)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    made = sorted(os.listdir(tmp_path))
    assert made, "the example wrote nothing"
    assert all(_ignored(root, name) for name in made), (made, "not all in .gitignore")
