"""numpy.linalg's norm, cond, multi_dot, tensorinv, tensorsolve (npuarray.linalg) and the
top-level matvec, vecmat, einsum_path (npuarray._linear_algebra) against NumPy."""
import warnings

import numpy as np
import pytest

import npuarray as npx
from _numpy_names_helpers import assert_matches, up

NORM_DTYPES = ["float32", "float64", "complex64", "complex128", "int32", "bool", "float16"]
VECTOR_ORDS = [None, 1, 2, np.inf, -np.inf, 0, 3, -1.5]
MATRIX_ORDS = [None, "fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf]


def _tol(dtype):
    return {"float16": 1e-2, "float32": 1e-4, "complex64": 1e-4}.get(dtype, 1e-10)


def _matrix(rng, shape, dtype):
    a = rng.normal(size=shape) * 3
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.normal(size=shape)
    return a.astype(dtype)


@pytest.mark.parametrize("dtype", NORM_DTYPES)
def test_norm_vector_and_flattened(dtype, rng):
    a = _matrix(rng, (3, 4, 5), dtype)
    tol = _tol(dtype)
    assert_matches(npx.linalg.norm(up(a)), np.linalg.norm(a), rtol=tol)
    assert_matches(npx.linalg.norm(up(a), keepdims=True), np.linalg.norm(a, keepdims=True),
                   rtol=tol)
    for ord in VECTOR_ORDS:
        with np.errstate(divide="ignore"):
            expected = np.linalg.norm(a, ord, axis=1)
        assert_matches(npx.linalg.norm(up(a), ord, axis=1), expected, rtol=tol)
        with np.errstate(divide="ignore"):
            expected = np.linalg.norm(a[0, 0], ord)
        assert_matches(npx.linalg.norm(up(a[0, 0]), ord), expected, rtol=tol)


@pytest.mark.parametrize("dtype", NORM_DTYPES)
def test_norm_matrix(dtype, rng):
    a = _matrix(rng, (3, 4, 5), dtype)
    tol = _tol(dtype)
    for ord in MATRIX_ORDS:
        if dtype == "float16" and ord in ("nuc", 2, -2):
            with pytest.raises(TypeError):
                np.linalg.norm(a[0], ord)
            with pytest.raises(TypeError):
                npx.linalg.norm(up(a[0]), ord)
            continue
        assert_matches(npx.linalg.norm(up(a), ord, axis=(2, 0), keepdims=True),
                       np.linalg.norm(a, ord, axis=(2, 0), keepdims=True), rtol=tol)
        assert_matches(npx.linalg.norm(up(a[0]), ord), np.linalg.norm(a[0], ord), rtol=tol)


def test_norm_errors():
    a = up(np.ones((2, 3, 4)))
    with pytest.raises(ValueError):
        npx.linalg.norm(a, 2)
    with pytest.raises(ValueError):
        npx.linalg.norm(a, "fro", axis=1)
    with pytest.raises(ValueError):
        npx.linalg.norm(a, 3, axis=(0, 1))
    with pytest.raises(ValueError):
        npx.linalg.norm(a, axis=(1, 1))
    with pytest.raises(ValueError):
        npx.linalg.norm(a, axis=(0, 1, 2))
    with pytest.raises(np.exceptions.AxisError):
        npx.linalg.norm(a, axis=3)


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128", "int64"])
@pytest.mark.parametrize("p", [None, 1, -1, 2, -2, np.inf, -np.inf, "fro", "nuc"])
def test_cond_matches_numpy(dtype, p, rng):
    m = (rng.normal(size=(2, 4, 4)) * 3 + 6 * np.eye(4)).astype(dtype)
    if np.dtype(dtype).kind == "c":
        m = m + 1j * rng.normal(size=(2, 4, 4))
    assert_matches(npx.linalg.cond(up(m), p), np.linalg.cond(m, p), rtol=1e-3)


def test_cond_singular_nonsquare_and_errors(rng):
    singular = np.array([[[1.0, 2.0], [2.0, 4.0]], [[1.0, 0.0], [0.0, 2.0]]])
    for p in (1, "fro", np.inf):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            expected = np.linalg.cond(singular, p)
        assert_matches(npx.linalg.cond(up(singular), p), expected)
    wide = rng.normal(size=(3, 5))
    assert_matches(npx.linalg.cond(up(wide)), np.linalg.cond(wide), rtol=1e-10)
    with pytest.raises(np.linalg.LinAlgError):
        npx.linalg.cond(up(wide), 1)
    with pytest.raises(np.linalg.LinAlgError):
        npx.linalg.cond(up(np.ones(3)))
    with pytest.raises(TypeError):
        npx.linalg.cond(up(np.eye(2, dtype=np.float16)))


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "int32"])
def test_multi_dot_matches_numpy(dtype, rng):
    shapes = [(10,), (10, 30), (30, 5), (5, 40), (40,)]
    arrays = [_matrix(rng, s, dtype) for s in shapes]
    tol = _tol(dtype) if np.dtype(dtype).kind != "i" else 0
    device = [up(a) for a in arrays]
    assert_matches(npx.linalg.multi_dot(device), np.linalg.multi_dot(arrays), rtol=tol)
    assert_matches(npx.linalg.multi_dot(device[1:4]), np.linalg.multi_dot(arrays[1:4]), rtol=tol)
    assert_matches(npx.linalg.multi_dot(device[:2]), np.linalg.multi_dot(arrays[:2]), rtol=tol)
    out = npx.empty((10, 40), dtype=dtype)
    assert npx.linalg.multi_dot(device[1:4], out=out) is out
    assert_matches(out, np.linalg.multi_dot(arrays[1:4]), rtol=tol)


