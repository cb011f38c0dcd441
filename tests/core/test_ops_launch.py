"""The launch path of npuarray._core._ops: aclTensor and aclScalar caching, the two-phase
call and its errors, copy_ / fill_ / arange_ / cast, and views with negative
strides (which aclTensor cannot describe)."""
import gc

import numpy as np
import pytest

import npuarray as npx
from npuarray._core import _ops
from test_elementwise import BF16, assert_matches, random_array


def up(a):
    return npx.asarray(a)


def test_acl_tensor_is_cached_per_view(rng):
    x = up(random_array(rng, (4, 5), "float32"))
    handle = _ops.acl_tensor(x)
    assert _ops.acl_tensor(x) is handle
    view = x[1:]
    assert _ops.acl_tensor(view) is not handle


def test_acl_tensor_describes_the_view(rng):
    x = up(random_array(rng, (4, 6), "int16"))[1:, ::2]
    handle = _ops.acl_tensor(x)
    lib, ffi = _ops.lib, _ops.ffi
    dims, count = ffi.new("int64_t **"), ffi.new("uint64_t *")
    assert lib.aclGetViewShape(handle, dims, count) == 0
    assert tuple(dims[0][i] for i in range(count[0])) == (3, 3)
    strides = ffi.new("int64_t **")
    assert lib.aclGetViewStrides(handle, strides, count) == 0
    assert tuple(strides[0][i] for i in range(count[0])) == (6, 2)
    offset = ffi.new("int64_t *")
    assert lib.aclGetViewOffset(handle, offset) == 0 and offset[0] == 6
    dtype = ffi.new("aclDataType *")
    assert lib.aclGetDataType(handle, dtype) == 0 and dtype[0] == 6  # ACL_INT16


def test_scalars_are_cached():
    a = _ops.acl_scalar(1, np.dtype(np.float32))
    assert _ops.acl_scalar(1, np.dtype(np.float32)) is a
    assert _ops.acl_scalar(1, np.dtype(np.int32)) is not a
    assert _ops.acl_scalar(True, np.dtype(np.float32)) is not a  # 1 == True, other type
    with pytest.raises(OverflowError):
        _ops.acl_scalar(300, np.dtype(np.int8))


def test_launch_runs_the_operator(rng):
    a, b = random_array(rng, (3, 4), "float32"), random_array(rng, (4,), "float32")
    x, y = up(a), up(b)
    out = _ops.empty((3, 4), np.dtype(np.float32), x._buffer.device, _ops.stream_of(x))
    _ops.launch("aclnnMul", x, y, out)
    assert_matches(out, a * b)
    _ops.launch("aclnnAdd", x, y, _ops.acl_scalar(2.0, np.dtype(np.float32)), out)
    assert_matches(out, a + 2 * b)


def test_launch_errors_carry_the_code_and_message(rng):
    x = up(random_array(rng, (3,), "float32"))
    wrong = up(np.zeros((4,), np.float32))
    with pytest.raises(npx.InvalidValueError) as info:   # out of the wrong shape
        _ops.launch("aclnnAdd", x, x, _ops.acl_scalar(1.0, np.dtype(np.float32)), wrong)
    assert info.value.code == 161002
    assert info.value.api == "aclnnAddGetWorkspaceSize"
    with pytest.raises(npx.NotSupportedError):
        _ops.launch("aclnnNoSuchOperator", x)
    with pytest.raises(TypeError):
        _ops.launch("aclnnArange", _ops.acl_scalar(0, np.dtype(np.int64)), None, None, None)
    out = up(np.zeros((3,), np.float32))
    _ops.launch("aclnnAdd", x, x, _ops.acl_scalar(1.0, np.dtype(np.float32)), out)
    assert_matches(out, 2 * x.to_host())


def test_tensor_handles_die_with_their_arrays(rng):
    x = up(random_array(rng, (8,), "float32"))
    views = [x[i:] for i in range(8)]
    for v in views:
        _ops.acl_tensor(v)
    del views
    gc.collect()
    assert_matches(x + 1.0, x.to_host() + 1)


@pytest.mark.parametrize("src_dtype,dst_dtype", [("float32", "float32"),
                                                 ("float64", "float16"),
                                                 ("int32", "float32"), ("float32", "int16"),
                                                 ("bool", "float64"), ("float32", "bfloat16"),
                                                 ("uint8", "int64"), ("complex64", "complex128")])
