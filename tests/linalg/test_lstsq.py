"""linalg.lstsq on the device (npuarray/linalg/_lstsq.py: aclnnSvd and products) against
numpy.linalg.lstsq: over- and under-determined, rank-deficient, vector and matrix right-hand
sides, float32 / float64 / complex128, rcond, empty input, bad shapes; no host transfer."""
import numpy as np
import pytest

import npuarray as npx

RNG = np.random.default_rng(2125)


def _compare(a, b, rcond=None, tol=1e-10):
    with npx.transfer_guard("disallow"):
        x, residuals, rank, s = npx.linalg.lstsq(npx.asarray(a), npx.asarray(b), rcond=rcond)
        x, residuals, s = x.to_host(), residuals.to_host(), s.to_host()
    ex, eres, erank, es = np.linalg.lstsq(a, b, rcond=rcond)
    assert rank == erank and x.shape == ex.shape and residuals.shape == eres.shape
    assert x.dtype == ex.dtype and s.dtype == es.dtype
    scale = max(np.abs(ex).max(initial=0), 1)
    np.testing.assert_allclose(x, ex, atol=tol * scale, rtol=0)
    np.testing.assert_allclose(s, es, atol=tol * max(es.max(initial=0), 1), rtol=0)
    np.testing.assert_allclose(residuals, eres, rtol=tol * 100, atol=tol)


@pytest.mark.parametrize("m,n,k", [(50, 20, 3), (20, 50, 2), (40, 40, 1), (60, 10, None)])
@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_shapes_and_dtypes(m, n, k, dtype):
    a = RNG.standard_normal((m, n))
    b = RNG.standard_normal((m,) if k is None else (m, k))
    if np.dtype(dtype).kind == "c":
        a = a + 1j * RNG.standard_normal(a.shape)
        b = b + 1j * RNG.standard_normal(b.shape)
    _compare(a, b)


def test_float32_rank_deficient_and_rcond():
    a = RNG.standard_normal((30, 5))
    a = np.hstack([a, a[:, :2]])
    b = RNG.standard_normal(30)
    _compare(a, b)
    _compare(a.astype(np.float32), b.astype(np.float32), tol=1e-4)
    _compare(np.diag([1.0, 1e-3, 1e-8]), np.ones(3), rcond=1e-5)


def test_empty_and_errors():
    x, residuals, rank, s = npx.linalg.lstsq(npx.asarray(np.zeros((4, 0))), npx.asarray(np.ones(4)))
    ex, eres, erank, es = np.linalg.lstsq(np.zeros((4, 0)), np.ones(4))
    assert x.shape == ex.shape and rank == erank and s.shape == es.shape
    np.testing.assert_allclose(residuals.to_host(), eres)
    with pytest.raises(np.linalg.LinAlgError):
        npx.linalg.lstsq(npx.asarray(np.ones((3, 2))), npx.asarray(np.ones(4)))
    with pytest.raises(TypeError):
        npx.linalg.lstsq(npx.asarray(np.ones((3, 2), np.int32)), npx.asarray(np.ones(3)))
