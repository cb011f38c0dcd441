"""How npusim's reductions (kernels/ops/reduce.c) store their accumulators: small outputs
accumulate on the stack, and a C-contiguous out of the accumulators' dtype (or float32 from
double accumulators) is written directly; any other out (strided, another dtype) goes through
the element-wise cast. Each is launched through aclnnReduceSum / aclnnAmax / aclnnMean with the
out given, and compared with NumPy. Float32 sums of rows shorter than a block run eight rows at a
time (AVX-512) with the very additions of the row-by-row loop: checked bit for bit against that
order, written out here."""
import numpy as np
import pytest

import npuarray as npx
from npuarray._core import _ops
from npuarray._core._data_type import to_acl_dtype


def reduce_into(op, x, axis, out, dtype=None):
    """``op`` (aclnnReduceSum, aclnnMean, aclnnAmax) of x over ``axis`` into the given ``out``."""
    dims = _ops.dims_array((axis,))
    if op == "aclnnAmax":
        _ops.launch(op, x, dims, False, out)
    else:
        _ops.launch(op, x, dims, False, to_acl_dtype(np.dtype(dtype or out.dtype)), out)
    return out.to_host()


@pytest.mark.parametrize("shape", [(10, 64), (3, 5), (200, 7), (1, 600)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_sums_into_contiguous_and_strided_outs(rng, shape, dtype):
    a = (rng.standard_normal(shape) * 50).astype(dtype)
    x = npx.asarray(a)
    out_dtype = np.int64 if np.dtype(dtype).kind == "i" else dtype
    expected = a.sum(axis=1, dtype=out_dtype)
    contiguous = npx.empty((shape[0],), dtype=out_dtype)
    np.testing.assert_allclose(reduce_into("aclnnReduceSum", x, 1, contiguous), expected, rtol=1e-5)
    wide = npx.zeros((shape[0], 3), dtype=out_dtype)  # out every third element
    np.testing.assert_allclose(reduce_into("aclnnReduceSum", x, 1, wide[:, 1]), expected, rtol=1e-5)
    host = wide.to_host()
    assert not host[:, 0].any() and not host[:, 2].any()  # the elements between left alone


def test_more_accumulators_than_the_stack_holds(rng):
    a = rng.standard_normal((3, 5000)).astype(np.float32)  # 5000 double accumulators: 40 KB
    out = npx.empty((5000,), dtype=np.float32)
    np.testing.assert_allclose(reduce_into("aclnnReduceSum", npx.asarray(a), 0, out), a.sum(axis=0), rtol=1e-5, atol=1e-6)


def test_float32_sums_round_their_double_accumulators(rng):
    # 2**24 + 1 is no float32: the double sum rounds (to nearest even) on the way out
    a = np.array([[2.0 ** 24, 1.0, 0.0, 0.0], [1.0, 2.0 ** 24, 2.0, 1.0]], np.float32)
    out = npx.empty((2,), dtype=np.float32)
    got = reduce_into("aclnnReduceSum", npx.asarray(a), 1, out)
    np.testing.assert_array_equal(got, np.float32(a.astype(np.float64).sum(axis=1)))


def test_means_max_and_other_out_dtypes(rng):
    a = rng.standard_normal((12, 33)).astype(np.float32)
    a[4, 7] = np.nan
    x = npx.asarray(a)
    np.testing.assert_allclose(reduce_into("aclnnMean", x, 1, npx.empty((12,), np.float32)),
                               a.mean(axis=1), rtol=1e-5)
    np.testing.assert_array_equal(reduce_into("aclnnAmax", x, 1, npx.empty((12,), np.float32)),
                                  a.max(axis=1))
    # float32 input summed into a float64 out: the element-wise cast from the accumulators
    np.testing.assert_allclose(reduce_into("aclnnReduceSum", x, 1, npx.empty((12,), np.float64)),
                               a.astype(np.float64).sum(axis=1), rtol=1e-6)
    b = np.array([[True, False, True], [False, False, False]])
    np.testing.assert_array_equal(reduce_into("aclnnReduceSum", npx.asarray(b), 1, npx.empty((2,), np.int64)),
                                  b.sum(axis=1))


def short_row_sum(row):
    """The float32 sum of a row shorter than 512 as npusim computes it (reduce.c's
    sum_short_f32): 16 float32 lanes summed in order, converted to double, the tail (fewer than
    16) added in double to the first lanes, the two halves added, then a fixed tree."""
    n = len(row)
    full = n // 16 * 16
    lanes = np.zeros(16, np.float32)
    for i in range(0, full, 16):
        lanes = (lanes + row[i:i + 16]).astype(np.float32)
    wide = lanes.astype(np.float64)
    wide[:n - full] += row[full:].astype(np.float64)
    w = wide[:8] + wide[8:]
    return ((w[0] + w[4]) + (w[2] + w[6])) + ((w[1] + w[5]) + (w[3] + w[7]))


@pytest.mark.parametrize("rows", [1, 7, 8, 9, 10, 17, 33])
@pytest.mark.parametrize("cols", [33, 47, 48, 63, 64, 65, 200, 511])
def test_row_sums_are_the_documented_order_bit_for_bit(rng, rows, cols):
    # rows eight at a time (AVX-512) and the rest one by one: the same additions in the same order
    a = (rng.standard_normal((rows, cols)) * rng.choice([1e-3, 1.0, 1e4], size=(rows, 1))).astype(np.float32)
    expected = np.array([short_row_sum(r) for r in a]).astype(np.float32)
    x = npx.asarray(a)
    np.testing.assert_array_equal(npx.sum(x, axis=1).to_host(), expected)
    np.testing.assert_allclose(npx.sum(x, axis=1).to_host(), a.sum(axis=1), rtol=1e-5,
                               atol=1e-6 * np.abs(a).sum(axis=1).max())
    wide = np.zeros((rows, cols + 3), np.float32)  # rows every cols + 3 elements
    wide[:, 2:cols + 2] = a
    np.testing.assert_array_equal(npx.sum(npx.asarray(wide)[:, 2:cols + 2], axis=1).to_host(), expected)
