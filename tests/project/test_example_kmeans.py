"""Runs the README's main example, examples/digits_kmeans.py, as a user would and
checks its verdict and its report."""
import os
import pathlib
import re
import subprocess
import sys

import pytest

import npuarray

pytest.importorskip("sklearn", reason="the example needs scikit-learn (the examples extra)")

EXAMPLE = pathlib.Path(os.path.abspath(__file__)).parents[2] / "examples" / "digits_kmeans.py"
# The npuarray under test (installed or in a source tree) must be the one the example imports.
PACKAGE_PARENT = os.path.dirname(os.path.dirname(os.path.abspath(npuarray.__file__)))


def run_example(*args):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        filter(None, [PACKAGE_PARENT, os.environ.get("PYTHONPATH")])))
    return subprocess.run([sys.executable, str(EXAMPLE), *args], capture_output=True,
                          text=True, timeout=240, env=env, cwd=EXAMPLE.parent)


@pytest.mark.timeout(300)
def test_digits_kmeans_agrees_with_numpy():
    result = run_example()
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    assert "OK: NPU and NumPy agree" in out
    agreement = float(re.search(r"identical labels\s+([\d.]+)%", out).group(1))
    assert agreement >= 99.9
    npu, numpy_ = map(float, re.search(r"inertia\s+NPU\s+([\d.]+)\s+NumPy\s+([\d.]+)",
                                        out).groups())
    assert abs(npu - numpy_) <= 1e-4 * numpy_
    purities = [float(p) for p in re.findall(r"(?:NPU|NumPy) ([\d.]+)%", out)]
    assert len(purities) == 2 and all(50 < p <= 100 for p in purities)  # digits cluster well
    iterations = re.search(r"iterations\s+NPU\s+(\d+)\s+NumPy\s+(\d+)", out).groups()
    assert 1 <= int(iterations[0]) <= 100
    first = re.search(r"wall time\s+NPU\s+([\d.]+) ms\s+NumPy\s+([\d.]+) ms\s+\(first run\)", out)
    best = re.search(r"NPU\s+([\d.]+) ms\s+NumPy\s+([\d.]+) ms\s+\(best of 5\)", out)
    assert first and best  # (times, not compared: tests check correctness only)
    assert float(best.group(1)) <= float(first.group(1))
    assert float(best.group(2)) <= float(first.group(2))


@pytest.mark.timeout(300)
def test_digits_kmeans_other_seed_and_cluster_count():
    result = run_example("--clusters", "6", "--seed", "3")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "k = 6" in result.stdout


def test_digits_kmeans_repeat_is_checked():
    result = run_example("--repeat", "0")
    assert result.returncode == 2 and "--repeat must be at least 1" in result.stderr
    result = run_example("--repeat", "1")
    assert result.returncode == 0 and "(best of 1)" in result.stdout
