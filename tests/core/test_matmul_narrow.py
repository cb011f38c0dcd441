"""float32 products with 9 to 16 columns of out (k-means' `x @ centroids.T`) run on npusim's
own vector kernel (kernels/ops/matmul.c, column groups of w columns by 16 / w consecutive k)
instead of OpenBLAS. Its results must equal NumPy's for every width it takes, every K (one
group of k, a partial last group, more than the stack buffer holds), any number of rows (the
8-row blocks and the rows left over), transposed, offset and strided operands, and inf / NaN
where NumPy has them."""
import numpy as np
import pytest

import npuarray as npx

RTOL = 1e-5


def assert_close_to_numpy(got, want, k):
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=RTOL * np.sqrt(k) * 8)


@pytest.mark.parametrize("n", [9, 10, 11, 12, 13, 16])
@pytest.mark.parametrize("m,k", [(1797, 64), (1, 1), (7, 3), (8, 5), (9, 63), (37, 300)])
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


@pytest.mark.parametrize("k", [64, 7])
def test_narrow_product_inf_and_nan_where_numpy_has_them(rng, k):
    a = rng.standard_normal((20, k)).astype(np.float32)
    c = rng.standard_normal((11, k)).astype(np.float32)
    a[2, 0] = np.inf
    a[5, k - 1] = np.nan      # in the last (partial) group of k when k is odd
    c[3, :] = 0.0             # inf * 0 = nan in column 3 of row 2 only
    c[7, 1] = -np.inf
    with np.errstate(invalid="ignore"):
        want = a @ c.T
    got = npx.matmul(npx.asarray(a), npx.asarray(c).T).to_host()
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(np.isinf(got), np.isinf(want))
    finite = np.isfinite(want)
    np.testing.assert_allclose(got[finite], want[finite], rtol=RTOL, atol=RTOL * k * 8)
