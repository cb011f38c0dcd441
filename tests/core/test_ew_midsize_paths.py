"""Mid-size paths of npusim's element-wise engine and matrix product against NumPy:

* rows (kernels/ops/ew.c, run_rows): a contiguous 2-D result of rows of at most 256 elements
  with a repeated input, each input used in place (row-major), tiled (one row repeated down the
  result) or expanded (one value per row, a column), in blocks of whole rows; every dtype the
  operators take, row counts and lengths around the block sizes, 3-input ``where``, mixed
  dtypes and strided operands (which take the general path);
* element-wise operations and casts split across the CPU pool by bytes (a (1797, 64) float32
  operation is split; odd sizes, non-contiguous views, broadcasting);
* skinny float32 products split into row blocks across the pool (k-means' (1797, 64) @ (64, 10)
  and (10, 1797) @ (1797, 64), transposed views as operands).
"""
import numpy as np
import pytest

import npuarray as npx

ALL_DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
              "float16", "float32", "float64", "complex64", "complex128"]
ROWS = [1, 5, 51, 52, 103, 1797]   # 51 rows of 10 fill one 512-element block
COLS = [1, 2, 3, 7, 10, 15, 16, 33, 64, 200, 256, 257]


def sample(rng, shape, dtype):
    dtype = np.dtype(dtype)
    if dtype == bool:
        return rng.random(shape) < 0.5
    if dtype.kind in "iu":
        return rng.integers(0, 50, size=shape).astype(dtype)
    a = rng.standard_normal(shape) * 8
    if dtype.kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dtype)


def assert_matches(got, want):
    """Exact, except complex products: npusim computes complex64 in complex128 and rounds once,
    NumPy in single precision; complex128 products may differ from NumPy's in the last bit
    (the order of the two products' additions). Within an ULP of each other."""
    got = got.to_host()
    assert got.dtype == want.dtype and got.shape == want.shape
    if got.dtype.kind == "c":
        np.testing.assert_allclose(got, want, rtol=2e-7 if got.dtype == np.complex64 else 4e-16, atol=0)
    else:
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("rows", ROWS)
@pytest.mark.parametrize("cols", COLS)
def test_rows_column_minus_row_and_full(rows, cols, rng):
    """k-means' x_sq (n, 1) - d (n, k) + c_sq (k,), and a column against a row."""
    column = sample(rng, (rows, 1), "float32")
    full = sample(rng, (rows, cols), "float32")
    row = sample(rng, (cols,), "float32")
    c, f, r = npx.asarray(column), npx.asarray(full), npx.asarray(row)
    assert_matches(c - f, column - full)
    assert_matches(f + r, full + row)
    assert_matches(f - c, full - column)
    assert_matches(c * r, column * row)
    assert_matches(r - c, row - column)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("rows,cols", [(1797, 10), (53, 3), (7, 15), (300, 64), (9, 256)])
def test_rows_every_dtype(dtype, rows, cols, rng):
    column = sample(rng, (rows, 1), dtype)
    full = sample(rng, (rows, cols), dtype)
    row = sample(rng, (cols,), dtype)
    c, f, r = npx.asarray(column), npx.asarray(full), npx.asarray(row)
    if dtype == "bool":
        assert_matches(npx.logical_and(c, r), np.logical_and(column, row))
        assert_matches(npx.logical_or(f, c), np.logical_or(full, column))
        return
    assert_matches(c + f, column + full)
    assert_matches(f * r, full * row)
    assert_matches(c == r, column == row)
    if np.dtype(dtype).kind != "c":
        assert_matches(npx.maximum(c, r), np.maximum(column, row))
        assert_matches(f < c, full < column)


@pytest.mark.parametrize("rows", [1, 51, 1797])
def test_rows_one_hot(rows, rng):
    """k-means' one-hot: labels (n, 1) == arange(k), then a float32 cast."""
    labels = rng.integers(0, 10, rows)
    lab = npx.reshape(npx.asarray(labels), (-1, 1))
    one_hot = lab == npx.arange(10)
    assert_matches(one_hot, labels[:, None] == np.arange(10))
    assert_matches(one_hot.astype(npx.float32), (labels[:, None] == np.arange(10)).astype(np.float32))


@pytest.mark.parametrize("rows,cols", [(1797, 10), (5, 64), (99, 7)])
def test_rows_where_three_inputs(rows, cols, rng):
    cond = rng.random((rows, 1)) < 0.5
    a = sample(rng, (rows, cols), "float32")
    b = sample(rng, (cols,), "float32")
    assert_matches(npx.where(npx.asarray(cond), npx.asarray(a), npx.asarray(b)), np.where(cond, a, b))
    assert_matches(npx.where(npx.asarray(cond), npx.asarray(b), 0.5), np.where(cond, b, np.float32(0.5)))


