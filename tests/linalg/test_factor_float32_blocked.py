"""float32 solve / cholesky / qr at sizes where npusim's blocked factorisations split their
steps across the pool (64-column LU and Cholesky blocks, 32-column QR panels, a look-ahead
panel factorised while the rest is updated, solves in chunks of right-hand sides), against
NumPy: backward errors, singular and not positive definite matrices in late blocks, batched and
non-contiguous operands, and OpenBLAS's thread count left as it was."""
import ctypes
import os

import numpy as np
import pytest

import npuarray as npx
from npuarray import linalg as la

EPS32 = np.finfo(np.float32).eps


def rand(rng, shape, dtype=np.float32):
    a = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dtype)


def spd(rng, shape):
    a = rng.standard_normal(shape)
    n = shape[-1]
    return (a @ np.swapaxes(a, -1, -2) + n * np.eye(n)).astype(np.float32)


def assert_solves(a, b, x):
    """Normwise backward error of x for a x = b within a small multiple of n eps (float32)."""
    a, b, x = (np.asarray(v, np.float64) for v in (a, b, x))
    n = a.shape[-1]
    residual = np.abs(a @ x - b).max()
    bound = 4 * n * EPS32 * (np.abs(a).sum(axis=-1).max() * np.abs(x).max() + np.abs(b).max())
    assert residual <= bound, (residual, bound)


@pytest.mark.parametrize("n", [63, 64, 65, 129, 300, 513])
@pytest.mark.parametrize("k", [1, 16, 300])
def test_solve_look_ahead_sizes(rng, n, k):
    a = rand(rng, (n, n))  # not diagonally dominant: rows are exchanged in every panel
    b = rand(rng, (n, k))
    x = la.solve(npx.asarray(a), npx.asarray(b))
    assert x.shape == (n, k) and x.dtype == np.float32
    assert_solves(a, b, x.to_host())
    want = np.linalg.solve(a.astype(np.float64), b.astype(np.float64))
    cond = np.linalg.cond(a.astype(np.float64))
    np.testing.assert_allclose(x.to_host(), want, rtol=0, atol=n * cond * EPS32 * np.abs(want).max())


def test_solve_vector_and_batched_broadcast_non_contiguous(rng):
    a = rand(rng, (2, 1, 260, 260))
    b = rand(rng, (3, 260, 40))
    got = la.solve(npx.asarray(a).mT, npx.asarray(b)[..., ::2])
    want_a, want_b = np.swapaxes(a, -1, -2), b[..., ::2]
    assert got.shape == (2, 3, 260, 20)
    for i in range(2):
        for j in range(3):
            assert_solves(want_a[i, 0], want_b[j], got.to_host()[i, j])
    v = rand(rng, (260,))
    x = la.solve(npx.asarray(a[1, 0]), npx.asarray(v))
    assert x.shape == (260,)
    assert_solves(a[1, 0], v[:, None], x.to_host()[:, None])


@pytest.mark.parametrize("column", [5, 64, 200, 299])
def test_solve_singular_in_any_panel(rng, column):
    a = rand(rng, (3, 300, 300))
    b = rand(rng, (3, 300, 4))
    a[1, :, column] = 0  # an exactly zero pivot in the panel that holds this column
    with pytest.raises(la.LinAlgError, match="Singular matrix"):
        la.solve(npx.asarray(a), npx.asarray(b))
    x = la.solve(npx.asarray(a[[0, 2]]), npx.asarray(b[[0, 2]]))  # the others still solve
    for i in range(2):
        assert_solves(a[2 * i], b[2 * i], x.to_host()[i])


@pytest.mark.parametrize("n", [63, 64, 65, 200, 300, 513])
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_block_sizes(rng, n, upper):
    a = spd(rng, (n, n))
    got = la.cholesky(npx.asarray(a), upper=upper).to_host()
    want = np.linalg.cholesky(a.astype(np.float64), upper=upper)
    np.testing.assert_allclose(got, want, rtol=0, atol=50 * n * EPS32 * np.abs(want).max())
    assert np.all((np.tril(got, -1) if upper else np.triu(got, 1)) == 0)


