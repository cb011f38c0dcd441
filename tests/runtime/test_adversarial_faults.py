"""Fault injection sweep (NPUSIM_FAULT_INJECT): the N-th allocation, operator launch or copy
of a workload (k-means, a graph capture, staged copies; tests/runtime/stress/fault_workload.py)
fails. Every failure must be a typed exception, the device and pinned pools must return to
their baseline, and the next operations must be correct."""
import json
import os
import subprocess
import sys

import pytest

import npuarray as npx
from conftest import package_env

WORKLOAD = os.path.join(os.path.dirname(__file__), "stress", "fault_workload.py")
SWEEP = [("malloc", n) for n in (1, 2, 4, 7)] + [("launch", n) for n in (1, 9, 40, 70)] \
    + [("memcpy", n) for n in (1, 3, 8, 20)]

pytestmark = pytest.mark.skipif(npx.backend().name != "npusim",
                                reason="fault injection is an npusim feature")


def run_workload(spec, rounds=2):
    proc = subprocess.run([sys.executable, WORKLOAD, str(rounds)], capture_output=True,
                          text=True, timeout=120, env=package_env(NPUSIM_FAULT_INJECT=spec))
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("kind,n", SWEEP, ids=[f"{k}:{n}" for k, n in SWEEP])
def test_injected_fault_is_typed_leaves_no_leak_and_the_next_round_is_right(kind, n):
    report = run_workload(f"{kind}:{n}")
    assert report["errors"] == []                    # every failure was a typed exception
    assert report["typed"] == report["faults"] <= 1  # one fault at most, never a cascade
    assert report["wrong"] == 0                      # no silent wrong answer, before or after
    assert report["leaked_device"] == 0
    assert report["leaked_pinned"] == 0
    if kind != "malloc":                             # (an allocation failure may be absorbed:
        assert report["injected"] >= 1               #  the pool frees its cache and retries)


def test_without_faults_the_workload_is_clean():
    report = run_workload("")
    assert report == {"rounds": 2, "faults": 0, "typed": 0, "injected": 0, "wrong": 0,
                      "leaked_device": 0, "leaked_pinned": 0, "errors": []}


def test_bad_specification_names_the_variable(run_python):
    result = run_python("import npuarray", NPUSIM_FAULT_INJECT="malloc=3")
    assert result.returncode != 0
    assert "NPUSIM_FAULT_INJECT" in result.stderr


@pytest.mark.parametrize("variable,value", [("NPUSIM_DEVICE_MEMORY", "8GB"),
                                            ("NPUARRAY_PINNED_POOL_LIMIT", "lots")])
def test_bad_configuration_variables_are_named(run_python, variable, value):
    result = run_python("import npuarray as npx; npx.arange(3)", **{variable: value})
    assert result.returncode != 0
    assert variable in result.stderr.splitlines()[-1]