def test_multi_dot_of_bool_matrices(rng):
    arrays = [rng.integers(0, 2, s).astype(bool) for s in [(3, 4), (4, 5), (5, 2)]]
    assert_matches(npx.linalg.multi_dot([up(a) for a in arrays]), np.linalg.multi_dot(arrays))


def test_multi_dot_errors():
    with pytest.raises(ValueError):
        npx.linalg.multi_dot([up(np.ones((2, 2)))])
    with pytest.raises(np.linalg.LinAlgError):
        npx.linalg.multi_dot([up(np.ones((2, 2))), up(np.ones((2, 2, 2))), up(np.ones((2, 2)))])
    with pytest.raises(ValueError):
        npx.linalg.multi_dot([up(np.ones((2, 3))), up(np.ones((2, 2)))])


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128", "int64"])
def test_tensorinv_tensorsolve_match_numpy(dtype, rng):
    t = (rng.normal(size=(4, 6, 8, 3)) + np.eye(24).reshape(4, 6, 8, 3) * 5).astype(dtype)
    tol = 1e-3 if dtype == "float32" else 1e-8
    assert_matches(npx.linalg.tensorinv(up(t)), np.linalg.tensorinv(t), rtol=tol, atol=tol)
    t1 = (rng.normal(size=(24, 8, 3)) + np.eye(24).reshape(24, 8, 3) * 5).astype(dtype)
    assert_matches(npx.linalg.tensorinv(up(t1), ind=1), np.linalg.tensorinv(t1, ind=1),
                   rtol=tol, atol=tol)
    a = (rng.normal(size=(2, 3, 6)) + np.eye(6).reshape(2, 3, 6) * 5).astype(dtype)
    b = rng.normal(size=(2, 3)).astype(dtype)
    assert_matches(npx.linalg.tensorsolve(up(a), up(b)), np.linalg.tensorsolve(a, b),
                   rtol=tol, atol=tol)
    a2 = np.moveaxis(a, 2, 0).copy()
    assert_matches(npx.linalg.tensorsolve(up(a2), up(b), axes=(0,)),
                   np.linalg.tensorsolve(a2, b, axes=(0,)), rtol=tol, atol=tol)


def test_tensorinv_tensorsolve_errors():
    with pytest.raises(ValueError):
        npx.linalg.tensorinv(up(np.ones((2, 2))), ind=0)
    with pytest.raises(np.linalg.LinAlgError):
        npx.linalg.tensorinv(up(np.ones((2, 3))), ind=1)
    with pytest.raises(np.linalg.LinAlgError):
        npx.linalg.tensorsolve(up(np.ones((2, 3, 4))), up(np.ones((2, 3))))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int8", "complex64", "bool"])
def test_matvec_vecmat_match_numpy(dtype, rng):
    a = _matrix(rng, (2, 1, 3, 4), dtype)
    v = _matrix(rng, (5, 4), dtype)
    w = _matrix(rng, (5, 3), dtype)
    tol = 1e-4 if dtype in ("float32", "complex64") else 1e-12
    assert_matches(npx.matvec(up(a), up(v)), np.matvec(a, v), rtol=tol)
    assert_matches(npx.vecmat(up(w), up(a)), np.vecmat(w, a), rtol=tol)
    out = npx.empty((2, 5, 3), dtype=np.matvec(a, v).dtype)
    assert npx.matvec(up(a), up(v), out=out) is out
    with pytest.raises(ValueError):
        npx.matvec(up(a), up(w))
    with pytest.raises(ValueError):
        npx.vecmat(up(v), up(a))
    with pytest.raises(ValueError):
        npx.matvec(up(v[0]), up(v[0]))
    with pytest.raises(ValueError):
        np.matvec(v[0], v[0])


@pytest.mark.parametrize("optimize", ["greedy", "optimal"])
def test_einsum_path_matches_numpy(optimize, rng):
    arrays = [rng.normal(size=s) for s in [(4, 5), (5, 6), (6, 3)]]
    got = npx.einsum_path("ij,jk,kl->il", *[up(a) for a in arrays], optimize=optimize)
    expected = np.einsum_path("ij,jk,kl->il", *arrays, optimize=optimize)
    assert got[0] == expected[0]
    assert got[1] == expected[1]


@pytest.mark.parametrize("name, a_shape, b_shape", [
    ("matvec", (3,), (3,)), ("matvec", (2, 3), (4,)), ("matvec", (2, 3), ()),
    ("vecmat", (3,), (3,)), ("vecmat", (3,), (4, 2)), ("vecmat", (), (3, 2))])
def test_matvec_and_vecmat_refuse_what_numpys_gufuncs_refuse(name, a_shape, b_shape):
    a, b = np.ones(a_shape), np.ones(b_shape)
    with pytest.raises(ValueError) as numpys:
        getattr(np, name)(a, b)
    with pytest.raises(ValueError) as ours:
        getattr(npx, name)(up(a), up(b))
    # NumPy's message, after the function's name
    assert str(ours.value).split(": ", 1)[1] == str(numpys.value).split(": ", 1)[1]
