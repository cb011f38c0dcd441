"""A short version of the stress run (tests/runtime/stress/stress_runtime.py: threads x streams x
sizes x random frees and synchronisations, every result verified against NumPy)."""
import importlib.util
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


def _build_script():
    """The checkout's npusim build script (kernels/ is not installed with the package)."""
    path = os.path.join(os.path.dirname(__file__), "..", "..", "npuarray", "_acl", "_build_npusim.py")
    spec = importlib.util.spec_from_file_location("_npusim_build_script", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.timeout(900)
@pytest.mark.parametrize("variant", ["asan", "tsan"])
def test_short_stress_run_under_sanitizers(variant):
    """The stress run against an AddressSanitizer / ThreadSanitizer build of npusim (the
    interpreter is not instrumented: the sanitizer's runtime is preloaded)."""
    if os.environ.get("NPUSIM_SKIP_SANITIZERS") == "1":
        pytest.skip("NPUSIM_SKIP_SANITIZERS=1 set")
    build = _build_script()
    env = package_env(NPUARRAY_NPUSIM_EXTENSION=build.build_sanitized(variant),
                      LD_PRELOAD=build.sanitizer_runtime(variant),
                      ASAN_OPTIONS="detect_leaks=0 halt_on_error=1",  # the interpreter's own
                      TSAN_OPTIONS="halt_on_error=1 exitcode=66")
    proc = subprocess.run([sys.executable, SCRIPT, "--seconds", "2", "--threads", "4",
                           "--streams", "5", "--seed", "3"], capture_output=True,
                          text=True, timeout=600, env=env)
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert "Sanitizer" not in proc.stderr, proc.stderr[-4000:]
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert report["errors"] == [] and report["wrong_bytes"] == 0 and report["hangs"] == 0
    assert report["operations"] > 100 and report["bytes_verified"] > 0


def test_short_stress_run_has_no_race_under_the_race_detector():
    """npuarray orders every cross-stream and cross-thread use of its arrays and pools:
    npusim's race detector in error mode (a race fails the operation) finds none."""
    proc = subprocess.run([sys.executable, SCRIPT, "--seconds", "2", "--threads", "4",
                           "--streams", "5", "--seed", "5"], capture_output=True, text=True,
                          timeout=180, env=package_env(NPUSIM_RACECHECK="1"))
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert report["errors"] == [] and report["wrong_bytes"] == 0, report
    assert report["operations"] > 500
    assert proc.returncode == 0, proc.stderr