def test_cholesky_batched_non_contiguous_and_late_failure(rng):
    a = spd(rng, (3, 300, 300))
    wide = np.zeros((3, 300, 600), np.float32)
    wide[..., ::2] = a
    got = la.cholesky(npx.asarray(wide)[..., ::2]).to_host()
    want = np.linalg.cholesky(a.astype(np.float64))
    np.testing.assert_allclose(got, want, rtol=0, atol=50 * 300 * EPS32 * np.abs(want).max())
    bad = a.copy()
    bad[1, 280, 280] = -1e6  # the leading 280 x 280 minor is positive definite: the last block fails
    with pytest.raises(la.LinAlgError, match="not positive definite"):
        la.cholesky(npx.asarray(bad))


@pytest.mark.parametrize("dtype", [np.float32, np.complex64])
@pytest.mark.parametrize("shape", [(300, 300), (520, 130), (130, 520), (2, 257, 200)])
@pytest.mark.parametrize("mode", ["reduced", "complete"])
def test_qr_look_ahead_sizes(rng, dtype, shape, mode):
    a = rand(rng, shape, dtype)
    q, r = (v.to_host() for v in la.qr(npx.asarray(a), mode=mode))
    wq, wr = np.linalg.qr(a, mode=mode)  # the same Householder convention (LAPACK's xlarfg)
    assert q.shape == wq.shape and r.shape == wr.shape
    scale = 20 * max(shape[-2:]) * EPS32
    np.testing.assert_allclose(q, wq, rtol=0, atol=scale * 10)
    np.testing.assert_allclose(r, wr, rtol=0, atol=scale * np.abs(wr).max() * 10)
    assert np.all(np.tril(r, -1) == 0)
    np.testing.assert_allclose(q @ r, a, rtol=0, atol=scale * np.abs(a).max())
    k = q.shape[-1]
    np.testing.assert_allclose(np.conj(np.swapaxes(q, -1, -2)) @ q, np.broadcast_to(np.eye(k), q.shape[:-2] + (k, k)),
                               rtol=0, atol=scale)


def test_factorisations_of_changing_sizes_reuse_workspace(rng):
    """The host workspace kept between launches is grown and reused: every size stays right."""
    for n in (400, 30, 400, 129, 1):
        a = rand(rng, (n, n))
        q, r = la.qr(npx.asarray(a))
        np.testing.assert_allclose(q.to_host() @ r.to_host(), a, rtol=0, atol=40 * n * EPS32 * np.abs(a).max())
        s = spd(rng, (n, n))
        want = np.linalg.cholesky(s.astype(np.float64))
        np.testing.assert_allclose(la.cholesky(npx.asarray(s)).to_host(), want, rtol=0,
                                   atol=50 * n * EPS32 * np.abs(want).max())


def _openblas_threads():
    library = ctypes.CDLL(os.environ["NPUSIM_BLAS_LIBRARY"])  # the instance npusim loaded
    return library.scipy_openblas_get_num_threads()


def test_openblas_threads_restored_after_overlapping_factorisations(rng):
    """Factorisations set OpenBLAS to one thread while they run and give its count back after
    the last of several overlapping ones (two streams at once)."""
    la.cholesky(npx.asarray(spd(rng, (8, 8))))  # loads LAPACK
    before = _openblas_threads()
    s1, s2 = npx.Stream(), npx.Stream()
    a, s = rand(rng, (3, 300, 300)), spd(rng, (3, 300, 300))
    b = rand(rng, (3, 300, 8))
    with s1:
        q, r = la.qr(npx.asarray(a))
    with s2:
        c = la.cholesky(npx.asarray(s))
        x = la.solve(npx.asarray(a), npx.asarray(b))
    s1.synchronize()
    s2.synchronize()
    assert _openblas_threads() == before
    np.testing.assert_allclose(q.to_host() @ r.to_host(), a, rtol=0, atol=40 * 300 * EPS32 * np.abs(a).max())
    want = np.linalg.cholesky(s.astype(np.float64))
    np.testing.assert_allclose(c.to_host(), want, rtol=0, atol=50 * 300 * EPS32 * np.abs(want).max())
    for i in range(3):
        assert_solves(a[i], b[i], x.to_host()[i])
