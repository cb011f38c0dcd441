"""tests/npusim/c/linalg_fft.cpp: npusim's linalg operators (aclnnInverse, aclnnSlogdet,
aclnnLinalgCholesky, aclnnLinalgQr, aclnnSvd), aclfft and the ops-blas LU called from C
against hand-computed values, also under AddressSanitizer and ThreadSanitizer."""
import pytest

from cbuild import run_program, run_program_or_skip


@pytest.mark.timeout(300)
def test_program():
    assert "linalg_fft ok" in run_program("linalg_fft.cpp")


@pytest.mark.timeout(900)
@pytest.mark.parametrize("variant", ["asan", "tsan"])
def test_program_under_sanitizer(variant):
    """No leak, use after free, overrun (asan) or data race (tsan) in these kernels, the plan
    and handle registries, and a plan destroyed while its transform is queued."""
    out = run_program_or_skip("linalg_fft.cpp", variant=variant, timeout=300)
    assert "linalg_fft ok" in out
