"""Indexing against NumPy: basic views, integer arrays, boolean masks, assignment."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import npuarray as npx


def _host(rng, shape, dtype=np.float32):
    return (rng.standard_normal(shape) * 10).astype(dtype)


# -- basic indexing: views --------------------------------------------------------------------

BASIC_KEYS = [
    1, -1, (1, 2), (slice(None), 0), (Ellipsis, 1), (None, 1), (1, None, slice(None, None, -1)),
    (slice(1, 4, 2), Ellipsis, None), (slice(None, None, -2), slice(3, 0, -1), 2), (),
    (Ellipsis,), (0, 0, 0), (slice(10, 20),), (True,), (False, 1),
]


@pytest.mark.parametrize("key", BASIC_KEYS, ids=repr)
def test_basic_keys_are_views(rng, key):
    host = _host(rng, (5, 6, 4))
    x = npx.asarray(host)
    view = x[key]
    assert view.shape == host[key].shape
    assert view._buffer is x._buffer
    np.testing.assert_array_equal(view.to_host(), host[key])


@settings(max_examples=60, deadline=None)
@given(shape=st.lists(st.integers(0, 5), min_size=1, max_size=4), data=st.data())
def test_random_basic_keys(shape, data):
    host = np.random.default_rng().standard_normal(shape)
    entries = []
    for n in shape:
        kind = data.draw(st.sampled_from(["slice", "int", "none", "full"]))
        if kind == "int" and n:
            entries.append(data.draw(st.integers(-n, n - 1)))
        elif kind == "slice":
            entries.append(slice(data.draw(st.one_of(st.none(), st.integers(-7, 7))),
                                 data.draw(st.one_of(st.none(), st.integers(-7, 7))),
                                 data.draw(st.sampled_from([None, 1, 2, 3, -1, -2]))))
        elif kind == "none":
            entries.extend([None, slice(None)])
        else:
            entries.append(slice(None))
    key = tuple(entries)
    x = npx.asarray(host)
    np.testing.assert_array_equal(x[key].to_host(), host[key])
    value = np.random.default_rng().standard_normal(host[key].shape)
    x[key] = value
    host[key] = value
    np.testing.assert_array_equal(x.to_host(), host)


def test_writes_through_views_reach_the_base(rng):
    host = _host(rng, (4, 5))
    x = npx.asarray(host)
    view = x[1:, ::-2]
    view[...] = 3.5
    host[1:, ::-2] = 3.5
    np.testing.assert_array_equal(x.to_host(), host)


@pytest.mark.parametrize("key", [5, -6, (0, 5), (Ellipsis, 0, 4)], ids=repr)
def test_out_of_range_integers_raise_index_error(rng, key):
    x = npx.asarray(_host(rng, (5, 4)))
    with pytest.raises(IndexError):
        x[key]
    with pytest.raises(IndexError):
        x[key] = 1.0
    np.testing.assert_array_equal(x[0].to_host(), x.to_host()[0])  # still usable


@pytest.mark.parametrize("key", [(0, 0, 0), (Ellipsis, Ellipsis), 1.5, "a", (slice(None),) * 3],
                         ids=repr)
def test_malformed_keys_raise_index_error(rng, key):
    with pytest.raises(IndexError):
        npx.asarray(_host(rng, (3, 3)))[key]


# -- advanced indexing: copies ---------------------------------------------------------------

INT_KEYS = [
    [0, 2, 2], [-1, 0], ([1, 0], [2, 3]), (slice(None), [3, 0, 1]), (Ellipsis, [1, -1]),
    ([[0, 1], [2, 3]], slice(1, 3)), (1, slice(None), [0, 2]), (slice(None), 1, [0, 2]),
    ([0, 1], slice(None), [1, 2]), (slice(None, None, -1), [2], None), [],
    (np.array([3, 1]), np.array([[0], [1]])),
]


@pytest.mark.parametrize("key", INT_KEYS, ids=repr)
def test_integer_array_keys(rng, key):
    host = _host(rng, (4, 5, 3))
    x = npx.asarray(host)
    result = x[key]
    expected = host[key]
    assert result.shape == expected.shape
    np.testing.assert_array_equal(result.to_host(), expected)


def test_device_index_arrays(rng):
    host = _host(rng, (6, 4))
    x = npx.asarray(host)
    index = rng.integers(-6, 6, 10)
    np.testing.assert_array_equal(x[npx.asarray(index)].to_host(), host[index])
    index32 = npx.asarray(np.array([[1, 2], [5, 0]], np.int32))
    np.testing.assert_array_equal(x[:, npx.asarray([3, 1])].to_host(), host[:, [3, 1]])
    np.testing.assert_array_equal(x[index32].to_host(), host[np.array([[1, 2], [5, 0]])])


@pytest.mark.parametrize("index", [[0, 6], [-7], np.array([2, 100])], ids=repr)
def test_out_of_range_index_arrays(rng, index):
    host = _host(rng, (6, 2))
    x = npx.asarray(host)
    with pytest.raises(IndexError):
        x[index]
    with pytest.raises(IndexError):
        x[npx.asarray(index)]
    with pytest.raises(IndexError):
        x[npx.asarray(index)] = 0.0
    np.testing.assert_array_equal((x + 0).to_host(), host)  # stream and pool still fine


def test_non_integer_index_arrays_are_rejected(rng):
    x = npx.asarray(_host(rng, (3,)))
    with pytest.raises(IndexError):
        x[npx.asarray([0.0, 1.0])]
    with pytest.raises(IndexError):
        x[np.array([0.5])]
    with pytest.raises(IndexError):
        x[[0, 1], [0, 1, 2]]


@pytest.mark.parametrize("mask_shape, prefix", [
    ((4, 5, 3), ()), ((4,), ()), ((4, 5), ()), ((5,), (slice(None),)), ((5, 3), (Ellipsis,)),
    ((3,), (slice(None), slice(None))), ((5,), (1,)),
], ids=repr)
def test_boolean_masks(rng, mask_shape, prefix):
    host = _host(rng, (4, 5, 3))
    mask = rng.random(mask_shape) < 0.5
    key = prefix + (mask,)
    x = npx.asarray(host)
    expected = host[key]
    for m in (mask, npx.asarray(mask)):
        result = x[prefix + (m,)]
        assert result.shape == expected.shape
        np.testing.assert_array_equal(result.to_host(), expected)


def test_mask_with_other_advanced_indices(rng):
    host = _host(rng, (4, 5))
    mask = np.array([True, False, True, True, False])
    x = npx.asarray(host)
    np.testing.assert_array_equal(x[[0, 2, 3], npx.asarray(mask)].to_host(),
                                  host[[0, 2, 3], mask])
    np.testing.assert_array_equal(x[x > 0].to_host(), host[host > 0])
    none = np.zeros((4, 5), bool)
    assert x[npx.asarray(none)].shape == (0,)


def test_mask_shape_mismatch(rng):
    x = npx.asarray(_host(rng, (4, 5)))
    with pytest.raises(IndexError):
        x[npx.asarray(np.ones(3, bool))]
    with pytest.raises(IndexError):
        x[np.ones((4, 4), bool)]


@pytest.mark.parametrize("dtype", ["float16", "int8", "int64", "bool", "float64", "bfloat16"])
def test_indexing_dtypes(rng, dtype):
    host = (rng.standard_normal((6, 3)) * 20).astype(np.dtype(npx.bfloat16) if
                                                     dtype == "bfloat16" else dtype)
    x = npx.asarray(host)
    np.testing.assert_array_equal(x[[5, 0, 2]].to_host(), host[[5, 0, 2]])
    mask = rng.random(6) < 0.5
    np.testing.assert_array_equal(x[mask].to_host(), host[mask])


# -- assignment -----------------------------------------------------------------------------------

@pytest.mark.parametrize("key, value", [
    ((slice(None), 1), 2.5), (Ellipsis, -1), ((1, slice(None, None, -1)), [1.0, 2.0, 3.0, 4.0]),
    ((slice(None), slice(1, 3)), np.array([[7.0], [8.0], [9.0]])), (0, np.float32(4.0)),
    ((slice(None, None, -1), 0), True),
], ids=repr)
def test_basic_assignment_broadcasts(rng, key, value):
    host = _host(rng, (3, 4))
    x = npx.asarray(host)
    x[key] = value
    host[key] = value
    np.testing.assert_array_equal(x.to_host(), host)


def test_assign_device_arrays_and_overlap(rng):
    host = _host(rng, (5, 4))
    x = npx.asarray(host)
    x[1:] = x[:-1]  # overlapping source and destination
    host[1:] = host[:-1].copy()
    np.testing.assert_array_equal(x.to_host(), host)
    row = _host(rng, (4,)).astype(np.float64)
    x[2] = npx.asarray(row)  # cast on the device
    host[2] = row
    np.testing.assert_array_equal(x.to_host(), host)


def test_assignment_errors(rng):
    x = npx.asarray(_host(rng, (3, 4)))
    with pytest.raises(ValueError):
        x[0] = np.ones(3)
    with pytest.raises(ValueError):
        x[...] = npx.asarray(np.ones((2, 4)))
    with pytest.raises(OverflowError):
        npx.asarray(np.zeros(3, np.int8))[0] = 1000
    x[0, 0] = 1.0
    assert x[0, 0].item() == 1.0


def test_masked_assignment(rng):
    host = _host(rng, (4, 6))
    x = npx.asarray(host)
    mask = host > 0
    x[npx.asarray(mask)] = 0.0
    host[mask] = 0.0
    np.testing.assert_array_equal(x.to_host(), host)
    rows = rng.random(4) < 0.5
    x[rows] = -3
    host[rows] = -3
    np.testing.assert_array_equal(x.to_host(), host)
    values = _host(rng, (int((host < 0).sum()),))
    x[x < 0] = values
    host[host < 0] = values
    np.testing.assert_array_equal(x.to_host(), host)
    x[:, ::-1][:, mask[0]] = 9.0
    host[:, ::-1][:, mask[0]] = 9.0
    np.testing.assert_array_equal(x.to_host(), host)


@pytest.mark.parametrize("key", [[0, 2], ([1, 3], [0, 5]), (slice(None), [4, 1]),
                                 (slice(None, None, -1), [0, 2])], ids=repr)
def test_integer_array_assignment(rng, key):
    host = _host(rng, (4, 6))
    x = npx.asarray(host)
    shape = host[key].shape
    values = _host(rng, shape)
    x[key] = values
    host[key] = values
    np.testing.assert_array_equal(x.to_host(), host)
    x[key] = 5
    host[key] = 5
    np.testing.assert_array_equal(x.to_host(), host)


def test_indexing_on_a_non_default_stream(rng):
    host = _host(rng, (50, 20))
    stream = npx.Stream()
    with stream:
        x = npx.asarray(host)
        picked = x[[49, 0, 7]]
        masked = x[x > 5]
        x[[1, 2]] = 0.0
        result = x.to_host(blocking=False)
    stream.synchronize()
    np.testing.assert_array_equal(picked.to_host(), host[[49, 0, 7]])
    np.testing.assert_array_equal(masked.to_host(), host[host > 5])
    host[[1, 2]] = 0.0
    np.testing.assert_array_equal(result, host)


@st.composite
def _mixed_keys(draw, shape):
    """Keys mixing ints, slices, None, integer arrays and 1-D masks (NumPy's full rules)."""
    entries = []
    for n in shape:
        kind = draw(st.sampled_from(["int", "slice", "array", "mask", "full"]))
        if kind == "int" and n:
            entries.append(draw(st.integers(-n, n - 1)))
        elif kind == "array" and n:
            entries.append(draw(st.lists(st.integers(-n, n - 1), min_size=1, max_size=3)))
        elif kind == "mask":
            entries.append(np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)),
                                    dtype=bool))
        elif kind == "slice":
            entries.append(slice(draw(st.sampled_from([None, 0, 1, -1])), None,
                                 draw(st.sampled_from([None, 2, -1]))))
        else:
            entries.append(slice(None))
        if draw(st.booleans()) and draw(st.booleans()):
            entries.append(None)
    arrays = [e for e in entries if isinstance(e, list)]
    lengths = {len(a) for a in arrays}
    if len(lengths) > 1:  # make integer arrays broadcastable
        size = min(lengths)
        entries = [e[:size] if isinstance(e, list) else e for e in entries]
    return tuple(entries)


