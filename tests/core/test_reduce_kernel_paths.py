"""npusim's fast reduction paths (kernels/ops/reduce.c) against NumPy.

Reductions of float32 / float64 matrices with contiguous rows take dedicated loops: along the
rows (each row to one value: sums in float lanes combined in double, vectorised max/min) and
along the columns (rows folded into a vector of accumulators, in fixed row blocks across
threads). Arg-reductions over contiguous rows scan without conversion. Everything else takes the
generic engine. These tests put shapes around the lane, block and thread boundaries of each
path, strided and reversed views that must leave them, NaN propagation, ties, empty inputs and
the sum's accuracy (compared with float64 sums)."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import npuarray as npx

FLOATS = ["float32", "float64"]
# Row lengths around the 32-lane sum, the 512-element block and the 64-element max/min switch.
ROW_LENGTHS = [1, 2, 15, 16, 17, 31, 32, 33, 63, 64, 65, 511, 512, 513, 1000]
# (rows, cols) around FAST_PARALLEL_MIN (2^17 elements) and COLUMN_BLOCK_MIN (2^16 per block).
MATRICES = [(1797, 64), (1797, 10), (2047, 64), (2049, 64), (70001, 3), (300, 4096), (1, 7), (5, 1)]


def up(a):
    return npx.asarray(a)


def assert_sum_accurate(result, a, axis, keepdims=False):
    """The float sum's error is at most 32 eps sum|a| (NumPy's pairwise bound for these sizes)."""
    exact = np.sum(a.astype(np.float64), axis=axis, keepdims=keepdims)
    magnitude = np.sum(np.abs(a).astype(np.float64), axis=axis, keepdims=keepdims)
    got = result.to_host()
    assert got.dtype == a.dtype and got.shape == exact.shape
    eps = np.finfo(a.dtype).eps
    error = np.abs(got.astype(np.float64) - exact)
    assert np.all(error <= 32 * eps * magnitude + eps * np.abs(exact)), error.max()


def signed(rng, shape, dtype):
    return (rng.standard_normal(shape) * 10).astype(dtype)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("cols", ROW_LENGTHS)
def test_row_reductions_around_lane_boundaries(rng, dtype, cols):
    a = signed(rng, (7, cols), dtype)
    x = up(a)
    assert_sum_accurate(npx.sum(x, axis=1), a, 1)
    assert_sum_accurate(npx.sum(x, axis=-1, keepdims=True), a, -1, keepdims=True)
    np.testing.assert_allclose(npx.mean(x, axis=1).to_host(), a.mean(axis=1), rtol=1e-5 if dtype == "float32" else 1e-12)
    np.testing.assert_array_equal(npx.max(x, axis=1).to_host(), a.max(axis=1))
    np.testing.assert_array_equal(npx.min(x, axis=1, keepdims=True).to_host(), a.min(axis=1, keepdims=True))
    np.testing.assert_array_equal(npx.argmax(x, axis=1).to_host(), a.argmax(axis=1))
    np.testing.assert_array_equal(npx.argmin(x, axis=1).to_host(), a.argmin(axis=1))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", MATRICES)
def test_rows_and_columns_around_thread_boundaries(rng, dtype, shape):
    a = signed(rng, shape, dtype)
    x = up(a)
    for axis in (0, 1):
        assert_sum_accurate(npx.sum(x, axis=axis), a, axis)
        np.testing.assert_array_equal(npx.max(x, axis=axis).to_host(), a.max(axis=axis))
        np.testing.assert_array_equal(npx.min(x, axis=axis).to_host(), a.min(axis=axis))
    np.testing.assert_allclose(npx.mean(x, axis=0).to_host(), a.mean(axis=0),
                               rtol=1e-5 if dtype == "float32" else 1e-12, atol=1e-5)
    np.testing.assert_array_equal(npx.argmin(x, axis=1).to_host(), a.argmin(axis=1))
    np.testing.assert_array_equal(npx.argmax(x, axis=0).to_host(), a.argmax(axis=0))


def test_column_sums_are_deterministic(rng):
    """Row blocks are fixed by the shape, not by the threads: the same input gives the same bits."""
    a = signed(rng, (70001, 5), "float32")
    x = up(a)
    first = npx.sum(x, axis=0).to_host()
    for _ in range(3):
        np.testing.assert_array_equal(npx.sum(x, axis=0).to_host(), first)


@pytest.mark.parametrize("dtype", FLOATS)
def test_full_sum_accuracy_matches_numpy(rng, dtype):
    """A long sum of same-signed values: the error stays within NumPy's own (pairwise)."""
    a = (rng.random(1 << 22) + 0.5).astype(dtype)
    exact = np.sum(a.astype(np.float64)) if dtype == "float32" else float(np.sum(a.astype(np.longdouble)))
    ours = abs(float(npx.sum(up(a)).to_host()) - exact)
    numpy_error = abs(float(np.sum(a)) - exact)
    assert ours <= max(2 * numpy_error, 4 * np.finfo(dtype).eps * exact)


