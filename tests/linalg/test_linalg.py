"""npuarray.linalg against numpy.linalg: every function, batched and unbatched,
each floating dtype, reconstructions (Q R, U diag(S) Vh, V diag(w) V^H) rather
than signs, singular / non-square / non-finite input, non-contiguous operands,
the host fallback's stream order and transfer guard, and npusim's aclnn
operators called directly (dtype refusals)."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import npuarray as npx
from npuarray import linalg as la

REAL = [np.float32, np.float64]
FLOATING = REAL + [np.complex64, np.complex128]
TOL = {np.dtype(np.float32): 2e-4, np.dtype(np.float64): 1e-10,
       np.dtype(np.complex64): 2e-4, np.dtype(np.complex128): 1e-10}


def tol(dtype):
    return TOL[np.dtype(dtype)]


def rand(rng, shape, dtype):
    a = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dtype)


def spd(rng, shape, dtype):
    """Hermitian positive-definite matrices, well conditioned."""
    a = rand(rng, shape, dtype)
    n = shape[-1]
    return (a @ np.conj(np.swapaxes(a, -1, -2)) + n * np.eye(n)).astype(dtype)


def assert_close(got, want, dtype, scale=1.0):
    got = got.to_host() if isinstance(got, npx.NPUArray) else got
    assert got.shape == np.shape(want), (got.shape, np.shape(want))
    np.testing.assert_allclose(got, want, rtol=tol(dtype) * scale, atol=tol(dtype) * scale)


def host(x):
    return x.to_host()


def mT(a):
    return np.swapaxes(a, -1, -2)


BATCHES = [(), (3,), (2, 2)]


# ---------------------------------------------------------------------------
# Factorisations

@pytest.mark.parametrize("dtype", FLOATING)
@pytest.mark.parametrize("batch", BATCHES)
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky(rng, dtype, batch, upper):
    a = spd(rng, batch + (5, 5), dtype)
    c = la.cholesky(npx.asarray(a), upper=upper)
    assert c.dtype == dtype and c.shape == a.shape
    assert_close(c, np.linalg.cholesky(a, upper=upper), dtype, 10)
    got = host(c)
    rebuilt = np.conj(mT(got)) @ got if upper else got @ np.conj(mT(got))
    assert_close(rebuilt, a, dtype, 50)


@pytest.mark.parametrize("dtype", REAL)
def test_cholesky_not_positive_definite(dtype):
    a = npx.asarray(np.array([[1.0, 2.0], [2.0, 1.0]], dtype))
    with pytest.raises(la.LinAlgError):
        la.cholesky(a)
    assert issubclass(la.LinAlgError, ValueError)
    assert_close(la.cholesky(npx.asarray(np.eye(2, dtype=dtype) * 4)), np.eye(2) * 2, dtype)


@pytest.mark.parametrize("dtype", FLOATING)
@pytest.mark.parametrize("shape", [(4, 4), (6, 3), (3, 6), (2, 5, 3), (2, 2, 3, 4), (1, 1)])
@pytest.mark.parametrize("mode", ["reduced", "complete"])
def test_qr_reconstructs(rng, dtype, shape, mode):
    a = rand(rng, shape, dtype)
    q, r = la.qr(npx.asarray(a), mode=mode)
    wq, wr = np.linalg.qr(a, mode=mode)
    assert q.shape == wq.shape and r.shape == wr.shape and q.dtype == dtype == r.dtype
    q, r = host(q), host(r)
    assert_close(q @ r, a, dtype, 10)
    k = q.shape[-1]
    assert_close(np.conj(mT(q)) @ q, np.broadcast_to(np.eye(k), q.shape[:-2] + (k, k)), dtype, 10)
    assert np.allclose(np.tril(r, -1), 0)


@pytest.mark.parametrize("dtype", FLOATING)
@pytest.mark.parametrize("shape", [(4, 4), (6, 3), (3, 6), (2, 5, 3), (3, 1, 4)])
@pytest.mark.parametrize("full", [True, False])
def test_svd_reconstructs(rng, dtype, shape, full):
    a = rand(rng, shape, dtype)
    u, s, vh = la.svd(npx.asarray(a), full_matrices=full)
    wu, ws, wvh = np.linalg.svd(a, full_matrices=full)
    assert (u.shape, s.shape, vh.shape) == (wu.shape, ws.shape, wvh.shape)
    assert s.dtype == np.finfo(dtype).dtype and u.dtype == dtype == vh.dtype
    u, s, vh = host(u), host(s), host(vh)
    k = s.shape[-1]
    assert_close(s, ws, dtype, 10)
    assert_close((u[..., :k] * s[..., None, :]) @ vh[..., :k, :], a, dtype, 10)
    assert_close(la.svdvals(npx.asarray(a)), ws, dtype, 10)


@pytest.mark.parametrize("dtype", FLOATING)
@pytest.mark.parametrize("batch", BATCHES)
def test_inv_det_slogdet(rng, dtype, batch):
    a = rand(rng, batch + (4, 4), dtype) + 3 * np.eye(4, dtype=dtype)
    x = npx.asarray(a)
    assert_close(la.inv(x), np.linalg.inv(a), dtype, 10)
    assert_close(la.det(x), np.linalg.det(a), dtype, 10)
    sign, logabs = la.slogdet(x)
    wsign, wlog = np.linalg.slogdet(a)
    assert_close(sign, wsign, dtype)
    assert_close(logabs, wlog, dtype, 10)
    assert logabs.dtype == np.finfo(dtype).dtype


@pytest.mark.parametrize("dtype", REAL)
def test_singular(dtype):
    a = np.array([[1.0, 2.0], [2.0, 4.0]], dtype)
    x = npx.asarray(a)
    with pytest.raises(la.LinAlgError, match="Singular"):
        la.inv(x)
    sign, logabs = la.slogdet(x)
    assert host(sign) == 0 and host(logabs) == -np.inf
    assert host(la.det(x)) == 0
    with pytest.raises(la.LinAlgError):
        la.solve(x, npx.asarray(np.ones(2, dtype)))
    assert_close(la.inv(npx.asarray(np.eye(2, dtype=dtype))), np.eye(2), dtype)  # still works


@pytest.mark.parametrize("name", ["inv", "det", "slogdet", "cholesky", "eigh", "eigvalsh"])
def test_square_required(name):
    x = npx.asarray(np.ones((2, 3)))
    with pytest.raises(la.LinAlgError, match="square"):
        getattr(la, name)(x)
    with pytest.raises(ValueError):
        getattr(la, name)(npx.asarray(np.ones(3)))


@pytest.mark.parametrize("name", ["inv", "det", "slogdet", "cholesky", "qr", "svd", "svdvals",
                                  "eigh", "pinv", "matrix_rank", "matrix_norm", "vector_norm"])
@pytest.mark.parametrize("dtype", [np.int32, np.bool_, np.float16])
def test_non_floating_refused(name, dtype):
    x = npx.asarray(np.eye(2).astype(dtype))
    with pytest.raises(TypeError):
        getattr(la, name)(x)
    assert_close(la.det(npx.asarray(np.eye(2))), 1.0, np.float64)


def test_not_an_array():
    with pytest.raises(TypeError):
        la.inv(np.eye(2))


@pytest.mark.parametrize("dtype", REAL)
def test_empty_and_zero_size(dtype):
    x = npx.asarray(np.zeros((0, 3, 3), dtype))
    assert la.inv(x).shape == (0, 3, 3)
    assert la.det(x).shape == (0,)
    e = npx.asarray(np.zeros((2, 0, 0), dtype))
    assert_close(la.det(e), np.ones(2), dtype)
    q, r = la.qr(npx.asarray(np.zeros((3, 0), dtype)), mode="complete")
    assert_close(q, np.eye(3), dtype)
    assert r.shape == (3, 0)


@pytest.mark.parametrize("dtype", REAL)
def test_non_contiguous_inputs(rng, dtype):
    a = rand(rng, (6, 6, 2), dtype)
    view = npx.asarray(a)[:, :, 0]  # strided
    base = a[:, :, 0]
    assert_close(la.inv(view + 0 * view), np.linalg.inv(base), dtype, 100)
    tview = npx.asarray(a[:, :, 1]).mT
    assert_close(la.svdvals(tview), np.linalg.svd(a[:, :, 1].T, compute_uv=False), dtype, 10)
    flipped = npx.asarray(a[:, :, 1])[::-1]
    assert_close(la.det(flipped), np.linalg.det(a[::-1, :, 1]), dtype, 100)
    q, r = la.qr(flipped)
    assert_close(host(q) @ host(r), a[::-1, :, 1], dtype, 10)


@settings(max_examples=25, deadline=None)
@given(batch=st.lists(st.integers(1, 3), max_size=2), n=st.integers(1, 6),
       dtype=st.sampled_from(REAL))
def test_inv_hypothesis(batch, n, dtype):
    rng = np.random.default_rng(n + 10 * len(batch))
    a = rand(rng, tuple(batch) + (n, n), dtype) + 2 * n * np.eye(n, dtype=dtype)
    assert_close(la.inv(npx.asarray(a)), np.linalg.inv(a), dtype, 10)


# ---------------------------------------------------------------------------
# solve and the eigensolvers (host fallback)

@pytest.mark.parametrize("dtype", FLOATING)
@pytest.mark.parametrize("shapes", [((4, 4), (4,)), ((4, 4), (4, 2)), ((3, 4, 4), (4, 2)),
                                    ((3, 4, 4), (4,)), ((4, 4), (2, 4, 3)),
                                    ((2, 1, 4, 4), (3, 4, 1))])
def test_solve(rng, dtype, shapes):
    a = rand(rng, shapes[0], dtype) + 4 * np.eye(4, dtype=dtype)
    b = rand(rng, shapes[1], dtype)
    x = la.solve(npx.asarray(a), npx.asarray(b))
    want = np.linalg.solve(a, b)
    assert x.dtype == dtype
    assert_close(x, want, dtype, 10)


def test_solve_shape_errors():
    a = npx.asarray(np.eye(3))
    with pytest.raises(ValueError):
        la.solve(a, npx.asarray(np.ones(4)))
    with pytest.raises(ValueError):
        la.solve(npx.asarray(np.ones((2, 3, 3))), npx.asarray(np.ones((4, 3, 1))))


@pytest.mark.parametrize("dtype", FLOATING)
@pytest.mark.parametrize("batch", BATCHES)
def test_eigh_reconstructs(rng, dtype, batch):
    a = spd(rng, batch + (5, 5), dtype)
    w, v = la.eigh(npx.asarray(a))
    assert_close(w, np.linalg.eigvalsh(a), dtype, 100)
    w, v = host(w), host(v)
    assert_close((v * w[..., None, :]) @ np.conj(mT(v)), a, dtype, 100)
    assert_close(la.eigvalsh(npx.asarray(a)), np.linalg.eigvalsh(a), dtype, 100)


@pytest.mark.parametrize("dtype", FLOATING)
def test_eig(rng, dtype):
    a = rand(rng, (2, 4, 4), dtype)
    w, v = la.eig(npx.asarray(a))
    assert w.dtype.kind == "c" and v.dtype.kind == "c"
    w, v = host(w), host(v)
    assert_close(a @ v, v * w[..., None, :], dtype, 100)
    got = np.sort_complex(host(la.eigvals(npx.asarray(a))).ravel())
    assert_close(got, np.sort_complex(np.linalg.eigvals(a).ravel()), dtype, 100)


def test_host_fallback_refused_under_guard():
    x = npx.asarray(np.eye(3))
    with npx.transfer_guard("disallow"):
        with pytest.raises(npx.ImplicitTransferError, match="linalg.eig"):
            la.eig(x)
        assert la.inv(npx.asarray(np.eye(3, dtype=np.float32))).shape == (3, 3)  # device path
    assert_close(la.eigvalsh(x), np.ones(3), np.float64)


def test_show_config_lists_host_fallbacks(capsys):
    npx.show_config()
    out = capsys.readouterr().out
    assert "linalg.eig" in out and "host" in out


def test_host_fallback_on_a_non_default_stream(rng):
    """eigh on another stream reads data produced there and returns results usable
    there, ordered by that stream alone."""
    a = spd(rng, (3, 4, 4), np.float64)
    with npx.Stream() as stream:
        x = npx.asarray(a) * 2.0
        w = la.eigvalsh(x)
        doubled = w * 0.5
        got = doubled.to_host()
    stream.synchronize()
    assert_close(got, np.linalg.eigvalsh(a), np.float64, 100)


def test_device_ops_on_a_non_default_stream(rng):
    a = rand(rng, (8, 16, 16), np.float32) + 16 * np.eye(16, dtype=np.float32)
    x = npx.asarray(a)
    with npx.Stream():
        inverse = la.inv(x + 0.0)
        product = x @ inverse
    assert_close(product, np.broadcast_to(np.eye(16), a.shape), np.float32, 10)


# ---------------------------------------------------------------------------
# Composed functions

@pytest.mark.parametrize("dtype", FLOATING)
@pytest.mark.parametrize("ord", [2, 1, np.inf, -np.inf, 0, 3, 0.5, -1])
@pytest.mark.parametrize("axis", [None, -1, (0, 2), 1])
def test_vector_norm(rng, dtype, ord, axis):
    a = rand(rng, (3, 4, 5), dtype)
    got = la.vector_norm(npx.asarray(a), axis=axis, ord=ord)
    want = np.linalg.vector_norm(a, axis=axis, ord=ord)
    assert got.dtype == np.finfo(dtype).dtype
    assert_close(got, want, dtype, 10)
    kept = la.vector_norm(npx.asarray(a), axis=axis, ord=ord, keepdims=True)
    assert kept.shape == np.linalg.vector_norm(a, axis=axis, ord=ord, keepdims=True).shape


def test_vector_norm_bad_axis():
    x = npx.asarray(np.ones((2, 3)))
    with pytest.raises(np.exceptions.AxisError):
        la.vector_norm(x, axis=2)
    with pytest.raises(ValueError):
        la.vector_norm(x, axis=(0, 0))


@pytest.mark.parametrize("dtype", FLOATING)
@pytest.mark.parametrize("ord", ["fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf])
def test_matrix_norm(rng, dtype, ord):
    a = rand(rng, (2, 4, 3), dtype)
    got = la.matrix_norm(npx.asarray(a), ord=ord)
    assert_close(got, np.linalg.matrix_norm(a, ord=ord), dtype, 10)
    assert la.matrix_norm(npx.asarray(a), ord=ord, keepdims=True).shape == (2, 1, 1)
    with pytest.raises(ValueError):
        la.matrix_norm(npx.asarray(a), ord=3)


@pytest.mark.parametrize("dtype", FLOATING)
@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (2, 5, 5)])
def test_pinv_and_rank(rng, dtype, shape):
    a = rand(rng, shape, dtype)
    assert_close(la.pinv(npx.asarray(a)), np.linalg.pinv(a), dtype, 100)
    low = a.copy()
    low[..., -1] = low[..., 0]  # rank one less
    assert np.array_equal(host(la.matrix_rank(npx.asarray(low))), np.linalg.matrix_rank(low))
    assert_close(la.pinv(npx.asarray(a), rtol=0.5), np.linalg.pinv(a, rtol=0.5), dtype, 100)


@pytest.mark.parametrize("dtype", REAL)
@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, -1, -3])
def test_matrix_power(rng, dtype, n):
    a = (rand(rng, (2, 3, 3), dtype) / 2 + np.eye(3, dtype=dtype)).astype(dtype)
    got = la.matrix_power(npx.asarray(a), n)
    assert_close(got, np.linalg.matrix_power(a, n), dtype, 100)
    with pytest.raises(TypeError):
        la.matrix_power(npx.asarray(a), 1.5)


@pytest.mark.parametrize("dtype", FLOATING + [np.int64, np.int32, np.int8, np.uint8, np.uint16,
                                   np.uint64])
def test_cross(rng, dtype):
    a = rand(rng, (4, 3), np.complex128 if np.dtype(dtype).kind == "c" else np.float64) * 10
    a = (np.abs(a) if np.dtype(dtype).kind == "u" else a).astype(dtype)
    b = a[1] + a[2]
    got = la.cross(npx.asarray(a), npx.asarray(b))
    assert got.dtype == dtype
    kind = dtype if np.dtype(dtype).kind in "fc" else np.float64
    assert_close(got, np.cross(a, b), kind, 1e3)
    c = a[:3, :2].copy()
    assert_close(la.cross(npx.asarray(c), npx.asarray(c[::-1]), axis=0),
          np.cross(c, c[::-1], axis=0), kind, 1e3)
    with pytest.raises(ValueError):
        la.cross(npx.asarray(np.ones((2, 4))), npx.asarray(np.ones((2, 4))))


@pytest.mark.parametrize("dtype", FLOATING + [np.int32])
def test_outer_trace_diagonal(rng, dtype):
    x = rand(rng, (4,), np.float64).astype(dtype)
    y = rand(rng, (3,), np.float64).astype(dtype)
    assert_close(la.outer(npx.asarray(x), npx.asarray(y)), np.outer(x, y), np.float64)
    m = (rng.standard_normal((2, 4, 5)) * 5).astype(dtype)
    for offset in (0, 1, -2, 7, -9):
        assert_close(la.diagonal(npx.asarray(m), offset=offset),
              np.diagonal(m, offset=offset, axis1=-2, axis2=-1), np.float64)
        assert_close(la.trace(npx.asarray(m), offset=offset),
              np.trace(m, offset=offset, axis1=-2, axis2=-1), np.float64, 1e4)
    with pytest.raises(ValueError):
        la.outer(npx.asarray(m), npx.asarray(x))


@pytest.mark.parametrize("dtype", REAL + [np.int64])
def test_tensordot_vecdot(rng, dtype):
    a = (rng.standard_normal((2, 3, 4)) * 5).astype(dtype)
    b = (rng.standard_normal((3, 4, 5)) * 5).astype(dtype)
    for axes in (2, 0, ((1, 2), (0, 1)), ([2], [1]), ((-1,), (-2,))):
        assert_close(la.tensordot(npx.asarray(a), npx.asarray(b), axes=axes),
              np.tensordot(a, b, axes=axes), np.float64, 1e4)
    c = (rng.standard_normal((5, 4)) * 5).astype(dtype)
    assert_close(la.vecdot(npx.asarray(a), npx.asarray(c[0])), np.vecdot(a, c[0]), np.float64, 1e4)
    with pytest.raises(ValueError):
        la.tensordot(npx.asarray(a), npx.asarray(b), axes=((0,), (1,)))


def test_complex_products(rng):
    a = rand(rng, (3, 3), np.complex64)
    assert_close(la.matrix_power(npx.asarray(a), 3), np.linalg.matrix_power(a, 3), np.complex64, 100)
    b = rand(rng, (3, 2), np.complex128)
    assert_close(la.tensordot(npx.asarray(b), npx.asarray(b), axes=((0,), (0,))),
          np.tensordot(b, b, axes=((0,), (0,))), np.complex128)
    u = (rng.integers(0, 9, (4, 3))).astype(np.uint8)
    got = la.vecdot(npx.asarray(u), npx.asarray(u))
    assert got.dtype == np.uint8
    np.testing.assert_array_equal(got.to_host(), np.vecdot(u, u))
    with pytest.raises(TypeError):
        la.vecdot(npx.asarray(u > 3), npx.asarray(u > 3))


def test_vecdot_complex_conjugates(rng):
    a, b = rand(rng, (3, 4), np.complex128), rand(rng, (4,), np.complex128)
    assert_close(la.vecdot(npx.asarray(a), npx.asarray(b)), np.vecdot(a, b), np.complex128)


def test_namespace():
    for name in ["cholesky", "cross", "det", "diagonal", "eig", "eigh", "eigvals", "eigvalsh",
                 "inv", "matmul", "matrix_norm", "matrix_power", "matrix_rank",
                 "matrix_transpose", "outer", "pinv", "qr", "slogdet", "solve", "svd",
                 "svdvals", "tensordot", "trace", "vecdot", "vector_norm"]:
        assert name in la.__all__ and callable(getattr(la, name))


# ---------------------------------------------------------------------------
# npusim's operators called directly: the documented dtypes only

@pytest.mark.parametrize("op, dtype", [
    ("aclnnLinalgCholesky", np.float64), ("aclnnInverse", np.complex64),
    ("aclnnInverse", np.complex128), ("aclnnLinalgCross", np.uint16), ("aclnnLinalgCross", np.bool_),
    ("aclnnSlogdet", np.int32), ("aclnnLinalgQr", np.int64), ("aclnnSvd", np.float16)])
def test_operator_refuses_undocumented_dtype(op, dtype):
    from npuarray._core import _ops
    x = npx.asarray(np.eye(3).astype(dtype))
    out = npx.asarray(np.eye(3).astype(dtype))
    args = {"aclnnLinalgCholesky": (x, False, out), "aclnnInverse": (x, out),
            "aclnnSlogdet": (x, out[0, 0], out[0, 0]), "aclnnLinalgQr": (x, 0, out, out),
            "aclnnSvd": (x, False, False, out[0], out, out), "aclnnLinalgCross": (x, x, -1, out)}[op]
    with pytest.raises(npx.InvalidValueError, match="161002|dtype|not supported"):
        _ops.launch(op, *args)
    assert_close(la.inv(npx.asarray(np.eye(2))), np.eye(2), np.float64)


# ---------------------------------------------------------------------------
# ops-blas LU (float32 solve)

def test_float32_solve_runs_on_the_device(rng):
    a = rand(rng, (2, 6, 6), np.float32) + 6 * np.eye(6, dtype=np.float32)
    b = rand(rng, (2, 6, 300), np.float32)  # more than aclblasSgetrsBatched's 256 columns
    with npx.transfer_guard("disallow"):
        x = la.solve(npx.asarray(a), npx.asarray(b))
    assert_close(x, np.linalg.solve(a, b), np.float32, 10)
    with npx.Stream():
        x = la.solve(npx.asarray(a).mT, npx.asarray(b[0, :, 0]))
        got = x.to_host()
    assert_close(got, np.linalg.solve(np.swapaxes(a, -1, -2), b[0, :, :1])[..., 0], np.float32, 10)


def test_aclblas_refusals():
    from npuarray._acl import ffi, lib
    assert lib.aclblasSetStream(ffi.NULL, ffi.NULL) == lib.ACLBLAS_STATUS_HANDLE_IS_NULLPTR
    out = ffi.new("aclblasHandle_t *")
    assert lib.aclblasCreate(out) == 0
    handle = out[0]
    info = ffi.new("int *")
    null = ffi.cast("float **", 0)
    assert lib.aclblasSgetrsBatched(handle, lib.ACLBLAS_OP_N, 4, 257, null, 4, ffi.NULL, null,
                                    4, info, 1) == lib.ACLBLAS_STATUS_INVALID_VALUE
    assert info[0] == -4  # nrhs above 256
    assert lib.aclblasSgetrfBatched(handle, 4, null, 2, ffi.NULL, ffi.NULL, 1) == \
        lib.ACLBLAS_STATUS_INVALID_VALUE  # lda < n
    host = np.zeros(4, np.uint64)  # a host array is not a device pointer array
    pivots = npx.zeros((4,), dtype=np.int32)
    assert lib.aclblasSgetrfBatched(handle, 2, ffi.cast("float **", host.ctypes.data), 2,
                                    ffi.cast("int *", pivots.data_ptr),
                                    ffi.cast("int *", pivots.data_ptr), 1) == \
        lib.ACLBLAS_STATUS_INVALID_VALUE
    assert lib.aclblasDestroy(handle) == 0
    assert lib.aclblasDestroy(handle) == lib.ACLBLAS_STATUS_NOT_INITIALIZED
    assert_close(la.solve(npx.asarray(np.eye(2, dtype=np.float32)), npx.asarray(np.ones(2, np.float32))),
          np.ones(2), np.float32)


def test_graph_capture_and_replay(rng):
    """Inside a capture the singularity checks (which would synchronise) are skipped;
    replays recompute inv, solve and fft on new data in the same buffers."""
    stream = npx.Stream()
    a = rand(rng, (3, 4, 4), np.float32) + 4 * np.eye(4, dtype=np.float32)
    b = rand(rng, (3, 4, 2), np.float32)
    with stream:
        x, y = npx.asarray(a), npx.asarray(b)
        graph = npx.Graph()
        with graph.capture():
            inverse = la.inv(x)
            solution = la.solve(x, y)
            spectrum = npx.fft.fft(npx.astype(y, np.complex64), axis=1)
        graph.replay()
        assert_close(inverse, np.linalg.inv(a), np.float32, 10)
        assert_close(solution, np.linalg.solve(a, b), np.float32, 10)
        assert_close(spectrum, np.fft.fft(b, axis=1), np.float32, 10)
        fresh = rand(rng, (3, 4, 4), np.float32) + 4 * np.eye(4, dtype=np.float32)
        x[...] = npx.asarray(fresh)
        graph.replay()
        assert_close(inverse, np.linalg.inv(fresh), np.float32, 10)
        assert_close(solution, np.linalg.solve(fresh, b), np.float32, 10)
    graph.destroy()


def test_another_device(rng):
    a = rand(rng, (2, 4, 4), np.float32) + 4 * np.eye(4, dtype=np.float32)
    x = npx.asarray(a, device=npx.Device(1))
    for got, want in [(la.inv(x), np.linalg.inv(a)),
                      (la.solve(x, npx.asarray(a[0, :, 0], device=npx.Device(1))),
                       np.linalg.solve(a, a[0, :, :1])[..., 0]),
                      (la.eigvalsh(x + x.mT), np.linalg.eigvalsh(a + np.swapaxes(a, -1, -2)))]:
        assert got.device == npx.Device(1)
        assert_close(got, want, np.float32, 10)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_runs_on_the_device(rng, dtype):
    a = rand(rng, (2, 4, 3), dtype)
    square = rand(rng, (2, 3, 3), dtype) + 3 * np.eye(3, dtype=dtype)
    with npx.transfer_guard("disallow"):
        u, s, vh = la.svd(npx.asarray(a), full_matrices=False)
        sign, logabs = la.slogdet(npx.asarray(square))
        p = la.pinv(npx.asarray(a))
        q, r = la.qr(npx.asarray(a))
        determinant = la.det(npx.asarray(square))
        inverse = la.inv(npx.asarray(square))
        if dtype == np.complex64:
            solution = la.solve(npx.asarray(square), npx.asarray(a[0, :3, 0]))
            assert_close(solution, np.linalg.solve(square, a[0, :3, :1])[..., 0], dtype, 10)
            solution = la.solve(npx.asarray(square), npx.asarray(a[:, :3, :]))
            assert_close(solution, np.linalg.solve(square, a[:, :3, :]), dtype, 10)
    assert_close(inverse, np.linalg.inv(square), dtype, 10)
    u, s, vh = host(u), host(s), host(vh)
    assert_close((u * s[..., None, :]) @ vh, a, dtype, 10)
    wsign, wlog = np.linalg.slogdet(square)
    assert_close(sign, wsign, dtype, 10)
    assert_close(logabs, wlog, dtype, 10)
    assert_close(p, np.linalg.pinv(a), dtype, 100)
    assert_close(host(q) @ host(r), a, dtype, 10)
    assert_close(determinant, np.linalg.det(square), dtype, 10)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_singular(dtype):
    a = np.array([[1 + 1j, 2 + 2j], [2 + 2j, 4 + 4j]], dtype)
    with pytest.raises(la.LinAlgError, match="Singular"):
        la.inv(npx.asarray(a))
    sign, logabs = la.slogdet(npx.asarray(a))
    assert host(sign) == 0 and host(logabs) == -np.inf


def test_vector_norm_operator(rng):
    """float32 norms are one aclnnLinalgVectorNorm; NaN propagates through inf norms;
    the operator refuses float64, as documented."""
    from npuarray._core import _ops
    from npuarray._core._data_type import to_acl_dtype
    a = rand(rng, (3, 4), np.float32)
    a[1, 2] = np.nan
    got = la.vector_norm(npx.asarray(a), axis=1, ord=np.inf).to_host()
    assert np.isnan(got[1]) and np.allclose(got[[0, 2]], np.abs(a[[0, 2]]).max(axis=1))
    assert la.vector_norm(npx.asarray(np.float32(3.0)), ord=1).to_host() == 3
    x = npx.asarray(a.astype(np.float64))
    out = npx.empty((3,), dtype=np.float64)
    with pytest.raises(npx.InvalidValueError, match="dtype|not supported|161002"):
        _ops.launch("aclnnLinalgVectorNorm", x, _ops.acl_scalar(2.0, np.dtype(np.float32)),
                    _ops.acl_int_array((1,)), False, to_acl_dtype(np.dtype(np.float64)), out)
    assert_close(la.vector_norm(x, axis=1, ord=1), np.abs(a.astype(np.float64)).sum(axis=1), np.float64)


# ---------------------------------------------------------------------------
# Blocked QR and the column-major Cholesky of npusim, beyond one 16-column block

@pytest.mark.parametrize("dtype", FLOATING)
@pytest.mark.parametrize("shape", [(40, 37), (37, 40), (70, 70), (2, 33, 18), (700, 20), (17, 65)])
@pytest.mark.parametrize("mode", ["reduced", "complete"])
def test_qr_blocked_matches_numpy(rng, dtype, shape, mode):
    a = rand(rng, shape, dtype)
    q, r = la.qr(npx.asarray(a), mode=mode)
    wq, wr = np.linalg.qr(a, mode=mode)  # the same Householder convention (LAPACK's xlarfg)
    scale = 10 * max(shape[-2:])
    assert_close(q, wq, dtype, scale)
    assert_close(r, wr, dtype, scale)
    q, r = host(q), host(r)
    assert np.all(np.tril(r, -1) == 0)
    assert_close(q @ r, a, dtype, scale)


@pytest.mark.parametrize("dtype", FLOATING)
def test_qr_blocked_non_contiguous(rng, dtype):
    big = rand(rng, (90, 120), dtype)
    for view, want in [(npx.asarray(big).mT, big.T), (npx.asarray(big)[::2, ::3], big[::2, ::3]),
                       (npx.asarray(big)[::-1, 10:50], big[::-1, 10:50])]:
        q, r = la.qr(view)
        wq, wr = np.linalg.qr(want)
        assert_close(q, wq, dtype, 1000)
        assert_close(r, wr, dtype, 1000)


def test_qr_r_mode_of_the_operator(rng):
    from npuarray._core import _ops
    a = rand(rng, (3, 50, 34), np.float32)
    r = npx.empty((3, 34, 34), dtype=np.float32)
    _ops.launch("aclnnLinalgQr", npx.asarray(a), 2, npx.empty((0,), dtype=np.float32), r)
    assert_close(r, np.linalg.qr(a, mode="r"), np.float32, 500)


@pytest.mark.parametrize("dtype", REAL)
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_larger_and_non_contiguous(rng, dtype, upper):
    a = spd(rng, (2, 150, 150), dtype)
    want = np.linalg.cholesky(a, upper=upper)
    assert_close(la.cholesky(npx.asarray(a), upper=upper), want, dtype, 100)
    # the transposed view of a symmetric matrix is the same matrix; a strided slice of a larger array
    assert_close(la.cholesky(npx.asarray(a).mT, upper=upper), want, dtype, 100)
    wide = np.zeros((2, 150, 300), dtype)
    wide[..., ::2] = a
    assert_close(la.cholesky(npx.asarray(wide)[..., ::2], upper=upper), want, dtype, 100)


@pytest.mark.parametrize("dtype", REAL)
def test_cholesky_failures(rng, dtype):
    good = spd(rng, (80, 80), dtype)
    bad = good.copy()
    bad[70, 70] = -1e5  # positive definite leading 70 x 70 block: fails in a late block
    with pytest.raises(la.LinAlgError):
        la.cholesky(npx.asarray(np.stack([good, bad, good])))
    if dtype == np.float64:
        return  # NaN input: the float64 refinement returns NaN, as NumPy does
    nan = good.copy()
    nan[75, 2] = np.nan  # in the lower triangle that is read: float32's factor is refused
    with pytest.raises(la.LinAlgError):
        la.cholesky(npx.asarray(nan))
    nan_upper = good.copy()
    nan_upper[2, 75] = np.nan  # only the upper triangle is read with upper=True
    with pytest.raises(la.LinAlgError):
        la.cholesky(npx.asarray(nan_upper), upper=True)
    assert_close(la.cholesky(npx.asarray(nan_upper)), np.linalg.cholesky(good), dtype, 100)


@pytest.mark.parametrize("dtype", FLOATING)
def test_cholesky_and_qr_empty(dtype):
    for shape in [(0, 0), (3, 0, 0), (0, 4, 4)]:
        c = la.cholesky(npx.asarray(np.zeros(shape, dtype)))
        assert c.shape == shape and c.dtype == dtype
    q, r = la.qr(npx.asarray(np.zeros((2, 0, 5), dtype)))
    assert q.shape == (2, 0, 0) and r.shape == (2, 0, 5)
    q, r = la.qr(npx.asarray(np.zeros((2, 4, 0), dtype)), mode="complete")
    assert_close(q, np.broadcast_to(np.eye(4), (2, 4, 4)), dtype)
    assert r.shape == (2, 4, 0)


@pytest.mark.parametrize("dtype", REAL)
def test_solve_larger_batched_singular_and_non_contiguous(rng, dtype):
    a = rand(rng, (3, 80, 80), dtype) + 20 * np.eye(80, dtype=dtype)
    b = rand(rng, (3, 80, 5), dtype)
    assert_close(la.solve(npx.asarray(a).mT, npx.asarray(b)[..., ::-1]),
                 np.linalg.solve(np.swapaxes(a, -1, -2), b[..., ::-1]), dtype, 100)
    singular = a.copy()
    singular[1, :, 7] = 0  # an exactly zero pivot, as NumPy needs to raise
    with pytest.raises(la.LinAlgError):
        la.solve(npx.asarray(singular), npx.asarray(b))
    assert la.solve(npx.asarray(np.zeros((0, 80, 80), dtype)), npx.asarray(b)[:0]).shape == (0, 80, 5)


@pytest.mark.parametrize("n", [47, 100])
def test_float32_solve_pivots_across_blocks(rng, n):
    a = rand(rng, (2, n, n), np.float32)  # not diagonally dominant: rows are exchanged
    b = rand(rng, (2, n, 3), np.float32)
    x = host(la.solve(npx.asarray(a), npx.asarray(b)))
    want = np.linalg.solve(a.astype(np.float64), b.astype(np.float64))
    residual = np.abs(np.einsum("bij,bjk->bik", a.astype(np.float64), x) - b).max()
    assert residual < 1e-3 * np.abs(a).max() * np.abs(want).max() * n
    np.testing.assert_allclose(x, want, rtol=0, atol=1e-3 * np.abs(want).max() * n)
