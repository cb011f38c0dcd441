"""tests/npusim/c/aclnn_launch_paths.cpp: tiny operators run on the launching thread while their stream
is idle, executors recycled across threads, the remembered live blocks of the device range check
(freed, shrunk, other device), and the stream worker's bounded spin (blocked when idle, woken
by later work); also under AddressSanitizer and ThreadSanitizer."""
import pytest

from cbuild import run_program, run_program_or_skip

SOURCE = "aclnn_launch_paths.cpp"


@pytest.mark.timeout(300)
def test_launch_paths():
    assert "aclnn_launch_paths ok" in run_program(SOURCE)


@pytest.mark.timeout(900)
@pytest.mark.parametrize("variant", ["asan", "tsan"])
def test_launch_paths_under_sanitizer(variant):
    out = run_program_or_skip(SOURCE, variant=variant, timeout=300)
    assert "aclnn_launch_paths ok" in out
