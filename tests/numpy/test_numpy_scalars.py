"""Python and NumPy scalars wherever NumPy takes them, against NumPy: results are
device arrays (0-d for all-scalar calls) with NumPy 2's values and dtypes (NEP 50)."""
import numpy as np
import pytest

import npuarray as npx

H = np.arange(6.0)

CASES = {
    "searchsorted-np.int64": lambda m, x: m.searchsorted(x, np.int64(3)),
    "searchsorted-np.float32-right": lambda m, x: m.searchsorted(x, np.float32(2.5), side="right"),
    "searchsorted-float": lambda m, x: m.searchsorted(x, 2.5),
    "isnan-np.float64": lambda m, x: m.isnan(np.float64(1)),
    "sum-np.float64": lambda m, x: m.sum(np.float64(3)),
    "mean-float": lambda m, x: m.mean(3.0),
    "where-scalars": lambda m, x: m.where(True, 1, 2),
    "clip-float": lambda m, x: m.clip(3.0, 0, 1),
    "round-float": lambda m, x: m.round(2.567, 1),
    "sqrt-int": lambda m, x: m.sqrt(4),
    "abs-int": lambda m, x: m.abs(-2),
    "argmax-np.float32": lambda m, x: m.argmax(np.float32(1)),
    "x*np.float32": lambda m, x: x * np.float32(2),
    "np.float32*x": lambda m, x: np.float32(2) * x,
    "x<np.int64": lambda m, x: x < np.int64(3),
    "maximum-np.float32s": lambda m, x: m.maximum(np.float32(1), np.float32(2)),
    "isin-int": lambda m, x: m.isin(3, x),
    "cumsum-float": lambda m, x: m.cumsum(3.0),
    "exp-np.float32": lambda m, x: m.exp(np.float32(1)),
    "power-ints": lambda m, x: m.power(2, 3),
    "divide-ints": lambda m, x: m.divide(2, 3),
    "divide-np.int64": lambda m, x: m.divide(np.int64(7), 2),
    "add-int-float": lambda m, x: m.add(2, 3.5),
    "subtract-np.int8": lambda m, x: m.subtract(np.int8(5), 3),
    "linspace-np.float32": lambda m, x: m.linspace(np.float32(0), np.float32(1), 3),
    "arange-np.int64": lambda m, x: m.arange(np.int64(5)),
    "full-np.float32": lambda m, x: m.full(3, np.float32(2)),
    "zeros-np.int64-shape": lambda m, x: m.zeros(np.int64(3)),
    "reshape-np.int64s": lambda m, x: m.reshape(x, (np.int64(2), np.int64(3))),
    "take-np.int64": lambda m, x: m.take(x, np.int64(2)),
    "var-ddof-np.int64": lambda m, x: m.var(x, ddof=np.int64(1)),
    "sort-axis-np.int64": lambda m, x: m.sort(x, axis=np.int64(0)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_scalars_as_numpy_takes_them(name):
    expected = CASES[name](np, H)
    with npx.transfer_guard("disallow"):  # scalars are operands, not transfers
        got = CASES[name](npx, npx.asarray(H))
    assert isinstance(got, npx.NPUArray)
    assert got.dtype == np.asarray(expected).dtype, (got.dtype, np.asarray(expected).dtype)
    assert got.shape == np.shape(expected)
    np.testing.assert_allclose(got.to_host(), expected, rtol=1e-6)