FULL_REDUCTIONS = """
import sys
import numpy as np
import npuarray as npx
rng = np.random.default_rng(5)
for dtype in ("float32", "float64"):
    a = (rng.standard_normal((1 << 21) + 12345) * 100).astype(dtype)
    x = npx.asarray(a)
    for f in (npx.sum, npx.mean, npx.max, npx.min):
        print(float(f(x).to_host()).hex())
    print(float(npx.sum(x[3:-5:2]).to_host()).hex())  # strided: through the iterator
"""


def test_full_reductions_do_not_depend_on_the_threads(tmp_path):
    """A full reduction's fixed chunks go to whichever thread claims them first: one thread or
    the default pool must give the same bits, and those must be NumPy's sums to its accuracy."""
    import subprocess, sys
    from conftest import package_env
    script = tmp_path / "full_reductions.py"
    script.write_text(FULL_REDUCTIONS)
    outputs = []
    for threads in ("1", None):
        done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300,
                              env=package_env(NPUSIM_NUM_THREADS=threads))
        assert done.returncode == 0, done.stderr
        outputs.append([float.fromhex(v) for v in done.stdout.split()])
    assert outputs[0] == outputs[1]
    rng = np.random.default_rng(5)
    for i, dtype in enumerate(("float32", "float64")):
        a = (rng.standard_normal((1 << 21) + 12345) * 100).astype(dtype)
        total, mean, top, bottom, strided = outputs[1][5 * i:5 * i + 5]
        exact = np.sum(a.astype(np.longdouble))
        scale = np.sum(np.abs(a.astype(np.float64)))
        tol = 8 * np.finfo(dtype).eps * scale
        assert abs(total - exact) <= tol and abs(mean - exact / a.size) <= tol / a.size
        assert (top, bottom) == (a.max(), a.min())
        assert abs(strided - np.sum(a[3:-5:2].astype(np.longdouble))) <= tol


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("view", ["transposed", "row_step", "column_step", "reversed", "offset"])
def test_views_enter_or_leave_the_fast_paths(rng, dtype, view):
    base = signed(rng, (130, 66), dtype)
    a = {"transposed": base.T, "row_step": base[::3], "column_step": base[:, ::2],
         "reversed": base[::-1, ::-1], "offset": base[5:, 3:]}[view]
    x = {"transposed": up(base).T, "row_step": up(base)[::3], "column_step": up(base)[:, ::2],
         "reversed": up(base)[::-1, ::-1], "offset": up(base)[5:, 3:]}[view]
    for axis in (0, 1, None):
        assert_sum_accurate(npx.sum(x, axis=axis), a, axis)
        np.testing.assert_array_equal(npx.max(x, axis=axis).to_host(), a.max(axis=axis))
        np.testing.assert_array_equal(npx.min(x, axis=axis).to_host(), a.min(axis=axis))
    for axis in (0, 1):
        np.testing.assert_array_equal(npx.argmin(x, axis=axis).to_host(), a.argmin(axis=axis))
        np.testing.assert_array_equal(npx.argmax(x, axis=axis).to_host(), a.argmax(axis=axis))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("cols", [3, 10, 64, 100])
