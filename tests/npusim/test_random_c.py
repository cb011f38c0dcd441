"""tests/npusim/c/aclnn_random.cpp: CANN's random operators through the C ABI (counter layout,
strided outputs, ranges, aclnnRandperm), plain and under AddressSanitizer and
ThreadSanitizer (the draws' parallel paths run on npusim's worker threads)."""
import pytest

from cbuild import run_program_or_skip


@pytest.mark.timeout(900)
@pytest.mark.parametrize("variant", ["release", "asan", "tsan"])
def test_random_program(variant):
    out = run_program_or_skip("aclnn_random.cpp", variant=variant, timeout=600)
    assert "aclnn_random ok" in out