def test_copy_converts_dtypes(rng, src_dtype, dst_dtype):
    a = random_array(rng, (5, 4), src_dtype)
    dst = up(np.zeros((5, 4), BF16 if dst_dtype == "bfloat16" else dst_dtype))
    _ops.copy_(dst, up(a))
    assert_matches(dst, a.astype(dst.dtype))


def test_copy_any_strides_and_broadcast(rng):
    a = random_array(rng, (6, 8), "float32")
    row = random_array(rng, (8,), "float32")
    x = up(a)
    _ops.copy_(x[1::2, ::-1], up(row[:3])[None, :].T)      # (3, 1) into (3, 8)
    a[1::2, ::-1] = row[:3][None, :].T
    assert_matches(x, a)
    _ops.copy_(x[::-1], up(row))                       # broadcast into a reversed view
    a[::-1] = row
    assert_matches(x, a)
    with pytest.raises(ValueError):
        _ops.copy_(x, up(np.ones((3,), np.float32)))


def test_copy_between_overlapping_views(rng):
    a = random_array(rng, (10,), "int64")
    x = up(a)
    _ops.copy_(x[1:], x[:-1])
    a[1:] = a[:-1].copy()
    assert_matches(x, a)
    _ops.copy_(x, x[::-1])
    a[:] = a[::-1].copy()
    assert_matches(x, a)


@pytest.mark.parametrize("dtype,value", [("float32", 2.5), ("int8", -3), ("bool", True),
                                         ("bfloat16", 1.5), ("uint64", 2**63 + 5),
                                         ("complex64", 1 - 2j), ("float16", float("inf"))])
def test_fill(dtype, value):
    x = up(np.zeros((3, 5), BF16 if dtype == "bfloat16" else dtype))
    _ops.fill_(x[:, ::-2], value)
    expected = np.zeros((3, 5), x.dtype)
    expected[:, ::-2] = value
    assert_matches(x, expected)


@pytest.mark.parametrize("dtype,start,stop,step", [("int64", 0, 10, 1), ("int32", 5, -7, -3),
                                                   ("float32", 0.5, 3.0, 0.25),
                                                   ("float64", -1.0, 1.0, 0.1)])
def test_arange(dtype, start, stop, step):
    expected = np.arange(start, stop, step, dtype=dtype)
    out = up(np.zeros(expected.shape, dtype))
    _ops.arange_(out, start, stop, step)
    assert_matches(out, expected)


@pytest.mark.parametrize("dst", ["float16", "bfloat16", "int8", "uint32", "bool", "float64",
                                 "complex64"])
def test_cast(rng, dst):
    a = random_array(rng, (4, 3), "float32", low=0, high=100)
    target = BF16 if dst == "bfloat16" else np.dtype(dst)
    result = _ops.cast(up(a)[::-1], target)
    assert_matches(result, a[::-1].astype(target))


def test_negative_strides_are_materialised(rng):
    a = random_array(rng, (5, 6, 3), "float32")
    x = up(a)
    for index in [np.s_[::-1], np.s_[:, ::-2], np.s_[::-2, 1:, ::-1], np.s_[3:4, ::-1]]:
        assert_matches(_ops.copy(x[index]), a[index])
    # a length-1 axis with a negative stride needs no copy
    assert_matches(_ops.copy(x[2::-5]), a[2::-5])


def test_every_declared_aclnn_function_exists_in_npusim():
    if npx.backend().name != "npusim":
        pytest.skip("checks the npusim extension; the loaded backend is " + npx.backend().name)
    import re

    from npuarray import _npusim
    from npuarray._acl._cdef_aclnn import CDEF
    names = re.findall(r"\b(acl\w+)\(", CDEF)
    assert len(names) > 100
    assert [n for n in names if not hasattr(_npusim.lib, n)] == []


def test_copy_between_devices_raises_and_explicit_stream_works(rng):
    a = random_array(rng, (6,), "float32")
    x = up(a)
    if npx.device_count() >= 2:
        with npx.Device(1):
            y = npx.asarray(np.zeros(6, np.float32))
        with pytest.raises(ValueError, match="different devices"):
            _ops.copy_(y, x)
    stream = npx.Stream()
    out = _ops.copy(x, stream=stream)             # work queued on an explicit stream
    stream.synchronize()
    assert_matches(out, a)