@settings(max_examples=80, deadline=None)
@given(data=st.data(), shape=st.lists(st.integers(1, 4), min_size=1, max_size=3))
def test_random_mixed_keys_match_numpy(data, shape):
    host = np.random.default_rng().standard_normal(shape).astype(np.float32)
    key = data.draw(_mixed_keys(shape))
    try:
        expected = host[key]
    except IndexError:
        with pytest.raises(IndexError):
            npx.asarray(host)[key]
        return
    x = npx.asarray(host)
    result = x[key]
    assert result.shape == expected.shape
    np.testing.assert_array_equal(result.to_host(), expected)
    values = np.random.default_rng().standard_normal(expected.shape).astype(np.float32)
    written = host.copy()
    written[key] = values
    target = npx.asarray(host)
    target[key] = values
    # An element selected twice may keep either value (NumPy keeps the last):
    # compare the elements selected at most once.
    selected = np.arange(host.size).reshape(host.shape)[key].ravel()
    positions, counts = np.unique(selected, return_counts=True)
    ambiguous = np.zeros(host.size, bool)
    ambiguous[positions[counts > 1]] = True
    keep = ~ambiguous.reshape(host.shape)
    np.testing.assert_array_equal(target.to_host()[keep], written[keep])


def test_empty_masks_and_index_arrays(rng):
    host = _host(rng, (2, 0))
    x = npx.asarray(host)
    mask = np.zeros((2, 0), bool)
    assert x[mask].shape == host[mask].shape == (0,)
    x[mask] = 1.0
    x[npx.asarray(mask)] = npx.asarray(np.zeros(0, np.float32))
    y = npx.asarray(_host(rng, (3, 2)))
    assert y[[]].shape == (0, 2)
    y[[]] = 5.0
    assert y[np.zeros(3, bool)].shape == (0, 2)


@pytest.mark.parametrize("key", [None, [0, 1], (Ellipsis, 0), (slice(None), [1, 3]),
                                 ([2, 0], [4, 1]), (None, Ellipsis), "mask"],
                         ids=repr)
def test_reading_a_broadcast_view_with_any_key(key):
    # A broadcast view is read-only, but reading it with advanced keys must work (Dask's
    # argwhere indexes such views); writing still raises, as in NumPy.
    host = np.arange(12.0).reshape(3, 4)[:, :1]
    expected_view = np.broadcast_to(host, (3, 5))
    view = npx.broadcast_to(npx.asarray(host), (3, 5))
    if key == "mask":
        key = expected_view > 4
    np.testing.assert_array_equal(view[key].to_host(), expected_view[key])
    with pytest.raises(ValueError, match="read-only"):
        view[key] = 0.0
