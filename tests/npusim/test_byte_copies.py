"""aclnnInplaceCopy of 1-byte dtypes between strided views (npusim copies them in one strided
loop, every 8th byte with AVX-512 where the CPU has it): digit planes cut out of int64 words'
bytes, other strides, short runs, strided destinations and broadcast sources, against NumPy."""
import numpy as np
import pytest

import npuarray as npx
from npuarray._core import _manipulation, _ops

RNG = np.random.default_rng(11)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.bool_])
@pytest.mark.parametrize("length", [1, 7, 8, 9, 16, 17, 63, 64, 65, 513])
def test_every_eighth_byte_of_words(dtype, length):
    words = RNG.integers(-2 ** 62, 2 ** 62, (5, length), dtype=np.int64)
    host = words.view(np.uint8).reshape(5, length, 8)
    if dtype is np.bool_:
        host = host & 1
        words = host.view(np.int64).reshape(5, length)   # (bytes of 0 and 1: valid bools)
    source = _manipulation.reshape(npx.asarray(words).view(dtype), (5, length, 8))
    stream = npx.get_current_stream()
    for byte in (0, 3, 7):
        out = _ops.empty((5, length), np.dtype(dtype), source.device, stream)
        _ops.copy_(out, source[..., byte], stream=stream)
        np.testing.assert_array_equal(out.to_host(), host[..., byte].astype(dtype))
    planes = _ops.empty((5, 8, length), np.dtype(dtype), source.device, stream)
    _ops.copy_(planes, _manipulation.moveaxis(source, -1, -2), stream=stream)
    np.testing.assert_array_equal(planes.to_host(), np.moveaxis(host, -1, -2).astype(dtype))


@pytest.mark.parametrize("step_in, step_out", [(2, 1), (3, 2), (1, 3), (8, 3), (5, 5)])
def test_other_strides_and_strided_destinations(step_in, step_out):
    host = RNG.integers(-128, 128, 4000, dtype=np.int8)
    n = 4000 // max(step_in, step_out) - 1
    target = RNG.integers(-128, 128, 4000, dtype=np.int8)
    out = npx.asarray(target)
    _ops.copy_(out[:n * step_out:step_out], npx.asarray(host)[:n * step_in:step_in], stream=npx.get_current_stream())
    target[:n * step_out:step_out] = host[:n * step_in:step_in]
    np.testing.assert_array_equal(out.to_host(), target)


def test_broadcast_source_and_casts_between_byte_dtypes():
    stream = npx.get_current_stream()
    row = RNG.integers(-128, 128, (1, 70), dtype=np.int8)
    out = npx.asarray(np.zeros((6, 70), np.int8))
    _ops.copy_(out, npx.asarray(row), stream=stream)
    np.testing.assert_array_equal(out.to_host(), np.repeat(row, 6, axis=0))
    column = npx.asarray(RNG.integers(-128, 128, (9, 1), dtype=np.int8))
    out = npx.asarray(np.zeros((9, 33), np.int8))
    _ops.copy_(out, column, stream=stream)
    np.testing.assert_array_equal(out.to_host(), np.repeat(column.to_host(), 33, axis=1))
    signed = RNG.integers(-128, 128, (4, 40), dtype=np.int8)
    unsigned = npx.asarray(np.zeros((4, 20), np.uint8))   # int8 -> uint8: a cast, not a byte copy
    _ops.copy_(unsigned, npx.asarray(signed)[:, ::2], stream=stream)
    np.testing.assert_array_equal(unsigned.to_host(), signed[:, ::2].astype(np.uint8))
