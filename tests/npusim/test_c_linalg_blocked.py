"""tests/npusim/c/linalg_blocked.cpp: npusim's blocked float32 LU (ops-blas), Cholesky and QR at
sizes where their steps run on the pool, two of them on two streams at once, against known
solutions and identities, also under AddressSanitizer and ThreadSanitizer."""
import pytest

from cbuild import BuildError
from cbuild import run_program


@pytest.mark.timeout(300)
def test_program():
    assert "linalg_blocked ok" in run_program("linalg_blocked.cpp")


@pytest.mark.timeout(900)
@pytest.mark.parametrize("variant", ["asan", "tsan"])
def test_program_under_sanitizer(variant):
    """No leak, overrun (asan) or data race (tsan) in the look-ahead steps, the per-thread
    workspace and OpenBLAS's thread-count scope shared by two streams."""
    try:
        out = run_program("linalg_blocked.cpp", variant=variant, timeout=300)
    except BuildError as exc:
        if "cannot find" in str(exc) and variant in str(exc):
            pytest.skip("the %s sanitizer runtime library is not installed" % variant)
        raise
    assert "linalg_blocked ok" in out
