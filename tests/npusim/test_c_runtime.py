"""npusim's AscendCL runtime, exercised by C/C++ programs in tests/npusim/c/ (built with cbuild).

Each program checks return codes and bytes itself and exits non-zero, printing what failed;
these tests run them (some under several environments) and once more under AddressSanitizer
and ThreadSanitizer builds of the library.
"""
import os
import subprocess
from pathlib import Path

import pytest

from cbuild import build_c_program, program_env  # noqa: E402

C_DIR = Path(__file__).resolve().parent / "c"
MIB16 = 1 << 24


def run(name, *args, cxx=None, variant="release", timeout=120, **env):
    cxx = name.endswith(".cpp") if cxx is None else cxx   # aclnn programs are C++
    exe = build_c_program(C_DIR / name, cxx=cxx, variant=variant)
    environment = program_env(**env)
    for key in ("ASCEND_RT_VISIBLE_DEVICES", "NPUSIM_DEVICE_COUNT", "NPUSIM_DEVICE_MEMORY",
                "NPUSIM_PCIE_SWITCH_SIZE"):
        if key not in env:
            environment.pop(key, None)
    if variant == "tsan":
        environment["TSAN_OPTIONS"] = "halt_on_error=1 exitcode=66"
    if variant == "asan":
        environment["ASAN_OPTIONS"] = "detect_leaks=1 halt_on_error=1"
    proc = subprocess.run([str(exe), *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, env=environment)
    assert proc.returncode == 0, f"{name} exited {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


def test_seed000_data_transfer_samples():
    out = run("seed000_data_transfer.c")
    assert "7 copies verified" in out


def test_seed000_inter_device_sample():
    out = run("seed000_inter_device.cpp", cxx=True)
    assert "P2P copy success" in out


def test_seed000_inter_device_sample_without_shared_switch():
    out = run("seed000_inter_device.cpp", "expect-no-peer", cxx=True, NPUSIM_PCIE_SWITCH_SIZE="1")
    assert "current device doesn't support p2p feature" in out


def test_seed004_synchronization_samples():
    assert "ok" in run("seed004_synchronization.c")


def test_bad_input_returns_exact_codes():
    assert "checks passed" in run("rt_errors.c")


def test_streams_events_callbacks_with_data():
    assert "checks passed" in run("rt_streams.c")


def test_version_dtype_sizes_and_float16():
    assert "checks passed" in run("rt_misc.c")


def test_concurrent_threads_round_trips():
    assert "checks passed" in run("rt_concurrency.c")


@pytest.mark.parametrize("env, count, peer01", [
    ({}, 8, 1),
    ({"NPUSIM_DEVICE_COUNT": "3"}, 3, 1),
    ({"NPUSIM_PCIE_SWITCH_SIZE": "1"}, 8, 0),
    ({"ASCEND_RT_VISIBLE_DEVICES": "3,4"}, 2, 0),          # physical 3 and 4: other switches
    ({"ASCEND_RT_VISIBLE_DEVICES": "4,5,7"}, 3, 1),        # physical 4 and 5 share a switch
    ({"ASCEND_RT_VISIBLE_DEVICES": "1, 2,3"}, 1, 0),       # stops at the space
    ({"ASCEND_RT_VISIBLE_DEVICES": "1,3,8"}, 2, 1),        # 8 is not a device: stops there
    ({"ASCEND_RT_VISIBLE_DEVICES": "2,1"}, 1, 0),          # not ascending: stops at 1
    ({"ASCEND_RT_VISIBLE_DEVICES": "x"}, 0, 0),
])
def test_environment_configures_the_machine(env, count, peer01):
    out = run("rt_environment.c", count, MIB16, peer01, NPUSIM_DEVICE_MEMORY=str(MIB16), **env)
    assert "checks passed" in out


def test_bad_environment_fails_aclinit():
    exe = build_c_program(C_DIR / "rt_environment.c")
    env = program_env(NPUSIM_DEVICE_MEMORY="lots")
    proc = subprocess.run([str(exe), "8", str(MIB16), "1"], capture_output=True, text=True,
                          timeout=60, env=env)
    assert proc.returncode != 0
    assert "returned 100000" in proc.stderr and "NPUSIM_DEVICE_MEMORY" in proc.stderr


SANITIZED = ["rt_errors.c", "rt_streams.c", "rt_concurrency.c", "seed000_data_transfer.c"]


@pytest.mark.parametrize("variant", ["asan", "tsan"])
def test_runtime_under_sanitizers(variant):
    if os.environ.get("NPUSIM_SKIP_SANITIZERS") == "1":
        pytest.skip("NPUSIM_SKIP_SANITIZERS=1 set")
    for name in SANITIZED:
        out = run(name, variant=variant, timeout=300)
        assert "passed" in out or "verified" in out


@pytest.mark.parametrize("mode", ["host", "device"])
def test_run_modes_and_dvpp_memory(mode):
    assert "checks passed" in run("rt_run_mode_dvpp.c", mode, NPUSIM_RUN_MODE=mode)


def test_bad_run_mode_fails_aclinit():
    exe = build_c_program(C_DIR / "rt_run_mode_dvpp.c")
    proc = subprocess.run([str(exe), "host"], capture_output=True, text=True, timeout=60,
                          env=program_env(NPUSIM_RUN_MODE="board"))
    assert proc.returncode != 0
    assert "returned 100000" in proc.stderr and "NPUSIM_RUN_MODE" in proc.stderr


@pytest.mark.parametrize("variant", ["asan", "tsan"])
def test_run_modes_and_dvpp_memory_under_sanitizers(variant):
    if os.environ.get("NPUSIM_SKIP_SANITIZERS") == "1":
        pytest.skip("NPUSIM_SKIP_SANITIZERS=1 set")
    for mode in ("host", "device"):
        assert "checks passed" in run("rt_run_mode_dvpp.c", mode, variant=variant, timeout=300,
                                      NPUSIM_RUN_MODE=mode)


@pytest.mark.parametrize("variant", ["release", "asan", "tsan"])
def test_race_detector_finds_seeded_races_and_passes_ordered_programs(variant):
    if variant != "release" and os.environ.get("NPUSIM_SKIP_SANITIZERS") == "1":
        pytest.skip("NPUSIM_SKIP_SANITIZERS=1 set")
    out = run("rt_racecheck.cpp", variant=variant, timeout=300)
    assert "seeded races found: 6/6" in out and "checks passed" in out


@pytest.mark.parametrize("variant, threads", [("release", None), ("release", "1"),
                                              ("asan", None), ("tsan", None)])
def test_mid_size_transfers_shared_with_the_copy_engine(variant, threads):
    if variant != "release" and os.environ.get("NPUSIM_SKIP_SANITIZERS") == "1":
        pytest.skip("NPUSIM_SKIP_SANITIZERS=1 set")
    env = {} if threads is None else {"NPUSIM_NUM_THREADS": threads}   # "1": no engine
    assert "checks passed" in run("rt_copy_engine.c", variant=variant, timeout=300, **env)
