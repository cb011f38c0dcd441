"""npusim cuts a medium float matrix product (262144 < M*N*K < 2**27 multiply-adds, K*N at most
262144) into tiles of out of at most 64 columns run on its own thread pool, each small enough for
OpenBLAS to compute on one thread. Results must equal NumPy's for every layout BLAS sees directly
(row-major, transposed A or B, offset views) and for a product that needs packing, at the tile
boundaries too (N a multiple of 64 or not, a last row of tiles shorter than the others)."""
import numpy as np
import pytest

import npuarray as npx

# (M, K, N): a remainder block, one row per block (N*K = 262144 is the limit), many blocks,
# tiles of 64 columns (N a multiple of 64 or not), one column of tiles, K*N past the limit
SHAPES = [(1797, 64, 10), (1000, 512, 512), (3001, 7, 13), (257, 1024, 256), (256, 256, 512),
          (301, 64, 300), (130, 100, 65), (70, 2000, 50), (64, 1024, 512)]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("m,k,n", SHAPES)
def test_blocked_product_matches_numpy(rng, dtype, m, k, n):
    a = rng.standard_normal((m, k)).astype(dtype)
    b = rng.standard_normal((k, n)).astype(dtype)
    rtol = 1e-4 if dtype == "float32" else 1e-12
    got = npx.matmul(npx.asarray(a), npx.asarray(b)).to_host()
    np.testing.assert_allclose(got, a @ b, rtol=rtol, atol=rtol * np.sqrt(k))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_blocked_product_of_transposed_and_offset_views(rng, dtype):
    m, k, n = 1500, 40, 24
    at = rng.standard_normal((k, m + 3)).astype(dtype)   # A = at[:, 3:].T: transposed, offset
    bt = rng.standard_normal((n, k)).astype(dtype)       # B = bt.T: transposed
    x, y = npx.asarray(at)[:, 3:].T, npx.asarray(bt).T
    rtol = 1e-4 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(npx.matmul(x, y).to_host(), at[:, 3:].T @ bt.T, rtol=rtol,
                               atol=rtol * np.sqrt(k))
    strided = npx.asarray(at)[:, ::2].T                  # needs packing
    np.testing.assert_allclose(npx.matmul(strided, y).to_host(), at[:, ::2].T @ bt.T,
                               rtol=rtol, atol=rtol * np.sqrt(k))


def test_batched_blocked_products(rng):
    a = rng.standard_normal((3, 900, 48)).astype(np.float32)
    b = rng.standard_normal((48, 30)).astype(np.float32)
    np.testing.assert_allclose(npx.matmul(npx.asarray(a), npx.asarray(b)).to_host(), a @ b,
                               rtol=1e-4, atol=1e-4 * np.sqrt(48))


def test_product_on_a_stream_then_next_operation(rng):
    a = rng.standard_normal((2000, 64)).astype(np.float32)
    c = rng.standard_normal((10, 64)).astype(np.float32)
    with npx.Stream():
        x, y = npx.asarray(a), npx.asarray(c)
        d = npx.matmul(x, y.T)
        labels = npx.argmin(d, axis=1)
        np.testing.assert_array_equal(labels.to_host(), np.argmin(a @ c.T, axis=1))
    with pytest.raises(ValueError):
        npx.matmul(x, y)
    np.testing.assert_allclose(npx.matmul(y, x.T).to_host(), c @ a.T, rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_tiled_product_of_transposed_operands_into_a_strided_out(rng, dtype):
    m, k, n = 333, 96, 200                                # 64-column tiles, the last 8 wide
    at = rng.standard_normal((k, m)).astype(dtype)       # A = at.T: transposed
    bt = rng.standard_normal((n, k)).astype(dtype)       # B = bt.T: transposed
    rtol = 1e-4 if dtype == "float32" else 1e-12
    with npx.Stream():
        out = npx.zeros((m, n + 5), dtype=dtype)
        npx.matmul(npx.asarray(at).T, npx.asarray(bt).T, out=out[:, 2:n + 2])
        want = np.zeros((m, n + 5), dtype)
        want[:, 2:n + 2] = at.T @ bt.T
        np.testing.assert_allclose(out.to_host(), want, rtol=rtol, atol=rtol * np.sqrt(k))


def test_tiled_product_propagates_inf_and_nan(rng):
    a = rng.standard_normal((300, 128)).astype(np.float32)
    b = rng.standard_normal((128, 150)).astype(np.float32)
    a[7, 3] = np.inf      # row 7: inf where b's row 3 is not zero, nan where it is
    b[3, 140] = 0.0       # in the last tile of columns
    a[250, 100] = np.nan  # a later row of tiles
    with np.errstate(invalid="ignore"):
        want = a @ b
    got = npx.matmul(npx.asarray(a), npx.asarray(b)).to_host()
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(np.isinf(got), np.isinf(want))
    finite = np.isfinite(want)
    np.testing.assert_allclose(got[finite], want[finite], rtol=1e-4, atol=1e-4 * np.sqrt(128))
