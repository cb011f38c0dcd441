"""linalg.eigh / eigvalsh on the device in every floating dtype (npuarray/linalg/_eigh.py:
aclnnSvd of the shifted matrix): LAPACK-like accuracy ||A V - V L|| <= 10 n u ||A|| and
||V^H V - I|| <= 10 n u, eigenvalues against NumPy, degenerate and zero spectra, batches,
non-contiguous input, NumPy's lower-triangle convention, no host transfer."""
import numpy as np
import pytest

import npuarray as npx

RNG = np.random.default_rng(2123)
DTYPES = [np.float32, np.float64, np.complex64, np.complex128]


def _hermitian(n, dtype, batch=()):
    a = RNG.standard_normal(batch + (n, n))
    if np.dtype(dtype).kind == "c":
        a = a + 1j * RNG.standard_normal(batch + (n, n))
    return ((a + np.conj(np.swapaxes(a, -1, -2))) / 2).astype(dtype)


def _check(a, w, v):
    n = a.shape[-1]
    u = np.finfo(a.dtype).eps / 2
    norm = max(np.linalg.norm(a, 2), np.finfo(a.dtype).tiny)
    assert np.linalg.norm(a @ v - v * w, 2) <= 10 * n * u * norm
    assert np.linalg.norm(np.conj(v.T) @ v - np.eye(n), 2) <= 10 * n * u
    np.testing.assert_allclose(w, np.linalg.eigvalsh(a.astype(np.complex128 if a.dtype.kind == "c"
                                                              else np.float64)), atol=10 * n * u * norm)


def _eigh(a):
    with npx.transfer_guard("disallow"):
        w, v = npx.linalg.eigh(npx.asarray(a))
        values = npx.linalg.eigvalsh(npx.asarray(a))
    return w.to_host(), v.to_host(), values.to_host()


@pytest.mark.parametrize("dtype", DTYPES)
def test_random(dtype):
    a = _hermitian(70, dtype)
    w, v, values = _eigh(a)
    assert w.dtype == np.finfo(dtype).dtype and v.dtype == dtype and values.dtype == w.dtype
    assert np.all(np.diff(w) >= 0)
    _check(a, w, v)
    np.testing.assert_allclose(values, w, atol=70 * np.finfo(dtype).eps * np.linalg.norm(a, 2))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_degenerate_spectra(dtype):
    q, _ = np.linalg.qr(RNG.standard_normal((40, 40)))
    spectrum = np.repeat([-3.0, -1.0, 1.0, 3.0], 10)   # opposite pairs: equal singular values
    a = ((q * spectrum) @ q.T).astype(dtype)
    a = (a + a.T) / 2
    w, v, _ = _eigh(a)
    _check(a, w, v)
    np.testing.assert_allclose(w, spectrum, atol=1e-4 if dtype == np.float32 else 1e-12)
    w, v, _ = _eigh(np.eye(30, dtype=dtype))
    np.testing.assert_allclose(w, 1.0)
    _check(np.eye(30, dtype=dtype), w, v)


def test_zero_and_ill_scaled():
    w, v, _ = _eigh(np.zeros((12, 12)))
    np.testing.assert_array_equal(w, np.zeros(12))
    _check(np.zeros((12, 12)), w, v)
    d = 2.0 ** RNG.integers(-40, 41, 30)
    a = _hermitian(30, np.float64) * d[:, None] * d[None, :]
    w, v, _ = _eigh(a)
    _check(a, w, v)   # absolute accuracy, as LAPACK's


def test_batched_non_contiguous_and_lower_triangle():
    a = _hermitian(20, np.float64, (2, 3))
    w, v, _ = _eigh(a)
    for i in range(2):
        for j in range(3):
            _check(a[i, j], w[i, j], v[i, j])
    full = RNG.standard_normal((40, 40))   # not symmetric: NumPy reads the lower triangle
    view = npx.asarray(full)[::2, ::2]
    w = npx.linalg.eigvalsh(view).to_host()
    np.testing.assert_allclose(w, np.linalg.eigvalsh(full[::2, ::2]), atol=1e-12)
    np.testing.assert_allclose(npx.linalg.eigh(view).eigenvalues.to_host(), w, atol=1e-12)


def test_empty_and_errors():
    w, v = npx.linalg.eigh(npx.asarray(np.zeros((0, 0))))
    assert w.shape == (0,) and v.shape == (0, 0)
    with pytest.raises(np.linalg.LinAlgError):
        npx.linalg.eigh(npx.asarray(np.zeros((3, 4))))
    with pytest.raises(TypeError):
        npx.linalg.eigvalsh(npx.asarray(np.zeros((3, 3), np.int32)))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex128])
@pytest.mark.parametrize("uplo", ["L", "U"])
def test_uplo_reads_only_the_named_triangle(dtype, uplo, rng):
    a = rng.standard_normal((5, 5))
    if np.dtype(dtype).kind == "c":
        a = a + 1j * np.triu(rng.standard_normal((5, 5)), 1)  # a real diagonal, as Hermitian
    a = a.astype(dtype)  # not Hermitian: each triangle defines a different matrix
    x = npx.asarray(a)
    tolerance = 1e-4 if dtype == np.float32 else 1e-10
    np.testing.assert_allclose(npx.linalg.eigvalsh(x, UPLO=uplo).to_host(),
                               np.linalg.eigvalsh(a, UPLO=uplo), rtol=tolerance, atol=tolerance)
    values, vectors = npx.linalg.eigh(x, UPLO=uplo)
    w, v = np.linalg.eigh(a, UPLO=uplo)
    np.testing.assert_allclose(values.to_host(), w, rtol=tolerance, atol=tolerance)
    np.testing.assert_allclose(np.abs(vectors.to_host()), np.abs(v), rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("uplo", ["L", "U"])
def test_imaginary_parts_on_the_diagonal_are_ignored(dtype, uplo, rng):
    # LAPACK's heevd (NumPy's eigh) reads a Hermitian matrix's diagonal as real: a complex
    # diagonal's imaginary parts do not change the result.
    a = (rng.standard_normal((2, 6, 6)) + 1j * rng.standard_normal((2, 6, 6))).astype(dtype)
    hermitian = np.tril(a) if uplo == "L" else np.triu(a)
    hermitian = hermitian + np.conj(np.swapaxes(hermitian, -1, -2))
    hermitian[..., np.arange(6), np.arange(6)] = np.real(np.diagonal(a, axis1=-2, axis2=-1))
    values, vectors = npx.linalg.eigh(npx.asarray(a), UPLO=uplo)
    for matrix, w, v in zip(hermitian, values.to_host(), vectors.to_host()):
        _check(matrix, w, v)
    np.testing.assert_allclose(npx.linalg.eigvalsh(npx.asarray(a), UPLO=uplo).to_host(),
                               np.linalg.eigvalsh(a, UPLO=uplo),
                               atol=1e-4 if dtype == np.complex64 else 1e-12)


def test_uplo_must_be_l_or_u():
    with pytest.raises(ValueError, match="UPLO"):
        npx.linalg.eigh(npx.eye(3), UPLO="X")
