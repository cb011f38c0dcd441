"""Every ``python`` block of the README runs when pasted alone, and ``python -m npuarray``
prints the configuration: the README's promises, checked against the npuarray under test."""
import pathlib
import re
import subprocess
import sys

import pytest

import npuarray
from conftest import package_env

README = pathlib.Path(__file__).resolve().parents[2] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), re.S) if README.exists() else []


@pytest.mark.skipif(not BLOCKS, reason="README.md is not beside the tests (installed tests)")
@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_readme_python_block_runs_alone(index, tmp_path):
    result = subprocess.run([sys.executable, "-c", BLOCKS[index]], cwd=tmp_path,
                            env=package_env(), capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, f"README python block {index + 1} failed:\n{result.stderr}"


def test_python_dash_m_npuarray_prints_backend_and_devices(tmp_path):
    result = subprocess.run([sys.executable, "-m", "npuarray"], cwd=tmp_path, env=package_env(),
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert f"npuarray backend: {npuarray.backend().name}" in result.stdout
    assert re.search(rf"devices: {npuarray.device_count()}\n", result.stdout)
    assert "device 0:" in result.stdout