def test_nan_propagates_in_rows_and_columns(rng, dtype, cols):
    a = signed(rng, (40, cols), dtype)
    a[rng.integers(0, 40, 6), rng.integers(0, cols, 6)] = np.nan
    a[7, 0] = np.nan          # a NaN first in its row
    a[9, cols - 1] = np.nan   # and last
    a[11] = np.inf            # ties of inf before a NaN-free row
    a[12, :] = -np.inf
    x = up(a)
    for axis in (0, 1):
        np.testing.assert_array_equal(npx.max(x, axis=axis).to_host(), a.max(axis=axis))
        np.testing.assert_array_equal(npx.min(x, axis=axis).to_host(), a.min(axis=axis))
        np.testing.assert_array_equal(npx.argmax(x, axis=axis).to_host(), a.argmax(axis=axis))
        np.testing.assert_array_equal(npx.argmin(x, axis=axis).to_host(), a.argmin(axis=axis))
        with np.errstate(invalid="ignore"):
            expected = a.sum(axis=axis)
        got = npx.sum(x, axis=axis).to_host()
        np.testing.assert_array_equal(np.isnan(got), np.isnan(expected))
        np.testing.assert_array_equal(np.isinf(got), np.isinf(expected))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "int8", "uint8", "float16"])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_argmin_argmax_dtypes_and_ties(rng, dtype, axis):
    a = rng.integers(0, 4, (33, 17)).astype(dtype)  # many ties: the first occurrence wins
    x = up(a)
    for keepdims in (False, True):
        got = npx.argmin(x, axis=axis, keepdims=keepdims)
        assert got.dtype == npx.int64
        np.testing.assert_array_equal(got.to_host(), np.argmin(a, axis=axis, keepdims=keepdims))
        np.testing.assert_array_equal(npx.argmax(x, axis=axis, keepdims=keepdims).to_host(),
                                      np.argmax(a, axis=axis, keepdims=keepdims))


@pytest.mark.parametrize("dtype", FLOATS)
def test_zero_d_and_empty(rng, dtype):
    s = np.asarray(rng.standard_normal(), dtype=dtype)
    assert float(npx.sum(up(s)).to_host()) == float(s)
    assert int(npx.argmin(up(s)).to_host()) == 0
    e = np.zeros((0, 5), dtype)
    np.testing.assert_array_equal(npx.sum(up(e), axis=0).to_host(), e.sum(axis=0))
    assert npx.sum(up(e), axis=1).shape == (0,)
    assert npx.max(up(np.zeros((5, 0), dtype)), axis=0).shape == (0,)
    with pytest.raises(ValueError):
        npx.max(up(e), axis=0)
    with pytest.raises(ValueError):
        npx.argmin(up(e), axis=0)
    np.testing.assert_array_equal(npx.sum(up(np.ones((3, 4), dtype)), axis=0).to_host(), np.full(4, 3, dtype))


def test_bad_input_then_next_operation_works(rng):
    a = signed(rng, (6, 5), "float32")
    x = up(a)
    with pytest.raises((ValueError, IndexError)):
        npx.sum(x, axis=2)
    with pytest.raises((ValueError, IndexError)):
        npx.argmin(x, axis=-3)
    with pytest.raises(TypeError):
        npx.argmax(up(a.astype(np.complex64)), axis=0)
    with pytest.raises(TypeError):
        npx.max(up(a.astype(np.complex64)), axis=1)
    assert_sum_accurate(npx.sum(x, axis=1), a, 1)


@settings(max_examples=40, deadline=None)
@given(rows=st.integers(1, 300), cols=st.integers(1, 300), axis=st.sampled_from([0, 1, None]),
       dtype=st.sampled_from(FLOATS), seed=st.integers(0, 2**32 - 1))
def test_hypothesis_shapes(rows, cols, axis, dtype, seed):
    a = signed(np.random.default_rng(seed), (rows, cols), dtype)
    x = up(a)
    assert_sum_accurate(npx.sum(x, axis=axis), a, axis)
    np.testing.assert_array_equal(npx.max(x, axis=axis).to_host(), a.max(axis=axis))
    np.testing.assert_array_equal(npx.min(x, axis=axis).to_host(), a.min(axis=axis))
    if axis is not None:
        np.testing.assert_array_equal(npx.argmin(x, axis=axis).to_host(), a.argmin(axis=axis))
        np.testing.assert_array_equal(npx.argmax(x, axis=axis).to_host(), a.argmax(axis=axis))


