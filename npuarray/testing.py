"""Test assertions taking NPUArrays or NumPy arrays (``numpy.testing``'s, as
``cupy.testing`` provides them).

The comparison itself is NumPy's: device operands are copied to the host
explicitly (``npuarray.asnumpy``, allowed under any ``transfer_guard``) and
the failure messages are NumPy's. These are test helpers, not array
operations: the arrays compared are read, nothing is computed for the
caller.
"""
import numpy as np

from ._core._transfer import to_host

__all__ = ["assert_allclose", "assert_array_equal", "assert_array_almost_equal",
           "assert_array_less", "assert_equal"]


def _host(value):
    """A device array as a NumPy array (explicit copy); anything else as is."""
    return to_host(value) if hasattr(value, "_buffer") else value


def assert_allclose(actual, desired, rtol=1e-07, atol=0, equal_nan=True, err_msg="",
                    verbose=True, *, strict=False):
    """AssertionError unless ``|actual - desired| <= atol + rtol * |desired|``
    element-wise, shapes broadcasting (``numpy.testing.assert_allclose``;
    ``strict``: shapes and dtypes must also match)."""
    np.testing.assert_allclose(_host(actual), _host(desired), rtol=rtol, atol=atol,
                               equal_nan=equal_nan, err_msg=err_msg, verbose=verbose,
                               strict=strict)


def assert_array_equal(actual, desired, err_msg="", verbose=True, *, strict=False):
    """AssertionError unless the arrays have equal shapes (or broadcast) and
    elements, NaN equal to NaN (``numpy.testing.assert_array_equal``)."""
    np.testing.assert_array_equal(_host(actual), _host(desired), err_msg=err_msg,
                                  verbose=verbose, strict=strict)


def assert_array_almost_equal(actual, desired, decimal=6, err_msg="", verbose=True):
    """AssertionError unless ``|actual - desired| < 1.5 * 10**-decimal``
    (``numpy.testing.assert_array_almost_equal``)."""
    np.testing.assert_array_almost_equal(_host(actual), _host(desired), decimal=decimal,
                                         err_msg=err_msg, verbose=verbose)


def assert_array_less(x, y, err_msg="", verbose=True, *, strict=False):
    """AssertionError unless ``x < y`` element-wise (``numpy.testing.assert_array_less``)."""
    np.testing.assert_array_less(_host(x), _host(y), err_msg=err_msg, verbose=verbose,
                                 strict=strict)


def assert_equal(actual, desired, err_msg="", verbose=True, *, strict=False):
    """AssertionError unless equal, arrays element-wise (``numpy.testing.assert_equal``)."""
    np.testing.assert_equal(_host(actual), _host(desired), err_msg=err_msg, verbose=verbose,
                            strict=strict)
