"""Views with negative strides (``x[::-1]``): an aclTensor cannot describe them, so they
are read with one aclnnFlip over every reversed axis and written through the flipped view.
Every result is compared with NumPy's on the same view."""
import numpy as np
import pytest

import npuarray as npx

DTYPES = [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64,
          np.uint64, np.float16, np.float32, np.float64, np.complex64, np.complex128]
VIEWS = [
    (slice(None, None, -1),),
    (slice(None), slice(None, None, -2)),
    (slice(None, None, -1), slice(1, None, 2), slice(None, None, -3)),
    (0, slice(None, None, -1)),
    (slice(None, None, -1), slice(None, None, -1), slice(None, None, -1)),
    (slice(3, 4), slice(None, None, -1)),            # a reversed length-1 axis never steps
]


def _host(dtype, rng, shape=(5, 6, 7)):
    values = rng.integers(0, 100, size=shape)
    if np.dtype(dtype).kind == "c":
        return (values + 1j * rng.integers(0, 100, size=shape)).astype(dtype)
    return values.astype(dtype)


def _launch_names(fn):
    with npx.profile() as profile:
        fn()
    return [record.name for record in profile.records]


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("key", VIEWS, ids=range(len(VIEWS)))
def test_copy_of_a_reversed_view(dtype, key, rng):
    host = _host(dtype, rng)
    view = npx.asarray(host)[key]
    result = view.copy()
    assert result.flags["C_CONTIGUOUS"]
    np.testing.assert_array_equal(result.to_host(), host[key])
    np.testing.assert_array_equal(npx.asarray(view).to_host(), host[key])


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.uint32, np.complex128],
                         ids=lambda d: np.dtype(d).name)
def test_reversed_view_as_an_operand(dtype, rng):
    host = _host(dtype, rng)
    x = npx.asarray(host)
    np.testing.assert_array_equal((x[::-1, :, ::-2] + x[:, ::-1, ::-2]).to_host(),
                                  host[::-1, :, ::-2] + host[:, ::-1, ::-2])
    np.testing.assert_array_equal(npx.sum(x[::-1, ::-1], axis=0).to_host(),
                                  host[::-1, ::-1].sum(axis=0))


def test_copy_of_a_reversed_view_is_one_flip(rng):
    x = npx.asarray(rng.standard_normal((64, 32)).astype(np.float32))
    x[::-1, ::-1].copy().to_host()                  # plans made outside the profile
    names = _launch_names(lambda: x[::-1, ::-1].copy())
    assert names == ["aclnnFlip"]


def test_reversed_source_into_a_plain_destination(rng):
    host, other = (rng.standard_normal((6, 9)) for _ in range(2))
    x, y = npx.asarray(host), npx.asarray(other)
    x[...] = y[::-1]
    expected = other[::-1].copy()
    np.testing.assert_array_equal(x.to_host(), expected)


def test_reversed_source_into_a_reversed_destination(rng):
    host, other = (rng.standard_normal((6, 9)) for _ in range(2))
    expected = host.copy()
    expected[::-1, 1::2] = other[:, ::-2][:, :4]
    x, y = npx.asarray(host), npx.asarray(other)
    x[::-1, 1::2] = y[:, ::-2][:, :4]
    np.testing.assert_array_equal(x.to_host(), expected)


def test_reversed_source_broadcast_into_a_destination(rng):
    host, row = rng.standard_normal((4, 9)), rng.standard_normal(9)
    x = npx.asarray(host)
    x[...] = npx.asarray(row)[::-1]
    np.testing.assert_array_equal(x.to_host(), np.broadcast_to(row[::-1], (4, 9)))


def test_reversed_source_with_a_cast(rng):
    host = rng.standard_normal((5, 8))
    x = npx.zeros((5, 8), dtype=npx.float32)
    x[...] = npx.asarray(host)[::-1, ::-1]
    np.testing.assert_array_equal(x.to_host(), host[::-1, ::-1].astype(np.float32))


def test_reversed_view_of_itself_is_copied_through_a_temporary(rng):
    host = rng.standard_normal((7, 5))
    x = npx.asarray(host)
    x[...] = x[::-1, ::-1]
    np.testing.assert_array_equal(x.to_host(), host[::-1, ::-1])
