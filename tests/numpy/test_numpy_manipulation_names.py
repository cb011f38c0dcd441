"""NumPy's manipulation names append, delete, insert, resize, rollaxis, copyto,
block, trim_zeros, require (npuarray._manipulation) against NumPy."""
import numpy as np
import pytest

import npuarray as npx
from _numpy_names_helpers import REAL_DTYPES, assert_matches, sample, up


@pytest.mark.parametrize("dtype", REAL_DTYPES)
def test_append(rng, dtype):
    x = sample(rng, (3, 4), dtype)
    assert_matches(npx.append(up(x), 1), np.append(x, 1))
    assert_matches(npx.append(up(x), up(x[:1]), axis=0), np.append(x, x[:1], axis=0))
    column = [[1], [2], [3]]
    assert_matches(npx.append(up(x), column, axis=1), np.append(x, column, axis=1))
    with pytest.raises(ValueError):
        npx.append(up(x), up(x[:, :1]), axis=0)


@pytest.mark.parametrize("obj", [1, -1, [0, 2], [], slice(1, 3), slice(None, None, 2),
                                 np.array([True, False, True])])
def test_delete(rng, obj):
    x = rng.standard_normal((3, 4))
    assert_matches(npx.delete(up(x), obj, axis=0), np.delete(x, obj, axis=0))
    assert_matches(npx.delete(up(x), [1, 5, 7]), np.delete(x, [1, 5, 7]))
    assert_matches(npx.delete(up(x), up(np.array([0, 3])), axis=1), np.delete(x, [0, 3], axis=1))


def test_delete_errors():
    x = up(np.arange(6))
    with pytest.raises(IndexError):
        npx.delete(x, 6)
    with pytest.raises(ValueError):
        npx.delete(x, np.array([True, False]))


@pytest.mark.parametrize("obj,vals,axis", [
    (1, 5, None), (1, [7, 8, 9], 1), ([1], [[7], [8], [9]], 1), ([0, 2, 2], [5, 6, 7], 1),
    (slice(0, 2), 9, 0), (-1, [1, 2, 3, 4], 0), (4, [1, 2, 3], 1), ([3, 0], 1, 1),
    (np.array([True, False, True, False]), 0, 1)])
@pytest.mark.parametrize("dtype", ["int8", "float32", "uint16"])
def test_insert(obj, vals, axis, dtype):
    x = np.arange(12).astype(dtype).reshape(3, 4)
    assert_matches(npx.insert(up(x), obj, vals, axis=axis), np.insert(x, obj, vals, axis=axis))


def test_insert_casts_and_errors():
    x = np.arange(12, dtype=np.int32).reshape(3, 4)
    assert_matches(npx.insert(up(x), 1, up(np.array([1.5, 2.5, 3.5])), axis=1),
                   np.insert(x, 1, [1.5, 2.5, 3.5], axis=1))
    with pytest.raises(IndexError):
        npx.insert(up(x), 5, 0, axis=1)
    with pytest.raises(ValueError):
        npx.insert(up(x), [[1]], 0, axis=1)


@pytest.mark.parametrize("shape", [(5, 3), 7, (2, 0), ()])
def test_resize(rng, shape):
    x = rng.standard_normal((3, 4)).astype(np.float32)
    assert_matches(npx.resize(up(x), shape), np.resize(x, shape))
    assert_matches(npx.resize(up(np.zeros(0)), (2, 2)), np.resize(np.zeros(0), (2, 2)))
    with pytest.raises(ValueError):
        npx.resize(up(x), (-1, 2))


@pytest.mark.parametrize("axis,start", [(3, 1), (1, 4), (2, 0), (-1, -2), (0, 0)])
def test_rollaxis(rng, axis, start):
    y = rng.standard_normal((2, 3, 4, 5))
    assert_matches(npx.rollaxis(up(y), axis, start), np.rollaxis(y, axis, start))


def test_rollaxis_errors():
    y = up(np.zeros((2, 3)))
    with pytest.raises(np.exceptions.AxisError):
        npx.rollaxis(y, 2)
    with pytest.raises(np.exceptions.AxisError):
        npx.rollaxis(y, 0, 3)


@pytest.mark.parametrize("dtype", REAL_DTYPES)
def test_copyto(rng, dtype):
    src = sample(rng, (3, 4), dtype)
    d = np.zeros((3, 4), dtype)
    dd = up(d)
    mask = rng.random((3, 4)) < 0.5
    np.copyto(d, src, where=mask)
    npx.copyto(dd, up(src), where=up(mask))
    assert_matches(dd, d)
    np.copyto(d, src[0])
    npx.copyto(dd, up(src[0]))
    assert_matches(dd, d)


