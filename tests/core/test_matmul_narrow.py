"""float32 products with 9 to 16 columns of out (k-means' `x @ centroids.T`) run on npusim's
own vector kernel (kernels/ops/matmul.c: accumulators of 4 columns by 4 k, of columns 8-9 by
8 k, or of 16 columns by one k; blocks of 8 or 6 rows, steps of 8 k); narrower and wider ones on
OpenBLAS. Results must equal NumPy's for every width (1 to 17), every K (less than one step, a
partial last step, more than the stack buffer holds), any number of rows (whole blocks and the
rows left over), transposed, offset, strided and batched operands, zero sizes, and inf / NaN
where NumPy has them."""
import numpy as np
import pytest

import npuarray as npx

RTOL = 1e-5


def assert_close_to_numpy(got, want, k):
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=RTOL * np.sqrt(k) * 8)


@pytest.mark.parametrize("n", range(1, 18))
@pytest.mark.parametrize("m,k", [(1797, 64), (1, 1), (7, 3), (8, 5), (9, 63), (13, 8), (6, 9), (25, 17),
                                 (37, 300)])
def test_narrow_product_matches_numpy(rng, m, k, n):
    a = rng.standard_normal((m, k)).astype(np.float32)
    c = rng.standard_normal((n, k)).astype(np.float32)
    x, y = npx.asarray(a), npx.asarray(c)
    assert_close_to_numpy(npx.matmul(x, y.T).to_host(), a @ c.T, k)          # transposed mat2 (k-means)
    assert_close_to_numpy((x @ npx.asarray(np.ascontiguousarray(c.T))).to_host(), a @ c.T, k)  # row-major


def test_narrow_product_of_offset_and_strided_views(rng):
    wide = rng.standard_normal((500, 80)).astype(np.float32)
    c = rng.standard_normal((12, 70)).astype(np.float32)
    x = npx.asarray(wide)
    # rows of A every 80 elements, starting at an offset
    assert_close_to_numpy(npx.matmul(x[3:, 5:75], npx.asarray(c).T).to_host(), wide[3:, 5:75] @ c.T, 70)
    # a strided A (columns every 2 elements) and a strided mat2
    b = rng.standard_normal((40, 30)).astype(np.float32)
    assert_close_to_numpy(npx.matmul(x[:, :80:2], npx.asarray(b)[:, ::3]).to_host(), wide[:, :80:2] @ b[:, ::3], 40)
    # batches of narrow products
    a3 = rng.standard_normal((3, 50, 16)).astype(np.float32)
    b3 = rng.standard_normal((16, 11)).astype(np.float32)
    assert_close_to_numpy(npx.matmul(npx.asarray(a3), npx.asarray(b3)).to_host(), a3 @ b3, 16)


def test_narrow_product_into_out_and_on_a_stream(rng):
    a = rng.standard_normal((300, 64)).astype(np.float32)
    c = rng.standard_normal((10, 64)).astype(np.float32)
    with npx.Stream():
        x, y = npx.asarray(a), npx.asarray(c)
        out = npx.empty((300, 10), dtype=np.float32)
        npx.matmul(x, y.T, out=out)
        assert_close_to_numpy(out.to_host(), a @ c.T, 64)
        wider = npx.zeros((300, 12), dtype=np.float32)  # out rows every 12 elements
        npx.matmul(x, y.T, out=wider[:, 1:11])
        want = np.zeros((300, 12), np.float32)
        want[:, 1:11] = a @ c.T
        assert_close_to_numpy(wider.to_host(), want, 64)


@pytest.mark.parametrize("n", [9, 10, 11, 12, 16])
@pytest.mark.parametrize("k", [64, 7, 13])
def test_narrow_product_inf_and_nan_where_numpy_has_them(rng, k, n):
    a = rng.standard_normal((20, k)).astype(np.float32)
    c = rng.standard_normal((n, k)).astype(np.float32)
    a[2, 0] = np.inf
    a[5, k - 1] = np.nan      # in the last (partial) group of k when k is odd
    c[3, :] = 0.0             # inf * 0 = nan in column 3 of row 2 only
    c[n - 1, 1] = -np.inf      # in the last column: the pair (n <= 10) or the last quad
    with np.errstate(invalid="ignore"):
        want = a @ c.T
    got = npx.matmul(npx.asarray(a), npx.asarray(c).T).to_host()
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(np.isinf(got), np.isinf(want))
    finite = np.isfinite(want)
    np.testing.assert_allclose(got[finite], want[finite], rtol=RTOL, atol=RTOL * k * 8)


def test_narrow_products_of_zero_size(rng):
    a = rng.standard_normal((0, 64)).astype(np.float32)
    c = rng.standard_normal((10, 64)).astype(np.float32)
    got = npx.matmul(npx.asarray(a), npx.asarray(c).T).to_host()
    assert got.shape == (0, 10) and got.dtype == np.float32
    a0 = rng.standard_normal((30, 0)).astype(np.float32)
    c0 = np.zeros((12, 0), np.float32)
    np.testing.assert_array_equal(npx.matmul(npx.asarray(a0), npx.asarray(c0).T).to_host(), a0 @ c0.T)


def test_narrow_products_in_batches_of_transposed_views(rng):
    a = rng.standard_normal((4, 33, 20)).astype(np.float32)
    c = rng.standard_normal((4, 14, 20)).astype(np.float32)
    got = npx.matmul(npx.asarray(a), npx.matrix_transpose(npx.asarray(c))).to_host()
    assert_close_to_numpy(got, a @ np.swapaxes(c, -1, -2), 20)
    # one mat2 broadcast against a batch, and a transposed A (columns every 33 elements)
    at = rng.standard_normal((2, 20, 33)).astype(np.float32)
    got = npx.matmul(npx.matrix_transpose(npx.asarray(at)), npx.asarray(c[0]).T).to_host()
    assert_close_to_numpy(got, np.swapaxes(at, -1, -2) @ c[0].T, 20)
