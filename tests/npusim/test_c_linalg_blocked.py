"""tests/npusim/c/linalg_blocked.cpp: npusim's blocked float32 LU (ops-blas), Cholesky and QR at
sizes where their steps run on the pool, two of them on two streams at once, against known
solutions and identities, also under AddressSanitizer and ThreadSanitizer."""
import pytest

from cbuild import run_program, run_program_or_skip


@pytest.mark.timeout(300)
def test_program():
    assert "linalg_blocked ok" in run_program("linalg_blocked.cpp")


@pytest.mark.timeout(900)
@pytest.mark.parametrize("variant", ["asan", "tsan"])
def test_program_under_sanitizer(variant):
    """No leak, overrun (asan) or data race (tsan) in the look-ahead steps, the per-thread
    workspace and OpenBLAS's thread-count scope shared by two streams."""
    out = run_program_or_skip("linalg_blocked.cpp", variant=variant, timeout=300)
    assert "linalg_blocked ok" in out