@pytest.mark.parametrize("dtype", FLOATS)
def test_on_a_non_default_stream(rng, dtype):
    a = signed(rng, (2049, 64), dtype)
    with npx.Stream():
        x = up(a)
        s0, s1, m, i = npx.sum(x, axis=0), npx.sum(x, axis=1), npx.max(x, axis=0), npx.argmin(x, axis=1)
        assert_sum_accurate(s0, a, 0)
        assert_sum_accurate(s1, a, 1)
        np.testing.assert_array_equal(m.to_host(), a.max(axis=0))
        np.testing.assert_array_equal(i.to_host(), a.argmin(axis=1))


# ---------------------------------------------------------------------------------------------
# matmul.c: a small transposed mat2 is packed into row-major order (OpenBLAS's small-matrix
# kernels then apply); row blocks run on the calling thread below 2^22 multiply-adds and on the
# pool above.

# (M, K, N, transposed mat2): k-means' two products, mat2 at / above the packing limit (65536
# elements), products on both sides of the pool threshold, and of the 16 rows packing needs.
PRODUCTS = [(1797, 64, 10, True), (10, 1797, 64, False), (300, 256, 256, True), (300, 257, 256, True),
            (2000, 64, 32, True), (4100, 64, 16, False), (5, 3, 2, True), (15, 64, 10, True), (16, 64, 10, True)]


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
@pytest.mark.parametrize("m,k,n,transposed", PRODUCTS)
def test_matmul_packing_and_blocks(rng, dtype, m, k, n, transposed):
    a = rng.standard_normal((m, k)).astype(dtype)
    b = rng.standard_normal((n, k) if transposed else (k, n)).astype(dtype)
    y = npx.asarray(b).T if transposed else npx.asarray(b)
    expected = a.astype(np.float64) @ (b.T if transposed else b).astype(np.float64)
    got = npx.matmul(npx.asarray(a), y).to_host()
    assert got.dtype == np.dtype(dtype) and got.shape == (m, n)
    rtol = {"float32": 1e-4, "float64": 1e-12, "float16": 2e-2}[dtype]
    np.testing.assert_allclose(got.astype(np.float64), expected, rtol=rtol, atol=rtol * np.sqrt(k) * 4)


def test_matmul_transposed_both_and_one_hot(rng):
    """k-means' centroid update: one_hot.T @ x, and a product of two transposed views."""
    labels = rng.integers(0, 10, 1797)
    one_hot = (labels[:, None] == np.arange(10)).astype(np.float32)
    x = rng.standard_normal((1797, 64)).astype(np.float32)
    got = npx.matmul(npx.asarray(one_hot).T, npx.asarray(x)).to_host()
    np.testing.assert_allclose(got, one_hot.T @ x, rtol=1e-5, atol=1e-4)
    at, bt = rng.standard_normal((64, 300)).astype(np.float32), rng.standard_normal((20, 64)).astype(np.float32)
    got = npx.matmul(npx.asarray(at).T, npx.asarray(bt).T).to_host()
    np.testing.assert_allclose(got, at.T @ bt.T, rtol=1e-4, atol=1e-4)


# ---------------------------------------------------------------------------------------------
# Var / Std read their float, float16 and bfloat16 input as float (no conversion to double
# first), sum in double and take the fast paths for the mean.

@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("shape,axis", [((1797, 64), 1), ((1797, 10), 0), ((2049, 64), None),
                                        ((300, 513), 1), ((70001, 3), 0), ((7,), 0)])
