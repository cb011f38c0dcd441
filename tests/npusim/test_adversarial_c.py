"""Adversarial misuse of the C ABI, from C (tests/npusim/c/adv_abi.cpp, in the
release, AddressSanitizer and ThreadSanitizer builds of npusim) and from Python."""
import os

import numpy as np
import pytest

import npuarray as npx
from test_c_runtime import run


@pytest.mark.parametrize("variant", ["release", "asan", "tsan"])
def test_c_abi_misuse_returns_errors(variant):
    if variant != "release" and os.environ.get("NPUSIM_SKIP_SANITIZERS") == "1":
        pytest.skip("NPUSIM_SKIP_SANITIZERS=1 set")
    assert "checks passed" in run("adv_abi.cpp", variant=variant, timeout=300)


def test_device_memory_near_two_to_the_64_is_out_of_memory_not_an_alias():
    with pytest.raises(npx.OutOfMemoryError):
        npx.DeviceMemory(2**64 - 64)
    a, b = npx.DeviceMemory(256), npx.DeviceMemory(256)
    assert a.ptr != b.ptr


@pytest.mark.parametrize("nbytes", [2**64, 2**70])
def test_device_memory_beyond_64_bits_is_a_value_error(nbytes):
    with pytest.raises(ValueError, match="too big"):
        npx.DeviceMemory(nbytes)


@pytest.mark.parametrize("shape", [(2**31, 2**31), (2**40, 2**40), (2**62, 4)])
def test_arrays_beyond_64_bits_say_array_is_too_big(shape):
    with pytest.raises(ValueError, match="array is too big"):
        npx.empty(shape, dtype=npx.float32)
    np.testing.assert_array_equal(npx.arange(3).to_host(), np.arange(3))  # next op works


@pytest.mark.parametrize("variant", ["release", "asan", "tsan"])
def test_c_event_destroy_racing_record_wait_query_returns_codes(variant):
    if variant != "release" and os.environ.get("NPUSIM_SKIP_SANITIZERS") == "1":
        pytest.skip("NPUSIM_SKIP_SANITIZERS=1 set")
    assert "checks passed" in run("rt_event_destroy_race.c", variant=variant, timeout=300)
