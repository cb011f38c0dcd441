"""npuarray._core._shape: broadcasting, axis normalisation and C-order layout against NumPy."""
import numpy as np
import pytest
from hypothesis import given, strategies as st

import npuarray as npx
from npuarray._core import _shape

shapes = st.lists(st.integers(0, 4), max_size=4).map(tuple)


@given(st.lists(shapes, min_size=0, max_size=4))
def test_broadcast_shapes_matches_numpy(arguments):
    try:
        expected = np.broadcast_shapes(*arguments)
    except ValueError:
        with pytest.raises(ValueError, match="could not be broadcast"):
            _shape.broadcast_shapes(*arguments)
        return
    assert _shape.broadcast_shapes(*arguments) == expected
    assert npx.broadcast_shapes(*map(list, arguments)) == expected  # lists are shapes too


@pytest.mark.parametrize("axis, ndim, expected", [(0, 1, 0), (-1, 3, 2), (2, 3, 2), (-3, 3, 0)])
def test_normalize_axis_index(axis, ndim, expected):
    assert _shape.normalize_axis_index(axis, ndim) == expected
    assert _shape.normalize_axis_index(np.int64(axis), ndim) == expected


@pytest.mark.parametrize("axis, ndim", [(1, 1), (-2, 1), (0, 0), (3, 3)])
def test_normalize_axis_index_out_of_range_is_numpys_axis_error(axis, ndim):
    with pytest.raises(np.exceptions.AxisError) as raised:
        _shape.normalize_axis_index(axis, ndim)
    assert isinstance(raised.value, ValueError) and isinstance(raised.value, IndexError)


def test_normalize_axis_tuple_errors():
    assert _shape.normalize_axis_tuple([-1, 0], 2) == (1, 0)
    with pytest.raises(ValueError, match="repeated axis"):
        _shape.normalize_axis_tuple((0, -2), 2)
    with pytest.raises(TypeError, match="integer"):
        _shape.normalize_axis_tuple(1.0, 2)


@given(shapes)
def test_c_strides_are_numpys_in_elements(shape):
    host = np.empty(shape, np.float32)
    expected = tuple(s // host.itemsize for s in host.strides) if host.size else None
    strides = _shape.c_strides(shape)
    assert len(strides) == len(shape)
    if expected is not None:
        assert strides == expected
    assert _shape.is_c_contiguous(shape, strides)


@pytest.mark.parametrize("key", [np.s_[::2], np.s_[:, ::-1], np.s_[1:, :], np.s_[:0, ::3],
                                 np.s_[None, :, 1:2], np.s_[::-1, :0]])
def test_views_are_c_contiguous_exactly_when_numpys_are(rng, key):
    host = rng.standard_normal((4, 6)).astype(np.float32)
    view = npx.asarray(host)[key]
    assert view.is_c_contiguous() == host[key].flags.c_contiguous