@pytest.mark.parametrize("correction", [0, 1])
def test_var_std_fast_paths(rng, dtype, shape, axis, correction):
    a = (rng.standard_normal(shape) * 3 + 100).astype(dtype)  # a large mean: two passes needed
    x = up(a)
    wide = a.astype(np.float64)
    rtol = 1e-5 if dtype == "float32" else 2e-3
    got = npx.var(x, axis=axis, correction=correction).to_host()
    assert got.dtype == np.dtype(dtype)
    np.testing.assert_allclose(got.astype(np.float64), np.var(wide, axis=axis, ddof=correction), rtol=rtol)
    np.testing.assert_allclose(npx.std(x, axis=axis, correction=correction).to_host().astype(np.float64),
                               np.std(wide, axis=axis, ddof=correction), rtol=rtol)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(2000, 1030), (3, 513), (1, 600), (600, 2)])
def test_argmin_argmax_over_leading_axis_column_walk(rng, dtype, shape):
    """Arg-reductions over axis 0 of a matrix walk its rows together, 512 columns at a time."""
    a = rng.integers(-20, 20, shape).astype(dtype)  # ties
    a[rng.integers(0, shape[0], 8), rng.integers(0, shape[1], 8)] = np.nan
    x = up(a)
    for keepdims in (False, True):
        np.testing.assert_array_equal(npx.argmax(x, axis=0, keepdims=keepdims).to_host(),
                                      np.argmax(a, axis=0, keepdims=keepdims))
        np.testing.assert_array_equal(npx.argmin(x, axis=0, keepdims=keepdims).to_host(),
                                      np.argmin(a, axis=0, keepdims=keepdims))
    three = np.stack([a, -a])  # (2, rows, cols) over axis 1: columns of each batch
    np.testing.assert_array_equal(npx.argmax(up(three), axis=1).to_host(), np.argmax(three, axis=1))


# ---------------------------------------------------------------------------------------------
# sort.c: a line of 2^20 or more elements of at most 4 bytes is radix-sorted by the CPU pool in 8
# fixed chunks per pass (stable, as the one-thread sort).

@pytest.mark.parametrize("dtype", ["float32", "int32", "uint8", "float16"])
def test_long_line_sort_and_argsort_are_stable(rng, dtype):
    n = (1 << 20) + 3
    a = rng.integers(0, 200, n).astype(dtype)  # many ties: stability is visible
    if dtype in ("float32", "float16"):
        a[rng.integers(0, n, 50)] = np.nan
        a[rng.integers(0, n, 50)] = -0.0
    x = up(a)
    np.testing.assert_array_equal(npx.sort(x).to_host(), np.sort(a, kind="stable"))
    np.testing.assert_array_equal(npx.argsort(x, stable=True).to_host(), np.argsort(a, kind="stable"))
    finite = np.nan_to_num(a, nan=7).astype(dtype)
    expected = np.argsort(-finite.astype(np.float64), kind="stable")
    np.testing.assert_array_equal(npx.argsort(up(finite), descending=True, stable=True).to_host(), expected)


# ---------------------------------------------------------------------------------------------
# aclnnCumsum: contiguous float / double lines are scanned straight from input to output.

@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape,axis", [((1000,), 0), ((7, 513), 1), ((7, 513), 0), ((3, 0), 1), ((1,), 0)])
def test_cumulative_sum_contiguous_and_strided(rng, dtype, shape, axis):
    a = signed(rng, shape, dtype)
    got = npx.cumulative_sum(up(a), axis=axis).to_host()
    assert got.dtype == np.dtype(dtype) and got.shape == a.shape
    exact = np.cumulative_sum(a.astype(np.float64), axis=axis)
    magnitude = np.cumulative_sum(np.abs(a).astype(np.float64), axis=axis)
    eps = np.finfo(dtype).eps
    assert np.all(np.abs(got - exact) <= eps * (magnitude + np.abs(exact)))  # one rounding per output


def test_cumulative_sum_nan_inf_and_reversed_view(rng):
    a = signed(rng, 50, "float32")
    a[10], a[30] = np.inf, np.nan
    got = npx.cumulative_sum(up(a)).to_host()
    np.testing.assert_array_equal(np.isnan(got), np.arange(50) >= 30)
    assert np.all(np.isinf(got[10:30]))
    b = signed(rng, 40, "float64")
    np.testing.assert_allclose(npx.cumulative_sum(up(b)[::-1]).to_host(), np.cumulative_sum(b[::-1]), rtol=1e-12)
