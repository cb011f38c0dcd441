"""tests/npusim/c/aclnn_random.cpp: CANN's random operators through the C ABI (counter layout,
strided outputs, ranges, aclnnRandperm), plain and under AddressSanitizer and
ThreadSanitizer (the draws' parallel paths run on npusim's worker threads)."""
import pytest

from cbuild import BuildError
from cbuild import run_program


@pytest.mark.timeout(900)
@pytest.mark.parametrize("variant", ["release", "asan", "tsan"])
def test_random_program(variant):
    try:
        out = run_program("aclnn_random.cpp", variant=variant, timeout=600)
    except BuildError as exc:
        if variant != "release" and "cannot find" in str(exc) and variant in str(exc):
            pytest.skip("the %s sanitizer runtime library is not installed: %s"
                        % (variant, str(exc)[-200:]))
        raise
    assert "aclnn_random ok" in out
