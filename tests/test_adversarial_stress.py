"""A short version of the stress run (tests/stress/stress_runtime.py: threads x streams x
sizes x random frees and synchronisations, every result verified against NumPy)."""
import json
import os
import subprocess
import sys

import pytest

from conftest import package_env

SCRIPT = os.path.join(os.path.dirname(__file__), "stress", "stress_runtime.py")


@pytest.mark.parametrize("seed", [0, 1])
def test_short_stress_run_is_exact_and_leaks_nothing(seed):
    proc = subprocess.run([sys.executable, SCRIPT, "--seconds", "3", "--threads", "4",
                           "--streams", "5", "--seed", str(seed)], capture_output=True,
                          text=True, timeout=180, env=package_env())
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert report["errors"] == [], report
    assert report["wrong_bytes"] == 0 and report["hangs"] == 0
    assert report["leaked_device_bytes"] == 0 and report["leaked_pinned_bytes"] == 0
    assert report["operations"] > 1000 and report["bytes_verified"] > 0
    assert proc.returncode == 0, proc.stderr
