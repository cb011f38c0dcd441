"""NumPy's products and diagonals (npuarray._linear_algebra, npuarray._creation) against NumPy."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import npuarray as npx
from _numpy_names_helpers import assert_matches, sample, up

DTYPES = ["float32", "float64", "int32", "int64", "complex128"]


def operand(rng, shape, dtype):
    if dtype == "complex128":
        return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    return sample(rng, shape, dtype)


def tol(dtype):
    return 1e-5 if dtype == "float32" else 1e-12


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shapes", [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)),
                                    ((2, 3), (3, 4)), ((2, 2, 3), (3, 4)),
                                    ((2, 3), (2, 3, 4)), ((), (3, 2)), ((2, 3), ())])
def test_dot(dtype, shapes, rng):
    a, b = operand(rng, shapes[0], dtype), operand(rng, shapes[1], dtype)
    assert_matches(npx.dot(up(a), up(b)), np.dot(a, b), rtol=tol(dtype))


def test_dot_views_out_and_errors(rng):
    a = rng.standard_normal((4, 3))
    assert_matches(npx.dot(up(a).T, up(a)), np.dot(a.T, a))
    assert_matches(npx.dot(up(a)[::-1], up(a)[0]), np.dot(a[::-1], a[0]))
    out = npx.zeros((3, 3))
    assert npx.dot(up(a).T, up(a), out=out) is out
    assert_matches(out, a.T @ a)
    with pytest.raises(ValueError):
        npx.dot(up(a), up(a))
    assert_matches(npx.dot(a.T, up(a)), a.T @ a)  # a host operand is uploaded
    assert_matches(npx.dot(up(a[0]), up(a[1])), np.dot(a[0], a[1]))


@pytest.mark.parametrize("dtype", DTYPES)
def test_vdot_inner_outer_kron(dtype, rng):
    a, b = operand(rng, (2, 3), dtype), operand(rng, (2, 3), dtype)
    assert_matches(npx.vdot(up(a), up(b)), np.vdot(a, b), rtol=tol(dtype))
    assert_matches(npx.inner(up(a), up(b)), np.inner(a, b), rtol=tol(dtype))
    assert_matches(npx.inner(up(a), up(b[0])), np.inner(a, b[0]), rtol=tol(dtype))
    assert_matches(npx.outer(up(a), up(b[0])), np.outer(a, b[0]), rtol=tol(dtype))
    assert_matches(npx.kron(up(a), up(b)), np.kron(a, b), rtol=tol(dtype))
    assert_matches(npx.kron(up(a[0]), up(b)), np.kron(a[0], b), rtol=tol(dtype))
    assert_matches(npx.inner(up(a), up(b)[0, 0]), np.inner(a, b[0, 0]), rtol=tol(dtype))


def test_products_errors():
    with pytest.raises(ValueError):
        npx.vdot(up(np.ones(3)), up(np.ones(4)))
    with pytest.raises(ValueError):
        npx.inner(up(np.ones(3)), up(np.ones(4)))
    assert_matches(npx.outer(up(np.ones(0)), up(np.ones(2))), np.outer(np.ones(0), np.ones(2)))


EINSUM_CASES = [
    ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("ij,jk", [(3, 4), (4, 5)]),
    ("ij->ji", [(3, 4)]),
    ("ii->i", [(4, 4)]),
    ("ii", [(4, 4)]),
    ("ij->", [(3, 4)]),
    ("ij->j", [(3, 4)]),
    ("i,i->", [(5,), (5,)]),
    ("i,j->ij", [(3,), (4,)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("...ij,...jk->...ik", [(2, 3, 4), (2, 4, 5)]),
    ("...ij,jk", [(2, 3, 4), (4, 5)]),
    ("ij,ij->i", [(3, 4), (3, 4)]),
    ("ijk,ikl,ilm->ijm", [(2, 3, 4), (2, 4, 5), (2, 5, 3)]),
    ("i,j,k->ijk", [(2,), (3,), (4,)]),
    ("iij->j", [(3, 3, 2)]),
    ("ab,cd->abcd", [(2, 3), (4, 5)]),
    ("ijk,jl->kil", [(2, 3, 4), (3, 5)]),
]


@pytest.mark.parametrize("subscripts, shapes", EINSUM_CASES, ids=[c[0] for c in EINSUM_CASES])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_einsum(subscripts, shapes, dtype, rng):
    arrays = [sample(rng, s, dtype) for s in shapes]
    # A sum of products may cancel: its error is relative to the sum of the terms' magnitudes.
    magnitude = np.einsum(subscripts, *[np.abs(a) for a in arrays]) if dtype != "int64" else 0
    assert_matches(npx.einsum(subscripts, *[up(a) for a in arrays]), np.einsum(subscripts, *arrays),
                   rtol=tol(dtype), atol=tol(dtype) * np.max(magnitude, initial=0))


def test_einsum_views_dtype_out_and_errors(rng):
    a = rng.standard_normal((4, 3))
    assert_matches(npx.einsum("ij,jk->ik", up(a), up(a).T), np.einsum("ij,jk->ik", a, a.T))
    assert_matches(npx.einsum("ij->i", up(a)[::-1]), np.einsum("ij->i", a[::-1]))
    integers = np.arange(6).reshape(2, 3)
    assert_matches(npx.einsum("ij->j", up(integers), dtype=np.float64),
          np.einsum("ij->j", integers, dtype=np.float64))
    out = npx.zeros(3)
    assert npx.einsum("ij->j", up(a), out=out) is out
    assert_matches(out, a.sum(0))
    with pytest.raises(ValueError):
        npx.einsum("ij,jk->ik", up(a), up(a))
    with pytest.raises(ValueError):
        npx.einsum("ij,jk", up(a))
    with pytest.raises(ValueError):
        npx.einsum("ijk->i", up(a))
    with pytest.raises(ValueError):
        npx.einsum("ij->k", up(a))
    with pytest.raises(ValueError):
        npx.einsum("ii->i", up(a))
    with pytest.raises(TypeError):
        npx.einsum("ij->j", up(a), dtype=np.int32, casting="safe")
    assert_matches(npx.einsum("ij->j", up(a)), a.sum(0))


@settings(max_examples=20, deadline=None)
@given(m=st.integers(1, 4), n=st.integers(1, 4), k=st.integers(0, 4))
def test_einsum_matrix_product_shapes(m, n, k):
    a = np.arange(m * k, dtype=np.float64).reshape(m, k)
    b = np.arange(k * n, dtype=np.float64).reshape(k, n)
    assert_matches(npx.einsum("mk,kn->mn", up(a), up(b)), np.einsum("mk,kn->mn", a, b))


@pytest.mark.parametrize("offset", [-3, -1, 0, 1, 2, 5])
def test_diagonal_trace_diag(offset, rng):
    a = rng.standard_normal((3, 4, 5))
    assert_matches(npx.diagonal(up(a), offset), np.diagonal(a, offset))
    assert_matches(npx.diagonal(up(a), offset, 2, 0), np.diagonal(a, offset, 2, 0))
    assert_matches(npx.trace(up(a), offset), np.trace(a, offset))
    assert_matches(npx.trace(up(a), offset, axis1=1, axis2=2, dtype=np.float32),
          np.trace(a, offset, axis1=1, axis2=2, dtype=np.float32), rtol=1e-5)
    m = a[0]
    assert_matches(npx.diag(up(m), offset), np.diag(m, offset))
    assert_matches(npx.diag(up(m).T, offset), np.diag(m.T, offset))
    assert_matches(npx.diag(up(m[0]), offset), np.diag(m[0], offset))
    assert_matches(npx.diag(up(m[0])[::-1], offset), np.diag(m[0][::-1], offset))


def test_diagonal_is_a_view_and_errors():
    x = npx.zeros((3, 3))
    npx.diagonal(x)[...] = 1.0
    assert_matches(x, np.eye(3))
    with pytest.raises(ValueError):
        npx.diagonal(up(np.ones(3)))
    with pytest.raises(ValueError):
        npx.diagonal(up(np.ones((2, 2))), 0, 1, 1)
    with pytest.raises(ValueError):
        npx.diag(up(np.ones((2, 2, 2))))
    with pytest.raises((ValueError, IndexError)):
        npx.trace(up(np.ones((2, 2))), axis1=3)
    assert_matches(npx.trace(up(np.ones((2, 2)))), np.array(2.0))