def test_copyto_casting():
    d = np.zeros((2, 2))
    dd = up(d)
    np.copyto(d, 2.5)
    npx.copyto(dd, 2.5)
    assert_matches(dd, d)
    with pytest.raises(TypeError):
        npx.copyto(up(np.zeros(2, np.int32)), 2.5)
    with pytest.raises(TypeError):
        npx.copyto(up(np.zeros(2, np.int32)), up(np.zeros(2)))
    i = up(np.zeros(2, np.int32))
    npx.copyto(i, up(np.array([1.7, 2.2])), casting="unsafe")
    assert_matches(i, np.array([1, 2], np.int32))
    with pytest.raises(TypeError):
        npx.copyto(np.zeros(2), up(np.zeros(2)))


def test_block(rng):
    A, B = np.eye(2), np.ones((2, 3), np.float32)
    C, D = np.zeros((1, 2), np.int8), np.ones((1, 3), np.int8)
    assert_matches(npx.block([[up(A), up(B)], [up(C), up(D)]]), np.block([[A, B], [C, D]]))
    assert_matches(npx.block([up(np.array([1, 2])), 3]), np.block([np.array([1, 2]), 3]))
    assert_matches(npx.block([[1, 2], [3, 4]]), np.block([[1, 2], [3, 4]]))
    assert_matches(npx.block(up(A)), np.block(A))
    assert_matches(npx.block([[[up(A)]], [[up(A)]]]), np.block([[[A]], [[A]]]))
    with pytest.raises(ValueError):
        npx.block([])
    with pytest.raises(ValueError):
        npx.block([[up(A)], up(A)])
    with pytest.raises(TypeError):
        npx.block((up(A), up(A)))


@pytest.mark.parametrize("trim", ["fb", "f", "b", "bf"])
def test_trim_zeros(trim):
    z = np.array([0, 0, 1, 2, 0, 3, 0])
    assert_matches(npx.trim_zeros(up(z), trim), np.trim_zeros(z, trim))
    z2 = np.zeros((4, 5))
    z2[1, 2], z2[2, 3] = 1, 2
    assert_matches(npx.trim_zeros(up(z2), trim), np.trim_zeros(z2, trim))
    assert_matches(npx.trim_zeros(up(z2), trim, axis=1), np.trim_zeros(z2, trim, axis=1))
    assert_matches(npx.trim_zeros(up(np.zeros(3)), trim), np.trim_zeros(np.zeros(3), trim))
    with pytest.raises(ValueError):
        npx.trim_zeros(up(z), "x")


def test_require(rng):
    x = rng.standard_normal((3, 4))
    r = npx.require(up(x).T, np.float32, ["C"])
    assert r.is_c_contiguous()
    assert_matches(r, np.require(x.T, np.float32, ["C"]))
    f = npx.require(up(x), None, "F")
    assert_matches(f, x)
    assert f.strides == np.asfortranarray(x).strides
    d = up(x)
    assert npx.require(d, requirements=["A", "E"]) is d
    w = npx.require(npx.broadcast_to(up(x[0]), (3, 4)), requirements="W")
    w[0, 0] = 5.0                                    # a writeable copy
    o = npx.require(d[1:], requirements="O")
    assert o.is_c_contiguous() and o is not d
    assert_matches(o, x[1:])
    with pytest.raises(ValueError):
        npx.require(d, requirements="CF")
    with pytest.raises(KeyError):
        npx.require(d, requirements="Z")


def test_shape_ndim_size(rng):
    x = rng.standard_normal((2, 3, 4))
    d = up(x)
    assert npx.shape(d) == np.shape(x) and npx.ndim(d) == np.ndim(x) and npx.size(d) == x.size
    assert npx.size(d, 1) == np.size(x, 1) and npx.size(d, (0, 2)) == np.size(x, (0, 2))
    assert npx.shape([[1, 2]]) == (1, 2) and npx.ndim(3.0) == 0 and npx.size([1, 2, 3]) == 3
    with pytest.raises(np.exceptions.AxisError):
        npx.size(d, 3)


def test_row_stack_deprecated(rng):
    a, b = rng.standard_normal(3), rng.standard_normal((2, 3))
    with pytest.warns(DeprecationWarning):
        result = npx.row_stack([up(a), up(b)])
    assert_matches(result, np.vstack([a, b]))


def test_broadcast(rng):
    a, b = rng.standard_normal((2, 1)), rng.standard_normal(3)
    bd, bn = npx.broadcast(up(a), up(b)), np.broadcast(a, b)
    assert (bd.shape, bd.nd, bd.ndim, bd.size, bd.numiter, bd.index) == \
        (bn.shape, bn.nd, bn.ndim, bn.size, bn.numiter, bn.index)
    items = list(bd)
    assert [tuple(v.item() for v in t) for t in items] == [tuple(map(float, t)) for t in bn]
    assert bd.index == 6
    bd.reset()
    assert bd.index == 0 and len(bd.iters) == 2
    assert_matches(bd.iters[1].copy(), np.broadcast_to(b, (2, 3)).ravel())
    assert npx.broadcast(up(np.float32(1))).shape == ()
    with pytest.raises(ValueError):
        npx.broadcast(up(np.ones(2)), up(np.ones(3)))