def test_rows_scalars_mixed_dtypes_and_strided_operands(rng):
    """Operands that leave the short-rows path (converted dtypes, strided rows) or reach it with
    a 0-d operand give NumPy's results too."""
    full = sample(rng, (300, 24), "float32")
    column = sample(rng, (300, 1), "int32")
    row = sample(rng, (6,), "float64")
    f, c, r = npx.asarray(full), npx.asarray(column), npx.asarray(row)
    assert_matches(f[:, ::4] + c, full[:, ::4] + column)           # strided rows, int32 column promoted
    assert_matches(f[:, :6] * r, full[:, :6] * row)                 # rows of a wider array
    assert_matches(f[::3, 1:7] - f[::3, :1], full[::3, 1:7] - full[::3, :1])
    assert_matches(f[:, :10] * npx.asarray(np.float32(3.5)), full[:, :10] * np.float32(3.5))
    assert_matches(npx.asarray(column.T.copy()).T - f[:, :5], column - full[:, :5])


def test_rows_in_place_with_overlapping_column(rng):
    """x -= x[:, :1] reads the column before the row overwrites it (as NumPy does)."""
    a = sample(rng, (200, 10), "float64")
    x = npx.asarray(a)
    x -= x[:, :1]
    want = a.copy()
    want -= want[:, :1].copy()
    assert_matches(x, want)


@pytest.mark.parametrize("shape", [(1797, 64), (100003,), (257, 3, 131)])
@pytest.mark.parametrize("dtype", ["int8", "int32", "int64", "uint16", "float16", "float32",
                                   "float64", "complex64"])
def test_split_elementwise_every_dtype(shape, dtype, rng):
    """Operations of a few hundred KiB, split across the pool, in every chunk."""
    a, b = sample(rng, shape, dtype), sample(rng, shape, dtype)
    x, y = npx.asarray(a), npx.asarray(b)
    assert_matches(x * y, a * b)
    assert_matches(x + y, a + b)
    assert_matches(x - 3, a - np.asarray(3).astype(dtype))
    assert_matches(x == y, a == b)
    if np.dtype(dtype).kind == "f":
        assert_matches(x * 2.5, a * np.asarray(2.5, dtype))


@pytest.mark.parametrize("src", ["bool", "int8", "int32", "int64", "uint8", "float16", "float32",
                                 "float64"])
@pytest.mark.parametrize("dst", ["int32", "int64", "float32", "float64", "complex128"])
def test_split_casts(src, dst, rng):
    a = sample(rng, (1797, 64), src)
    if np.dtype(src).kind == "f" and np.dtype(dst).kind in "iu":
        a = np.round(a)   # in range: float -> int of out-of-range values is undefined
    x = npx.asarray(a)
    assert_matches(x.astype(dst), a.astype(dst))
    assert_matches(x[:, ::3].astype(dst), a[:, ::3].astype(dst))   # strided: the general path
    assert_matches(x.T.astype(dst), a.T.astype(dst))


def test_split_non_contiguous_and_broadcast(rng):
    a = sample(rng, (1797, 128), "float32")
    col = sample(rng, (1797, 1), "float32")
    row = sample(rng, (64,), "float32")
    x = npx.asarray(a)
    assert_matches(x[:, ::2] * 2.5, a[:, ::2] * np.float32(2.5))
    assert_matches(x[:, 1::2] + npx.asarray(row), a[:, 1::2] + row)
    assert_matches(x[:, :64] - npx.asarray(col), a[:, :64] - col)
    assert_matches(x.T[::2] * x.T[1::2], a.T[::2] * a.T[1::2])
    assert_matches(x[::-1, :64] * 3.0, a[::-1, :64] * np.float32(3.0))


@pytest.mark.parametrize("m", [1797, 1001, 4099])
def test_skinny_products_split_in_row_blocks(m, rng):
    """(m, 64) @ (64, 10) through a transposed view, and (10, m) @ (m, 64) through one."""
    x = rng.standard_normal((m, 64)).astype(np.float32)
    c = rng.standard_normal((10, 64)).astype(np.float32)
    h = (rng.random((m, 10)) < 0.1).astype(np.float32)
    X, C, H = npx.asarray(x), npx.asarray(c), npx.asarray(h)
    want = x.astype(np.float64) @ c.T.astype(np.float64)
    np.testing.assert_allclose((X @ C.T).to_host(), want, rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(npx.matmul(X, npx.asarray(np.ascontiguousarray(c.T))).to_host(),
                               want, rtol=1e-5, atol=1e-4)
    want_t = h.T.astype(np.float64) @ x.astype(np.float64)
    np.testing.assert_allclose((H.T @ X).to_host(), want_t, rtol=1e-5, atol=1e-4)


def test_skinny_product_float16_and_strided_out_rows(rng):
    x = rng.standard_normal((1797, 64)).astype(np.float16)
    c = rng.standard_normal((10, 64)).astype(np.float16)
    got = (npx.asarray(x) @ npx.asarray(c).T).to_host()
    want = (x.astype(np.float32) @ c.T.astype(np.float32)).astype(np.float16)
    np.testing.assert_allclose(got.astype(np.float32), want.astype(np.float32), rtol=2e-3, atol=2e-2)
    a = rng.standard_normal((3000, 64)).astype(np.float32)
    got = (npx.asarray(a)[::2] @ npx.asarray(c.astype(np.float32)).T).to_host()
    np.testing.assert_allclose(got, a[::2].astype(np.float64) @ c.T.astype(np.float64),
                               rtol=1e-5, atol=1e-4)
