"""Black-box acceptance tests of NPUArray, written from docs/design.md:
only the public `npuarray.*` API, every result compared with NumPy."""
import gc
import pickle
import subprocess
import sys
import tempfile

import ml_dtypes
import numpy as np
import pytest

import npuarray as npx

# Subprocesses import the npuarray under test (installed or built in place), never the
# checkout by accident: package_env puts its folder on PYTHONPATH, and they run in a
# temporary folder so the current directory adds nothing to sys.path.
from conftest import package_env  # noqa: E402

NEUTRAL_CWD = tempfile.gettempdir()
ALL_DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
              np.uint64, np.float16, ml_dtypes.bfloat16, np.float32, np.float64, np.complex64,
              np.complex128]
NUMERIC = [d for d in ALL_DTYPES if d is not np.bool_]


def host(x):
    return x.to_host()


def close(actual, expected, dtype=None):
    dtype = np.dtype(dtype or expected.dtype)
    if dtype in (np.float16, ml_dtypes.bfloat16):
        rtol = 2e-2
    elif dtype in (np.float32, np.complex64):
        rtol = 1e-5
    else:
        rtol = 1e-12
    np.testing.assert_allclose(np.asarray(actual, dtype=np.float64 if dtype.kind != "c"
                                          else np.complex128),
                               np.asarray(expected).astype(np.float64 if dtype.kind != "c"
                                                           else np.complex128), rtol=rtol,
                               atol=rtol)


def sample(rng, shape, dtype):
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.integers(0, 2, shape).astype(bool)
    if dtype.kind in "iu":
        return rng.integers(1, 50, shape).astype(dtype)
    if dtype.kind == "c":
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    return rng.uniform(0.5, 3.0, shape).astype(dtype)


# -- attributes and construction ------------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: np.dtype(d).name)
def test_round_trip_every_dtype(rng, dtype):
    a = sample(rng, (3, 5), dtype)
    x = npx.asarray(a)
    assert x.dtype == np.dtype(dtype)
    assert x.shape == (3, 5) and x.ndim == 2 and x.size == 15
    assert x.itemsize == a.itemsize and x.nbytes == a.nbytes and x.strides == a.strides
    out = x.to_host()
    assert out.dtype == a.dtype
    np.testing.assert_array_equal(out, a)


def test_attributes_of_views_match_numpy(rng):
    a = rng.standard_normal((4, 6, 5)).astype(np.float32)
    x = npx.asarray(a)
    for key in [(slice(None, None, -1),), (slice(1, None, 2), 3), (Ellipsis, slice(None, None, -2))]:
        assert x[key].strides == a[key].strides, key
        assert x[key].shape == a[key].shape
    assert x.T.shape == a.T.shape and x.T.strides == a.T.strides
    np.testing.assert_array_equal(host(x.T), a.T)
    np.testing.assert_array_equal(host(x.mT), np.swapaxes(a, -1, -2))


def test_asarray_sources():
    assert host(npx.asarray([[1, 2], [3, 4]])).tolist() == [[1, 2], [3, 4]]
    assert npx.asarray(1.5).shape == ()
    assert npx.asarray(True).dtype == np.bool_
    assert npx.asarray(3).dtype == np.int64
    assert npx.asarray(2j).dtype == np.complex128
    np.testing.assert_array_equal(host(npx.asarray(bytearray(b"\x01\x02"))), [1, 2])
    np.testing.assert_array_equal(host(npx.asarray(memoryview(np.arange(3.0)))), [0, 1, 2])

    class HasArray:
        def __array__(self, dtype=None, copy=None):
            return np.arange(4, dtype=np.int16)
    x = npx.asarray(HasArray())
    assert x.dtype == np.int16 and host(x).tolist() == [0, 1, 2, 3]


def test_asarray_dtype_and_device_keywords():
    x = npx.asarray([1, 2, 3], dtype=np.float32, device=npx.Device(1))
    assert x.dtype == np.float32 and x.device.id == 1
    assert host(x).tolist() == [1.0, 2.0, 3.0]
    y = npx.asarray(x, device=2)
    assert y.device.id == 2 and host(y).tolist() == [1.0, 2.0, 3.0]


def test_asarray_copy_semantics():
    x = npx.asarray(np.arange(4.0))
    assert npx.asarray(x) is x or np.shares_memory(host(npx.asarray(x)), host(x)) is False
    same = npx.asarray(x, copy=False)
    same[0] = 42.0
    assert host(x)[0] == 42.0                 # copy=False: no copy
    other = npx.asarray(x, copy=True)
    other[1] = -1.0
    assert host(x)[1] == 1.0                  # copy=True: independent
    with pytest.raises(ValueError):
        npx.asarray(x, dtype=np.float32, copy=False)   # would need a copy


def test_asarray_numpy_with_copy_false_is_rejected():
    with pytest.raises(ValueError):
        npx.asarray(np.arange(3), copy=False)   # host -> device always copies


def test_asarray_noncontiguous_numpy(rng):
    a = rng.standard_normal((6, 8))[::-2, 1::3]
    np.testing.assert_array_equal(host(npx.asarray(a)), a)


def test_asarray_bad_input():
    with pytest.raises((TypeError, ValueError)):
        npx.asarray([[1, 2], [3]])
    with pytest.raises(TypeError):
        npx.asarray(np.array(["a", "b"]))
    with pytest.raises(TypeError):
        npx.asarray(np.arange(3), dtype=object)


def test_empty_and_zero_size():
    x = npx.asarray(np.zeros((0, 3), np.float32))
    assert x.shape == (0, 3) and x.size == 0
    assert host(x + 1).shape == (0, 3)
    assert float(npx.sum(x)) == 0.0
    assert host(npx.sum(x, axis=0)).tolist() == [0.0, 0.0, 0.0]
    with pytest.raises(ValueError):
        npx.max(x)
    assert len(list(npx.zeros((0,)))) == 0


# -- creation -------------------------------------------------------------------------------

def test_creation_functions():
    assert host(npx.zeros((2, 3), dtype=np.int32)).tolist() == [[0] * 3] * 2
    assert host(npx.ones(4)).dtype == np.float64
    assert host(npx.full((2,), 7, dtype=np.uint8)).tolist() == [7, 7]
    assert npx.full((2,), 1.5).dtype == np.float64
    assert npx.full((2,), True).dtype == np.bool_
    assert npx.full((2,), 3).dtype == np.int64
    assert npx.empty((3, 0)).shape == (3, 0)
    assert npx.zeros(()).shape == ()
    assert npx.zeros(5, device=1).device.id == 1
    base = npx.asarray(np.ones((2, 2), np.float16))
    for fn, val in [(npx.zeros_like, 0), (npx.ones_like, 1)]:
        y = fn(base)
        assert y.dtype == np.float16 and host(y).tolist() == [[val] * 2] * 2
    z = npx.full_like(base, 2.5, dtype=np.float32)
    assert z.dtype == np.float32 and host(z).tolist() == [[2.5, 2.5]] * 2
    assert npx.empty_like(base).shape == (2, 2)


@pytest.mark.parametrize("args,kw", [((5,), {}), ((1, 10, 3), {}), ((10, 1, -3), {}),
                                     ((0.0, 1.0, 0.1), {}), ((5,), {"dtype": np.float32}),
                                     ((3, 3), {}), ((-2.5, 2.5, 0.5), {})])
def test_arange(args, kw):
    expected = np.arange(*args, **kw)
    got = host(npx.arange(*args, **kw))
    assert got.shape == expected.shape
    np.testing.assert_allclose(got, expected)


def test_arange_zero_step_is_value_error():
    with pytest.raises(ValueError):
        npx.arange(0, 10, 0)


# -- transfers ------------------------------------------------------------------------------

def test_to_host_out(rng):
    a = rng.standard_normal((3, 4))
    x = npx.asarray(a)
    out = np.empty((3, 4))
    res = x.to_host(out=out)
    assert res is out
    np.testing.assert_array_equal(out, a)
    with pytest.raises(ValueError):
        x.to_host(out=np.empty((4, 3)))
    with pytest.raises((ValueError, TypeError)):
        x.to_host(out=np.empty((3, 4), np.float32))
    np.testing.assert_array_equal(x.to_host(), a)    # still usable


def test_to_host_noncontiguous_out_is_rejected_cleanly(rng):
    a = rng.standard_normal((3, 4))
    x = npx.asarray(a)
    big = np.zeros((3, 8))
    with pytest.raises(ValueError):       # as CuPy's get(out=): out must be C-contiguous
        x.to_host(out=big[:, ::2])
    assert not big.any()
    with pytest.raises(ValueError):
        x.to_host(out=np.broadcast_to(np.zeros(4), (3, 4)))     # read-only out


def test_asnumpy(rng):
    a = rng.standard_normal(7).astype(np.float32)
    x = npx.asarray(a)
    np.testing.assert_array_equal(npx.asnumpy(x), a)
    out = np.empty(7, np.float32)
    assert npx.asnumpy(x, out=out) is out
    np.testing.assert_array_equal(out, a)
    np.testing.assert_array_equal(npx.asnumpy(a), a)   # NumPy input passes through


def test_to_host_nonblocking_on_stream(rng):
    a = rng.standard_normal((256, 256)).astype(np.float32)
    s = npx.Stream()
    with s:
        x = npx.asarray(a)
        y = x * 2
        h = y.to_host(blocking=False)
    s.synchronize()
    np.testing.assert_array_equal(h, a * 2)


def test_to_host_nonblocking_on_default_stream(rng):
    a = rng.standard_normal(100)
    h = (npx.asarray(a) + 1).to_host(blocking=False)
    npx.default_stream().synchronize()
    np.testing.assert_array_equal(h, a + 1)


def test_to_device(rng):
    a = rng.standard_normal(64)
    x = npx.asarray(a)
    y = x.to_device(npx.Device(5))
    assert y.device.id == 5
    np.testing.assert_array_equal(host(y), a)
    z = x.to_device(1)
    np.testing.assert_array_equal(host(z), a)
    np.testing.assert_array_equal(host(x[::-3].to_device(2)), a[::-3])


def test_array_protocol(rng):
    a = rng.standard_normal((2, 3))
    x = npx.asarray(a)
    np.testing.assert_array_equal(np.asarray(x), a)
    assert np.asarray(x, dtype=np.float32).dtype == np.float32
    assert x.__array__(copy=True).shape == (2, 3)
    with pytest.raises(ValueError):
        x.__array__(copy=False)
    with pytest.raises(ValueError):
        np.asarray(x, copy=False)
    np.testing.assert_array_equal(np.array(x), a)


def test_transfer_guard_context():
    x = npx.asarray([1.0, 2.0])
    with npx.transfer_guard("disallow"):
        with pytest.raises(npx.ImplicitTransferError) as info:
            np.asarray(x)
        assert "to_host" in str(info.value) or "asnumpy" in str(info.value)
        for fn in (bool, float, int):
            with pytest.raises(npx.ImplicitTransferError):
                fn(x[0])
        np.testing.assert_array_equal(x.to_host(), [1.0, 2.0])   # explicit always works
        np.testing.assert_array_equal(npx.asnumpy(x), [1.0, 2.0])
    np.testing.assert_array_equal(np.asarray(x), [1.0, 2.0])


def test_transfer_guard_env_var():
    code = ("import numpy as np, npuarray as npx\n"
            "x = npx.asarray([1.0])\n"
            "try:\n    np.asarray(x)\nexcept npx.ImplicitTransferError:\n    print('raised')\n"
            "print(x.to_host()[0])\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, cwd=NEUTRAL_CWD,
                          env=package_env(NPUARRAY_TRANSFER_GUARD="disallow"))
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["raised", "1.0"]


def test_transfer_guard_is_thread_local():
    import threading
    x = npx.asarray([3.0])
    seen = []
    with npx.transfer_guard("disallow"):
        t = threading.Thread(target=lambda: seen.append(float(x[0])))
        t.start()
        t.join(30)
    assert seen == [3.0]


# -- scalar conversions, repr, iteration -----------------------------------------------------

def test_scalar_conversions():
    assert bool(npx.asarray(True)) is True
    assert bool(npx.asarray([0.0])) is False
    assert int(npx.asarray(7)) == 7 and float(npx.asarray(2.5)) == 2.5
    assert complex(npx.asarray(1 + 2j)) == 1 + 2j
    assert [10, 20, 30][npx.asarray(1)] == 20          # __index__
    with pytest.raises(TypeError):
        [1, 2][npx.asarray(1.0)]
    with pytest.raises((TypeError, ValueError)):
        bool(npx.asarray([1, 2]))
    with pytest.raises(TypeError):
        len(npx.asarray(3))
    assert len(npx.zeros((4, 2))) == 4
    rows = list(npx.asarray(np.arange(6).reshape(3, 2)))
    assert [host(r).tolist() for r in rows] == [[0, 1], [2, 3], [4, 5]]
    with pytest.raises(TypeError):
        iter(npx.asarray(1))


def test_repr_and_str_show_values_and_device():
    x = npx.asarray(np.array([1.5, 2.0]))
    assert "1.5" in repr(x) and "npu:0" in repr(x) or "Device" in repr(x)
    assert "1.5" in str(x)
    assert "2" in repr(npx.asarray(2))


# -- indexing -------------------------------------------------------------------------------

INDEX_KEYS = [0, -1, (1, 2), slice(None, None, -1), slice(5, 0, -2), (Ellipsis, 1),
              (None, slice(1, 3)), (slice(None), None, -1), (1, Ellipsis, None),
              (slice(-100, 100),), ()]


@pytest.mark.parametrize("key", INDEX_KEYS, ids=repr)
def test_basic_indexing_views(rng, key):
    a = rng.standard_normal((6, 5, 4))
    x = npx.asarray(a)
    v = x[key]
    np.testing.assert_array_equal(host(v), a[key])


def test_basic_index_is_view():
    x = npx.zeros((4, 4))
    v = x[1:3, ::-1]
    v[...] = 5
    expected = np.zeros((4, 4))
    expected[1:3, ::-1] = 5
    np.testing.assert_array_equal(host(x), expected)


def test_advanced_indexing_copies(rng):
    a = rng.standard_normal((5, 4))
    x = npx.asarray(a)
    idx = np.array([4, 0, -1])
    np.testing.assert_array_equal(host(x[idx]), a[idx])
    np.testing.assert_array_equal(host(x[npx.asarray(idx)]), a[idx])
    np.testing.assert_array_equal(host(x[[1, 3], 2]), a[[1, 3], 2])
    c = x[idx]
    c[...] = 0
    np.testing.assert_array_equal(host(x), a)                        # copy, not view
    mask = a > 0
    np.testing.assert_array_equal(host(x[mask]), a[mask])
    np.testing.assert_array_equal(host(x[npx.asarray(mask)]), a[mask])


def test_out_of_range_indices():
    x = npx.zeros((3, 4))
    with pytest.raises(IndexError):
        x[3]
    with pytest.raises(IndexError):
        x[0, -5]
    with pytest.raises(IndexError):
        x[0, 0, 0]
    with pytest.raises(IndexError):
        x[np.array([0, 3])]
    with pytest.raises(IndexError):
        x[3] = 1.0
    with pytest.raises(IndexError):
        x[np.zeros(2, bool)]          # mask shape mismatch
    assert host(x + 1).sum() == 12.0   # still usable


def test_setitem_forms(rng):
    a = np.zeros((4, 5), np.float32)
    x = npx.asarray(a)
    row = rng.standard_normal(5).astype(np.float32)
    x[1] = row
    a[1] = row
    x[:, 2] = 3
    a[:, 2] = 3
    x[2:, ::-2] = npx.asarray(np.float32([7, 8, 9]))
    a[2:, ::-2] = np.float32([7, 8, 9])
    x[0, 0] = 1.5
    a[0, 0] = 1.5
    x[[0, 3], 1] = np.float32([4, 5])
    a[[0, 3], 1] = [4, 5]
    x[a > 5] = -1          # boolean mask last: see test_boolean_mask_then_same_size_array_...
    a[a > 5] = -1
    np.testing.assert_array_equal(host(x), a)


def test_setitem_bad_shape_is_value_error():
    x = npx.zeros((3, 4))
    with pytest.raises(ValueError):
        x[0] = np.zeros(3)
    with pytest.raises(ValueError):
        x[...] = npx.zeros((2, 4))


# -- elementwise ----------------------------------------------------------------------------

BINARY = [("add", np.add), ("subtract", np.subtract), ("multiply", np.multiply),
          ("divide", np.divide)]


@pytest.mark.parametrize("name,ref", BINARY)
@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int32, np.int64, np.uint64, np.float16,
                                   ml_dtypes.bfloat16, np.float32, np.float64, np.complex64,
                                   np.complex128], ids=lambda d: np.dtype(d).name)
def test_binary_functions_dtypes(rng, name, ref, dtype):
    a, b = sample(rng, (4, 3), dtype), sample(rng, (3,), dtype)
    got = getattr(npx, name)(npx.asarray(a), npx.asarray(b))
    if np.dtype(dtype) == ml_dtypes.bfloat16:
        expected = ref(a.astype(np.float32), b.astype(np.float32)).astype(dtype)
    else:
        expected = ref(a, b)
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    close(host(got), expected)


def test_bool_arithmetic():
    a = np.array([True, False, True])
    b = np.array([True, True, False])
    x, y = npx.asarray(a), npx.asarray(b)
    assert host(x + y).dtype == np.bool_ or host(x + y).tolist() == (a + b).tolist()
    np.testing.assert_array_equal(host(x == y), a == b)
    np.testing.assert_array_equal(host(x * y), a * b)
    with pytest.raises(TypeError):
        -x


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.complex64,
                                   ml_dtypes.bfloat16], ids=lambda d: np.dtype(d).name)
def test_unary_math(rng, dtype):
    a = sample(rng, (5, 4), dtype)[:, ::-1]
    x = npx.asarray(a)
    f32 = a.astype(np.float32) if np.dtype(dtype) == ml_dtypes.bfloat16 else a
    for fn, ref in [(npx.exp, np.exp), (npx.log, np.log), (npx.sqrt, np.sqrt),
                    (npx.negative, np.negative), (npx.abs, np.abs)]:
        got = fn(x)
        expected = ref(f32)
        if np.dtype(dtype) == ml_dtypes.bfloat16:
            expected = expected.astype(dtype)
        assert got.dtype == expected.dtype, (fn, got.dtype, expected.dtype)
        close(host(got), expected)


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64, np.uint8],
                         ids=lambda d: np.dtype(d).name)
def test_integer_unary(rng, dtype):
    a = rng.integers(-20 if np.dtype(dtype).kind == "i" else 0, 20, 10).astype(dtype)
    x = npx.asarray(a)
    np.testing.assert_array_equal(host(npx.abs(x)), np.abs(a))
    np.testing.assert_array_equal(host(-x), -a)
    np.testing.assert_array_equal(host(+x), a)
    assert host(abs(x)).dtype == dtype


def test_sqrt_log_of_integer_promote_to_float():
    x = npx.asarray(np.array([1, 4, 9], np.int32))
    s = npx.sqrt(x)
    assert s.dtype.kind == "f"
    np.testing.assert_allclose(host(s), [1, 2, 3])


def test_comparisons(rng):
    a = rng.integers(0, 4, (5, 6)).astype(np.int32)
    b = rng.integers(0, 4, (6,)).astype(np.float32)
    x, y = npx.asarray(a), npx.asarray(b)
    for op, fn, ref in [("==", npx.equal, np.equal), ("!=", npx.not_equal, np.not_equal),
                        ("<", npx.less, np.less), ("<=", npx.less_equal, np.less_equal),
                        (">", npx.greater, np.greater), (">=", npx.greater_equal,
                                                         np.greater_equal)]:
        got = fn(x, y)
        assert got.dtype == np.bool_
        np.testing.assert_array_equal(host(got), ref(a, b))
        np.testing.assert_array_equal(host(eval("x %s y" % op)), ref(a, b))
        np.testing.assert_array_equal(host(eval("x %s 2" % op)), ref(a, 2))
        np.testing.assert_array_equal(host(eval("2 %s x" % op)), ref(2, a))


def test_operators_with_python_scalars_keep_array_dtype(rng):
    a = rng.uniform(1, 2, 8).astype(np.float32)
    x = npx.asarray(a)
    cases = [(x + 1, a + np.float32(1)), (1 + x, a + np.float32(1)), (x - 2.5, a - np.float32(2.5)),
             (2.5 - x, np.float32(2.5) - a), (x * 3, a * 3), (3 * x, a * 3),
             (x / 2, a / np.float32(2)), (2 / x, np.float32(2) / a),
             (x ** 2, a ** 2), (2 ** x, np.float32(2) ** a), (x // 0.5, a // np.float32(0.5)),
             (x % 0.7, a % np.float32(0.7)), (-x, -a), (+x, a), (abs(-x), a)]
    for got, expected in cases:
        assert got.dtype == np.float32
        np.testing.assert_allclose(host(got), expected, rtol=1e-5)
    i = npx.asarray(np.arange(1, 6, dtype=np.int8))
    assert (i + 1).dtype == np.int8
    assert (i * 2.0).dtype.kind == "f"
    np.testing.assert_allclose(host(i * 0.5), np.arange(1, 6) * 0.5)
    u = npx.asarray(np.arange(5, dtype=np.uint8))
    assert (u + 1).dtype == np.uint8


def test_python_int_out_of_range_for_dtype():
    u = npx.asarray(np.arange(3, dtype=np.uint8))
    with pytest.raises((OverflowError, ValueError, TypeError)):
        u + 1000


def test_array_api_type_promotion():
    pairs = [(np.int8, np.uint8, np.int16), (np.int32, np.float32, None),
             (np.float16, np.float32, np.float32), (np.uint32, np.int64, np.int64),
             (np.float32, np.complex64, np.complex64), (np.float64, np.complex64, np.complex128),
             (np.bool_, np.int8, np.int8), (np.uint8, np.uint16, np.uint16)]
    for d1, d2, res in pairs:
        x, y = npx.ones(2, dtype=d1), npx.ones(2, dtype=d2)
        if res is None:
            try:
                (x + y).dtype
            except TypeError:
                continue
        else:
            assert (x + y).dtype == res, (d1, d2)
            assert npx.result_type(d1, d2) == res


def test_bfloat16_float16_mix():
    x = npx.ones(3, dtype=ml_dtypes.bfloat16)
    y = npx.ones(3, dtype=np.float16)
    z = x + y
    assert z.dtype == np.float32
    np.testing.assert_array_equal(host(z), [2, 2, 2])


def test_floor_divide_and_remainder_match_numpy_signs(rng):
    a = np.array([7, -7, 7, -7, 0], np.int32)
    b = np.array([2, 2, -2, -2, 3], np.int32)
    x, y = npx.asarray(a), npx.asarray(b)
    np.testing.assert_array_equal(host(x // y), a // b)
    np.testing.assert_array_equal(host(x % y), a % b)
    f, g = a.astype(np.float64) + 0.5, b.astype(np.float64)
    np.testing.assert_allclose(host(npx.asarray(f) // npx.asarray(g)), f // g)
    np.testing.assert_allclose(host(npx.asarray(f) % npx.asarray(g)), f % g)


def test_integer_division_by_zero_does_not_crash():
    x = npx.asarray(np.array([1, 2], np.int32))
    try:
        r = host(x // npx.zeros(2, dtype=np.int32))
        assert r.shape == (2,)
    except (ZeroDivisionError, ValueError, ArithmeticError):
        pass
    assert host(x + 1).tolist() == [2, 3]


def test_true_divide_ints_gives_float():
    x = npx.asarray(np.array([1, 2, 3], np.int32))
    y = x / npx.asarray(np.array([2, 2, 2], np.int32))
    assert y.dtype.kind == "f"
    np.testing.assert_allclose(host(y), [0.5, 1.0, 1.5])


def test_pow(rng):
    a = rng.uniform(0.5, 2, (3, 4))
    b = rng.uniform(-1, 2, (4,))
    np.testing.assert_allclose(host(npx.pow(npx.asarray(a), npx.asarray(b))), a ** b)
    i = np.array([2, 3, 4], np.int64)
    np.testing.assert_array_equal(host(npx.asarray(i) ** 3), i ** 3)
    np.testing.assert_array_equal(host(npx.asarray(i) ** npx.asarray(i)), i ** i)


def test_inplace_operators(rng):
    a = rng.uniform(1, 2, (3, 4)).astype(np.float32)
    x = npx.asarray(a)
    ident = id(x)
    x += 1
    x *= npx.asarray(a[0])
    x -= 0.5
    x /= 2
    x **= 2
    assert id(x) == ident and x.dtype == np.float32
    np.testing.assert_allclose(host(x), (((a + 1) * a[0] - 0.5) / 2) ** 2, rtol=1e-5)


def test_inplace_on_view_writes_through():
    x = npx.zeros((3, 3))
    v = x[:, 1]
    v += 2
    np.testing.assert_array_equal(host(x), [[0, 2, 0]] * 3)


def test_inplace_cannot_upcast():
    x = npx.asarray(np.arange(3, dtype=np.int32))
    with pytest.raises(TypeError):
        x += npx.ones(3, dtype=np.float64)
    with pytest.raises((ValueError, TypeError)):
        y = npx.zeros(3)
        y += npx.zeros((2, 3))       # would broadcast the target
    np.testing.assert_array_equal(host(x), [0, 1, 2])


def test_broadcasting_and_mismatch(rng):
    a = rng.standard_normal((4, 1, 3))
    b = rng.standard_normal((5, 1))
    np.testing.assert_allclose(host(npx.asarray(a) * npx.asarray(b)), a * b)
    np.testing.assert_allclose(host(npx.asarray(a) + npx.asarray(1.0)), a + 1)
    with pytest.raises(ValueError):
        npx.asarray(a) + npx.zeros((2, 4))
    np.testing.assert_allclose(host(npx.asarray(a) - npx.asarray(b)), a - b)  # usable after


def test_mixing_with_numpy_arrays(rng):
    a = rng.standard_normal(4)
    x = npx.asarray(a)
    # as JAX: a NumPy operand is uploaded, on either side (an implicit transfer)
    np.testing.assert_allclose(host(x + a), a + a)
    np.testing.assert_allclose(host(a + x), a + a)
    with npx.transfer_guard("disallow"):
        with pytest.raises(TypeError) as info:  # ImplicitTransferError
            x + a
        assert "asarray" in str(info.value)
        with pytest.raises(TypeError):
            a + x
    np.testing.assert_allclose(host(x + npx.asarray(a)), a + a)


def test_different_devices_value_error_names_both():
    x = npx.ones(3)
    y = npx.ones(3, device=1)
    with pytest.raises(ValueError) as info:
        x + y
    text = str(info.value)
    assert "0" in text and "1" in text
    assert host(x + x).tolist() == [2, 2, 2]


def test_elementwise_on_negative_strides_and_offsets(rng):
    a = rng.standard_normal((7, 9))
    b = rng.standard_normal((9, 7))
    x, y = npx.asarray(a), npx.asarray(b)
    np.testing.assert_allclose(host(x[1::2, ::-3] + y.T[1::2, ::-3]),
                               a[1::2, ::-3] + b.T[1::2, ::-3])
    np.testing.assert_allclose(host(npx.exp(x[::-1, 2:5])), np.exp(a[::-1, 2:5]))


def test_zero_d_operations():
    x = npx.asarray(np.float32(2.0))
    y = x * npx.asarray([1.0, 2.0], dtype=np.float32)
    np.testing.assert_array_equal(host(y), [2.0, 4.0])
    z = x + 1
    assert z.shape == () and float(z) == 3.0


def test_unsupported_dtype_is_type_error():
    x = npx.asarray(np.array([1 + 1j]))
    with pytest.raises(TypeError):
        x < x
    with pytest.raises(TypeError):
        npx.asarray(np.array([1.5])) // npx.asarray(np.array([1 + 1j]))
    assert host(x + x).tolist() == [2 + 2j]


# -- astype and manipulation ----------------------------------------------------------------

@pytest.mark.parametrize("src", ALL_DTYPES, ids=lambda d: np.dtype(d).name)
def test_astype_to_every_dtype(rng, src):
    a = sample(rng, (4, 3), src)[::-1]
    x = npx.asarray(a)
    for dst in ALL_DTYPES:
        if np.dtype(src).kind == "c" and np.dtype(dst).kind != "c":
            continue
        got = x.astype(dst)
        assert got.dtype == np.dtype(dst)
        np.testing.assert_array_equal(host(got), a.astype(dst), err_msg=str((src, dst)))
    assert npx.astype(x, np.float64).dtype == np.float64


def test_astype_copy_false_returns_self_when_same():
    x = npx.ones(3, dtype=np.float32)
    assert x.astype(np.float32, copy=False) is x
    y = x.astype(np.float32)
    y[0] = 5
    assert host(x)[0] == 1.0


def test_reshape_views_and_copies(rng):
    a = rng.standard_normal((4, 6))
    x = npx.asarray(a)
    np.testing.assert_array_equal(host(npx.reshape(x, (3, -1))), a.reshape(3, -1))
    np.testing.assert_array_equal(host(x.reshape(2, 12)), a.reshape(2, 12))
    np.testing.assert_array_equal(host(npx.reshape(x.T, (24,))), a.T.reshape(24))
    with pytest.raises(ValueError):
        npx.reshape(x, (5, 5))
    with pytest.raises(ValueError):
        npx.reshape(x.T, (24,), copy=False)
    np.testing.assert_array_equal(host(npx.reshape(x[::-1], (-1,))), a[::-1].reshape(-1))


def test_manipulation(rng):
    a = rng.standard_normal((2, 1, 3))
    x = npx.asarray(a)
    np.testing.assert_array_equal(host(npx.permute_dims(x, (2, 0, 1))), a.transpose(2, 0, 1))
    np.testing.assert_array_equal(host(npx.expand_dims(x, axis=-1)), np.expand_dims(a, -1))
    np.testing.assert_array_equal(host(npx.expand_dims(x, axis=0)), a[None])
    np.testing.assert_array_equal(host(npx.squeeze(x, axis=1)), a.squeeze(1))
    with pytest.raises(ValueError):
        npx.squeeze(x, axis=0)
    np.testing.assert_array_equal(host(npx.broadcast_to(x, (4, 2, 5, 3))),
                                  np.broadcast_to(a, (4, 2, 5, 3)))
    with pytest.raises(ValueError):
        npx.broadcast_to(x, (3, 1, 3))
    with pytest.raises((ValueError, IndexError)):
        npx.permute_dims(x, (0, 0, 1))


# -- reductions -----------------------------------------------------------------------------

AXES = [None, 0, -1, (0, 2), (-1, -3), ()]


@pytest.mark.parametrize("axis", AXES, ids=repr)
@pytest.mark.parametrize("keepdims", [False, True])
def test_reductions_float(rng, axis, keepdims):
    a = rng.standard_normal((3, 4, 5))[:, ::-1]
    x = npx.asarray(a)
    for fn, ref in [(npx.sum, np.sum), (npx.mean, np.mean), (npx.max, np.max),
                    (npx.min, np.min)]:
        got = fn(x, axis=axis, keepdims=keepdims)
        expected = ref(a, axis=axis, keepdims=keepdims)
        assert got.shape == expected.shape, (fn, got.shape, expected.shape)
        np.testing.assert_allclose(host(got), expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint8, np.int32, np.uint32, np.int64,
                                   np.float16, ml_dtypes.bfloat16, np.float32, np.complex64],
                         ids=lambda d: np.dtype(d).name)
def test_sum_dtype_rules(rng, dtype):
    a = sample(rng, (6, 7), dtype)
    x = npx.asarray(a)
    got = npx.sum(x, axis=0)
    dt = np.dtype(dtype)
    if dt == np.bool_ or dt.kind == "i":
        assert got.dtype == np.int64
    elif dt.kind == "u":
        assert got.dtype == np.uint64
    else:
        assert got.dtype == dt
    close(host(got).astype(np.complex128 if dt.kind == "c" else np.float64),
          a.astype(np.complex128 if dt.kind == "c" else np.float64).sum(0), dt)
    assert npx.sum(x, dtype=np.float64).dtype == np.float64


def test_max_min_argmax_int_and_ties(rng):
    a = np.array([[3, 7, 7, 1], [9, 9, 2, 9]], np.int16)
    x = npx.asarray(a)
    assert host(npx.max(x, axis=1)).tolist() == [7, 9]
    assert npx.max(x).dtype == np.int16
    assert int(npx.argmax(x)) == int(np.argmax(a))
    np.testing.assert_array_equal(host(npx.argmax(x, axis=1)), np.argmax(a, axis=1))
    np.testing.assert_array_equal(host(npx.argmin(x, axis=0)), np.argmin(a, axis=0))
    np.testing.assert_array_equal(host(npx.argmin(x, axis=-1, keepdims=True)),
                                  np.argmin(a, axis=-1, keepdims=True))
    assert npx.argmax(x).dtype == np.int64


def test_argmax_on_view_and_nan():
    a = np.array([1.0, np.nan, 3.0, 2.0])
    x = npx.asarray(a)
    assert int(npx.argmax(x)) == np.argmax(a)    # NumPy: first NaN wins
    assert np.isnan(float(npx.max(x)))
    b = np.arange(12.0).reshape(3, 4)[::-1, ::-2]
    np.testing.assert_array_equal(host(npx.argmax(npx.asarray(b), axis=0)), np.argmax(b, 0))


def test_reduction_bad_axis():
    x = npx.zeros((2, 3))
    with pytest.raises((ValueError, IndexError)):
        npx.sum(x, axis=2)
    with pytest.raises((ValueError, IndexError)):
        npx.sum(x, axis=(0, 0))
    with pytest.raises((ValueError, IndexError)):
        npx.argmax(x, axis=-3)
    assert float(npx.sum(x + 1)) == 6.0


def test_mean_of_int_is_type_error_or_float():
    x = npx.asarray(np.arange(4, dtype=np.int32))
    try:
        m = npx.mean(x)
        assert float(m) == 1.5
    except TypeError:
        pass


def test_reduction_methods():
    a = np.arange(12.0).reshape(3, 4)
    x = npx.asarray(a)
    assert float(x.sum()) == a.sum()
    np.testing.assert_array_equal(host(x.max(axis=0)), a.max(0))
    np.testing.assert_array_equal(host(x.mean(axis=1, keepdims=True)), a.mean(1, keepdims=True))
    assert int(x.argmin()) == 0


# -- matmul ---------------------------------------------------------------------------------

MATMUL_SHAPES = [((3,), (3,)), ((3,), (3, 4)), ((2, 3), (3,)), ((2, 3), (3, 4)),
                 ((5, 2, 3), (3, 4)), ((2, 1, 2, 3), (5, 3, 4)), ((0, 3), (3, 2)),
                 ((2, 0), (0, 3))]


@pytest.mark.parametrize("sa,sb", MATMUL_SHAPES, ids=repr)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.float16,
                                   ml_dtypes.bfloat16], ids=lambda d: np.dtype(d).name)
def test_matmul(rng, sa, sb, dtype):
    a, b = sample(rng, sa, dtype), sample(rng, sb, dtype)
    got = npx.matmul(npx.asarray(a), npx.asarray(b))
    if np.dtype(dtype) == ml_dtypes.bfloat16:
        expected = np.matmul(a.astype(np.float32), b.astype(np.float32)).astype(dtype)
    else:
        expected = np.matmul(a, b)
    assert got.shape == expected.shape and got.dtype == expected.dtype
    close(host(got), expected, dtype)
    close(host(npx.asarray(a) @ npx.asarray(b)), expected, dtype)


def test_matmul_noncontiguous_and_errors(rng):
    a = rng.standard_normal((6, 8))
    b = rng.standard_normal((6, 5))
    x, y = npx.asarray(a), npx.asarray(b)
    np.testing.assert_allclose(host(x.T @ y[::-1]), a.T @ b[::-1])
    np.testing.assert_allclose(host(x[::2, ::-1].T @ y[::2]), a[::2, ::-1].T @ b[::2])
    with pytest.raises(ValueError):
        x @ y
    with pytest.raises(ValueError):
        npx.matmul(npx.asarray(1.0), x)
    m = x.T.astype(np.float32)
    m2 = m.copy() if hasattr(m, "copy") else m
    m2 @= npx.ones((6, 6), dtype=np.float32)
    np.testing.assert_allclose(host(m2), a.T.astype(np.float32) @ np.ones((6, 6), np.float32),
                               rtol=1e-5)


# -- streams, pools, errors -----------------------------------------------------------------

def test_two_streams_compute_concurrently(rng):
    a = rng.standard_normal((128, 128)).astype(np.float32)
    b = rng.standard_normal((128, 128)).astype(np.float32)
    s1, s2 = npx.Stream(), npx.Stream()
    with s1:
        r1 = npx.asarray(a) @ npx.asarray(b) + 1
    with s2:
        r2 = npx.sum(npx.asarray(b) * 2, axis=0)
    np.testing.assert_allclose(r1.to_host(), a @ b + 1, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(r2.to_host(), (b * 2).sum(0), rtol=1e-4, atol=1e-4)


def test_array_made_on_stream_read_on_default(rng):
    a = rng.standard_normal(1 << 16)
    with npx.Stream():
        x = npx.asarray(a) * 3
    np.testing.assert_array_equal(np.asarray(x), a * 3)
    np.testing.assert_array_equal(host(x + 1), a * 3 + 1)


def test_memory_pool_stats_and_reuse():
    pool = npx.get_default_memory_pool()
    # Arrays left in reference cycles by earlier tests would be freed by a collection
    # the allocations below may trigger, changing used_bytes under the test's feet.
    gc.collect()
    gc.disable()
    try:
        _check_pool_stats_and_reuse(pool)
    finally:
        gc.enable()


def _check_pool_stats_and_reuse(pool):
    npx.synchronize()
    used0 = pool.used_bytes()
    x = npx.empty(1 << 20, dtype=np.uint8)
    assert pool.used_bytes() >= used0 + (1 << 20)
    assert pool.total_bytes() >= pool.used_bytes()
    del x
    assert pool.used_bytes() == used0
    total = pool.total_bytes()
    y = npx.empty(1 << 20, dtype=np.uint8)       # reuses the cached block
    assert pool.total_bytes() == total
    del y
    pool.free_all_blocks()
    assert pool.total_bytes() == pool.used_bytes()


def test_memory_pool_limit():
    pool = npx.get_default_memory_pool(3)
    pool.set_limit(4 << 20)
    try:
        with npx.Device(3):
            a = npx.empty(3 << 20, dtype=np.uint8)
            with pytest.raises(npx.OutOfMemoryError) as info:
                npx.empty(3 << 20, dtype=np.uint8)
            assert isinstance(info.value, MemoryError)
            clone = pickle.loads(pickle.dumps(info.value))
            assert type(clone) is type(info.value)
            del a
            b = npx.ones(3 << 20, dtype=np.uint8)     # freed + retried
            h = b.to_host()
            assert h.shape == (3 << 20,) and h.all()
    finally:
        pool.set_limit(0)


def test_memory_limit_env_var():
    code = ("import numpy as np, npuarray as npx\n"
            "try:\n    npx.empty(2 << 20, dtype=np.uint8)\n"
            "except npx.OutOfMemoryError:\n    print('oom')\n"
            "print(int(npx.sum(npx.ones(1000, dtype=np.uint8))))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, cwd=NEUTRAL_CWD,
                          env=package_env(NPUARRAY_MEMORY_LIMIT=str(1 << 20)))
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["oom", "1000"]


def test_errors_leave_stream_usable_on_non_default_stream(rng):
    a = rng.standard_normal(10)
    with npx.Stream() as s:
        x = npx.asarray(a)
        with pytest.raises(ValueError):
            x + npx.zeros(3)
        with pytest.raises(IndexError):
            x[10]
        y = x * 2
    s.synchronize()
    np.testing.assert_array_equal(y.to_host(), a * 2)


def test_dlpack_device():
    x = npx.ones(3, device=2)
    assert tuple(x.__dlpack_device__()) == (12, 2)


def test_dlpack_to_numpy_copy():
    x = npx.asarray(np.arange(4.0))
    h = np.from_dlpack(_CPUView(x))
    np.testing.assert_array_equal(h, np.arange(4.0))


class _CPUView:
    """Wraps an NPUArray to hand NumPy a CPU DLPack capsule (dl_device=(kDLCPU, 0))."""

    def __init__(self, x):
        self.x = x

    def __dlpack__(self, **kw):
        kw["dl_device"] = (1, 0)
        return self.x.__dlpack__(**kw)

    def __dlpack_device__(self):
        return (1, 0)


def test_numpy_functions_on_npuarray_dispatch_or_convert():
    x = npx.asarray(np.arange(4.0))
    r = np.sum(x)
    assert float(r) == 6.0


def test_kmeans_style_pipeline(rng):
    data = rng.standard_normal((200, 8)).astype(np.float32)
    cent = data[:5].copy()
    x, c = npx.asarray(data), npx.asarray(cent)
    d = npx.sum(x * x, axis=1, keepdims=True) - 2 * (x @ c.T) + npx.sum(c * c, axis=1)
    labels = npx.argmin(d, axis=1)
    ref = ((data[:, None, :] - cent[None]) ** 2).sum(-1).argmin(1)
    assert (host(labels) == ref).mean() > 0.99
    onehot = (labels[:, None] == npx.arange(5)).astype(np.float32)
    counts = npx.sum(onehot, axis=0)
    assert host(counts).sum() == 200
    new = (onehot.T @ x) / counts[:, None]
    ref_oh = (ref[:, None] == np.arange(5)).astype(np.float32)
    np.testing.assert_allclose(host(new), (ref_oh.T @ data) / ref_oh.sum(0)[:, None],
                               rtol=1e-4, atol=1e-5)


# -- found by probing: state left behind by one operation must not leak into the next -------

def run_fresh(code):
    """Runs `code` in a fresh interpreter (a deterministic pool and caches); returns stdout."""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, cwd=NEUTRAL_CWD, env=package_env())
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_boolean_mask_then_same_size_array_is_correct():
    """Regression: aclnnMaskedSelect rewrites its out aclTensor's view shape; a cached
    descriptor must not leak that into the next array on the recycled block."""
    out = run_fresh("import numpy as np, npuarray as npx\n"
                    "a = npx.asarray(np.arange(8.0))\n"
                    "sel = a[a > 4.5]\n"
                    "assert sel.to_host().tolist() == [5.0, 6.0, 7.0]\n"
                    "del sel\n"
                    "print(npx.full(8, 7.0).to_host().tolist())\n")
    assert out.strip() == str([7.0] * 8)


def test_boolean_mask_then_same_size_arithmetic_and_reversed_index():
    out = run_fresh("import numpy as np, npuarray as npx\n"
                    "a = npx.asarray(np.arange(5.0))\n"
                    "print(a[a > 1.5].to_host().tolist())\n"
                    "y = npx.asarray(np.arange(5.0))\n"
                    "print((y * 2).to_host().tolist())\n"
                    "x = npx.zeros(5, dtype=np.int64)\n"
                    "x[np.array([1, 1, 2])] = npx.asarray([1, 2, 3])\n"
                    "print(npx.arange(10)[::-2][[0, 1]].to_host().tolist())\n")
    assert out.split("\n")[:3] == [str([2.0, 3.0, 4.0]), str([0.0, 2.0, 4.0, 6.0, 8.0]),
                                    str([9, 7])]


def test_broadcast_view_is_read_only():
    base = npx.zeros(2)
    view = npx.broadcast_to(base, (3, 2))
    with pytest.raises(ValueError):
        view[0] = npx.asarray([1.0, 2.0])
    with pytest.raises(ValueError):
        view += 1
    np.testing.assert_array_equal(base.to_host(), [0.0, 0.0])


# -- overlap, staging, ordering ---------------------------------------------------------------

def test_overlapping_assignments_match_numpy():
    a = np.arange(10.0)
    for op in ("x[1:] += x[:-1]", "x[1:] = x[:-1]", "x[:] = x[::-1]", "x[::-1] += x",
               "x[:-2] = x[2:]"):
        x = npx.asarray(a)
        ref = a.copy()
        exec(op, {}, {"x": x})
        exec(op, {}, {"x": ref})
        np.testing.assert_array_equal(x.to_host(), ref, err_msg=op)


def test_async_upload_and_setitem_are_staged(rng):
    import time
    a = rng.standard_normal(1 << 18)
    orig = a.copy()
    s = npx.Stream()
    with s:
        s.launch_host_func(lambda: time.sleep(0.15))
        x = npx.asarray(a)
        a[:] = 0                     # the caller may reuse its pageable buffer at once
    np.testing.assert_array_equal(x.to_host(), orig)
    a = orig.copy()
    y = npx.zeros(a.shape)
    with s:
        s.launch_host_func(lambda: time.sleep(0.15))
        y[...] = a
        a[:] = 0
    np.testing.assert_array_equal(y.to_host(), orig)


def test_cross_stream_consumer_waits_for_producer(rng):
    import time
    a = rng.standard_normal(1 << 18).astype(np.float32)
    s1, s2 = npx.Stream(), npx.Stream()
    with s1:
        s1.launch_host_func(lambda: time.sleep(0.2))
        x = npx.asarray(a) * 2
    with s2:
        y = x + 1
    s2.synchronize()
    np.testing.assert_array_equal(y.to_host(stream=s2), a * 2 + 1)


def test_pool_block_not_reused_while_another_stream_reads_it(rng):
    import time
    a = rng.standard_normal(1 << 16).astype(np.float32)
    s1, s2 = npx.Stream(), npx.Stream()
    for _ in range(3):
        src = npx.asarray(a)
        npx.synchronize()
        with s1:
            s1.launch_host_func(lambda: time.sleep(0.1))
            out = src * 1              # reads src later
        del src
        with s2:
            npx.full(a.shape, -1.0, dtype=np.float32)   # must not get src's block early
        np.testing.assert_array_equal(out.to_host(), a)


def test_nonblocking_to_host_returns_pinned_array(rng):
    import time
    a = rng.standard_normal(1000)
    s = npx.Stream()
    with s:
        s.launch_host_func(lambda: time.sleep(0.05))
        h = (npx.asarray(a) + 5).to_host(blocking=False)
    assert npx.is_pinned(h)
    s.synchronize()
    np.testing.assert_array_equal(h, a + 5)
    h2 = npx.asnumpy(npx.asarray(a), stream=s, blocking=False)
    s.synchronize()
    np.testing.assert_array_equal(h2, a)


def test_to_host_on_stream_of_other_device_is_value_error():
    x = npx.ones(3)
    with pytest.raises(ValueError):
        x.to_host(stream=npx.Stream(1))


def test_device_context_places_new_arrays_and_ops_follow_data():
    with npx.Device(1):
        assert npx.asarray([1]).device.id == 1
        assert npx.arange(3).device.id == 1
        assert npx.zeros(2).device.id == 1
        assert npx.default_stream().device.id == 1
    e = npx.ones((2, 2), device=1)
    for r in (e + e, npx.sum(e), e @ e, npx.exp(e)):
        assert r.device.id == 1
    np.testing.assert_array_equal((e @ e).to_host(), np.full((2, 2), 2.0))


@pytest.mark.parametrize("fn", ["matmul", "equal", "pow", "iadd"])
def test_device_mismatch_every_binary_form(fn):
    x0, x1 = npx.ones((2, 2)), npx.ones((2, 2), device=1)
    with pytest.raises(ValueError):
        if fn == "iadd":
            x0 += x1
        else:
            getattr(npx, fn)(x0, x1)
    np.testing.assert_array_equal(x0.to_host(), np.ones((2, 2)))


def test_transfer_guard_covers_every_implicit_conversion():
    x = npx.asarray([1.0, 2.0])
    with npx.transfer_guard("disallow"):
        for fn in (complex, lambda v: [1, 2, 3][npx.asarray(1)]):
            with pytest.raises(npx.ImplicitTransferError):
                fn(x[0] if fn is complex else x)
        assert len(x) == 2                          # no transfer needed
        assert all(v.shape == () for v in list(x))  # iteration yields device arrays
        assert x.tolist() == [1.0, 2.0]             # explicit
        assert x[1].item() == 2.0                   # explicit
        y = npx.asarray([3.0]) + 1                  # uploads are not guarded
        np.testing.assert_array_equal(y.to_host(), [4.0])
    with pytest.raises(ValueError):
        with npx.transfer_guard("bogus"):
            pass


def test_implicit_transfer_error_pickles():
    x = npx.asarray(1.0)
    with npx.transfer_guard("disallow"):
        with pytest.raises(npx.ImplicitTransferError) as info:
            float(x)
    clone = pickle.loads(pickle.dumps(info.value))
    assert type(clone) is type(info.value) and str(clone) == str(info.value)


def test_oom_error_has_requested_and_limit():
    pool = npx.get_default_memory_pool(2)
    pool.set_limit(1 << 20)
    try:
        with npx.Device(2):
            with pytest.raises(npx.OutOfMemoryError) as info:
                npx.empty(2 << 20, dtype=np.uint8)
        err = info.value
        assert err.code == 207001
        assert err.requested >= 2 << 20 and err.limit == 1 << 20
        clone = pickle.loads(pickle.dumps(err))
        assert (clone.requested, clone.limit) == (err.requested, err.limit)
    finally:
        pool.set_limit(0)
    with pytest.raises(ValueError):
        pool.set_limit(-1)


# -- indexing corners -----------------------------------------------------------------------

ADV_KEYS = [(slice(None), [0, 2], slice(1, 3)), ([0, 1], slice(None), [1, 2]),
            (np.array([[0], [1]]), np.array([1, 2, 0])), (np.arange(6).reshape(2, 3) % 2 == 0,),
            ([-1, -2],), (np.array([], dtype=np.int64),), (np.array([1, 0], dtype=np.uint8),),
            (True,), (False,), (Ellipsis, [3, 0])]


@pytest.mark.parametrize("key", ADV_KEYS, ids=repr)
def test_advanced_indexing_corners(key):
    a = np.arange(24).reshape(2, 3, 4)
    np.testing.assert_array_equal(npx.asarray(a)[key].to_host(), a[key])


def test_bad_index_types():
    x = npx.arange(5)
    with pytest.raises(IndexError):
        x[1.0]
    with pytest.raises(IndexError):
        x[np.array([1.0])]
    with pytest.raises(IndexError):
        x[..., ...]
    with pytest.raises(ValueError):
        x[::0]
    with pytest.raises(IndexError):
        npx.asarray(3)[0]


def test_setitem_advanced_and_mask_values():
    y = npx.zeros(5, dtype=np.int32)
    y[:] = npx.asarray([1.7] * 5)                 # same-kind cast on assignment, as NumPy
    np.testing.assert_array_equal(y.to_host(), np.int32([1] * 5))
    z = npx.zeros(5)
    z[:2] = [1, 2]
    np.testing.assert_array_equal(z.to_host(), [1, 2, 0, 0, 0])
    x = npx.zeros(5)      # boolean mask last: see test_boolean_mask_then_same_size_array_...
    x[npx.asarray([True, False, True, False, True])] = npx.asarray([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(x.to_host(), [1, 0, 2, 0, 3])


# -- numerical corners ----------------------------------------------------------------------

def test_nan_and_inf_semantics_match_numpy():
    a = np.array([[1.0, np.nan, 0.0], [2.0, 3.0, np.nan]])
    x = npx.asarray(a)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(npx.max(x, axis=1).to_host(), a.max(1))
        np.testing.assert_array_equal(npx.min(x, axis=0).to_host(), a.min(0))
        np.testing.assert_array_equal(npx.argmin(x, axis=1).to_host(), a.argmin(1))
        np.testing.assert_array_equal(npx.argmax(x, axis=0).to_host(), a.argmax(0))
        np.testing.assert_array_equal((x == x).to_host(), a == a)
        f = np.array([1.0, -1.0, 0.0])
        np.testing.assert_array_equal((npx.asarray(f) // 0.0).to_host(), f // 0.0)
        np.testing.assert_array_equal((npx.asarray(f) % 0.0).to_host(), f % 0.0)
        np.testing.assert_array_equal(npx.log(npx.asarray([-1.0, 0.0])).to_host(),
                                      np.log([-1.0, 0.0]))


def test_integer_wraparound_matches_numpy():
    np.testing.assert_array_equal((npx.asarray(np.int8([127])) + 1).to_host(), np.int8([-128]))
    np.testing.assert_array_equal((npx.asarray(np.uint8([0])) - 1).to_host(), np.uint8([255]))
    np.testing.assert_array_equal((npx.asarray(np.int8([2])) ** 8).to_host(), np.int8([0]))
    np.testing.assert_array_equal((npx.asarray(np.int64([-7])) % 3).to_host(), [2])
    with pytest.raises(ValueError):
        npx.asarray(np.int32([2])) ** -1
    assert int(npx.sum(npx.full(1000, 100, dtype=np.int8))) == 100000


def test_complex_math(rng):
    z = (rng.standard_normal(20) + 1j * rng.standard_normal(20))
    x = npx.asarray(z)
    np.testing.assert_allclose(npx.exp(x).to_host(), np.exp(z))
    np.testing.assert_allclose(npx.log(x).to_host(), np.log(z))
    np.testing.assert_allclose(npx.sqrt(x).to_host(), np.sqrt(z))
    np.testing.assert_allclose((x / x[::-1]).to_host(), z / z[::-1])
    np.testing.assert_allclose((x ** (0.5 + 1j)).to_host(), z ** (0.5 + 1j))
    np.testing.assert_allclose(npx.mean(x).to_host(), z.mean())
    assert npx.abs(npx.asarray(z.astype(np.complex64))).dtype == np.float32


def test_large_strided_operations_split_across_threads(rng):
    a = rng.standard_normal((700, 900)).astype(np.float32)
    b = rng.standard_normal((900, 700)).astype(np.float32)
    x, y = npx.asarray(a), npx.asarray(b)
    np.testing.assert_allclose((x[::-1, 1::2] + y.T[::-1, 1::2]).to_host(),
                               a[::-1, 1::2] + b.T[::-1, 1::2])
    np.testing.assert_allclose(npx.sum(x[:, ::-3], axis=0).to_host(), a[:, ::-3].sum(0),
                               rtol=1e-4, atol=1e-4)
    np.testing.assert_array_equal(npx.argmin(x[::-1, ::7], axis=1).to_host(),
                                  a[::-1, ::7].argmin(1))
    np.testing.assert_allclose((x[::-2] @ y[:, ::3]).to_host(), a[::-2] @ b[:, ::3],
                               rtol=1e-4, atol=1e-3)


def test_casts_of_special_values_match_numpy():
    for src, dst in [([0.0, -0.0, np.nan, 0.1], bool), ([0j, 1j], bool),
                     ([-1.5, 2.9, 200.7], np.uint8), ([1.9, -1.9], np.int32)]:
        a = np.array(src)
        np.testing.assert_array_equal(npx.asarray(a).astype(dst).to_host(), a.astype(dst))


def test_numpy_operand_is_uploaded_implicitly_and_ufuncs_dispatch():
    x = npx.asarray(np.arange(3.0))
    r = np.exp(x)
    assert isinstance(r, npx.NPUArray)
    np.testing.assert_allclose(r.to_host(), np.exp(np.arange(3.0)))
    np.testing.assert_array_equal((x == [0, 1, 5]).to_host(), [True, True, False])
    with npx.transfer_guard("disallow"), pytest.raises(npx.ImplicitTransferError):
        x == [0, 1, 2]


# float32 ... bool have aclnnInplaceMaskedFillScalar; float64, uint and complex take the
# aclnnSWhere path.
@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.int8, np.float16, np.bool_,
                                   np.float64, np.uint8, np.uint32, np.complex64],
                         ids=lambda d: np.dtype(d).name)
def test_mask_assignment_of_scalar_every_dtype(dtype):
    out = run_fresh("import numpy as np, npuarray as npx\n"
                    "x = npx.zeros(4, dtype=np.%s)\n"
                    "x[npx.asarray([True, False, True, False])] = 1\n"
                    "print(x.to_host().tolist())\n" % np.dtype(dtype).name)
    assert out.strip() == str(np.array([1, 0, 1, 0], dtype=dtype).tolist())


@pytest.mark.parametrize("dtype", [np.uint16, np.uint32, np.uint64, np.complex64, np.complex128],
                         ids=lambda d: np.dtype(d).name)
def test_integer_array_assignment_every_dtype(dtype):
    x = npx.zeros(4, dtype=dtype)
    x[np.array([0, 2])] = 5
    np.testing.assert_array_equal(x.to_host(), np.array([5, 0, 5, 0], dtype=dtype))


@pytest.mark.parametrize("dtype", [np.uint16, np.uint32, np.uint64], ids=lambda d: np.dtype(d).name)
def test_arange_unsigned(dtype):
    got = npx.arange(1, 7, 2, dtype=dtype)
    assert got.dtype == dtype
    np.testing.assert_array_equal(got.to_host(), np.arange(1, 7, 2, dtype=dtype))


@pytest.mark.parametrize("dtype", [np.uint16, np.uint32, np.uint64], ids=lambda d: np.dtype(d).name)
def test_matmul_unsigned_wraps_as_numpy(dtype):
    rng = np.random.default_rng(5)
    a = rng.integers(0, 1000, (3, 4)).astype(dtype)
    b = rng.integers(0, 1000, (4, 2)).astype(dtype)
    b[0, 0] = np.iinfo(dtype).max  # products wrap modulo 2**bits, as NumPy's do
    got = (npx.asarray(a) @ npx.asarray(b)).to_host()
    assert got.dtype == dtype
    np.testing.assert_array_equal(got, a @ b)


def test_abs_complex128():
    z = np.array([3 + 4j, -1j, 0, 1e300 + 1e300j, np.inf - 2j, 1e-300j])
    np.testing.assert_allclose(npx.abs(npx.asarray(z)).to_host(), np.abs(z))


def test_abs_complex64():
    z = np.array([3 + 4j, -1j], np.complex64)
    got = npx.abs(npx.asarray(z))
    assert got.dtype == np.float32
    np.testing.assert_allclose(got.to_host(), np.abs(z))


def test_boolean_mask_assignment_of_arrays():
    a = np.arange(12.0).reshape(3, 4)
    x = npx.asarray(a)
    m = np.array([True, False, True])
    x[npx.asarray(m)] = npx.asarray(a[0:2] * 10)
    a[m] = a[0:2] * 10
    np.testing.assert_array_equal(x.to_host(), a)
    m2 = np.arange(12).reshape(3, 4) % 2 == 0
    x[m2] = npx.asarray(np.arange(6.0))
    a[m2] = np.arange(6.0)
    np.testing.assert_array_equal(x.to_host(), a)


# -- more transfers and pool ------------------------------------------------------------------

def test_to_host_results_are_independent_buffers():
    a = np.arange(1000.0)
    x, y = npx.asarray(a), npx.asarray(a * 2)
    h1, h2 = x.to_host(), x.to_host()
    h1[0] = 99
    assert h2[0] == 0
    s = npx.Stream()
    with s:
        hx = x.to_host(blocking=False)
        hy = y.to_host(blocking=False)
    s.synchronize()
    del hx
    with s:
        hw = (x + 5).to_host(blocking=False)       # may reuse hx's memory, never hy's
    s.synchronize()
    np.testing.assert_array_equal(hy, a * 2)
    np.testing.assert_array_equal(hw, a + 5)


def test_to_device_with_stream():
    a = np.arange(10.0)
    t = npx.asarray(a).to_device(1, stream=npx.Stream(1))
    assert t.device.id == 1
    np.testing.assert_array_equal(t.to_host(), a)
    with pytest.raises(ValueError):
        npx.asarray(a).to_device(1, stream=npx.Stream(0))


def test_pool_frees_cache_and_retries_at_device_capacity():
    out = run_fresh_env("import numpy as np, npuarray as npx\n"
                        "x = npx.empty(6 << 20, dtype=np.uint8)\n"
                        "del x\n"
                        "y = npx.ones((6 << 20) + (300 << 10), dtype=np.uint8)\n"
                        "print(y.nbytes, int(y[-1]))\n", NPUSIM_DEVICE_MEMORY=str(8 << 20))
    assert out.split() == [str((6 << 20) + (300 << 10)), "1"]


def test_pool_used_bytes_on_non_default_stream():
    pool = npx.get_default_memory_pool()
    npx.synchronize()
    used0 = pool.used_bytes()
    with npx.Stream():
        z = npx.ones(1 << 20)
        assert pool.used_bytes() - used0 >= 8 << 20
        del z
    assert pool.used_bytes() == used0


def run_fresh_env(code, **env):
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, cwd=NEUTRAL_CWD, env=package_env(**env))
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


# -- hypothesis: shapes and strides -----------------------------------------------------------

from hypothesis import given, settings, strategies as st  # noqa: E402


@st.composite
def strided_case(draw):
    ndim = draw(st.integers(1, 3))
    shape = tuple(draw(st.integers(1, 6)) for _ in range(ndim))
    key = tuple(slice(draw(st.sampled_from([None, 0, 1])), None, draw(st.sampled_from([1, 2, -1, -2])))
                for _ in range(ndim))
    axis = draw(st.sampled_from([None] + list(range(-ndim, ndim))))
    return shape, key, axis


@settings(max_examples=40, deadline=None)
@given(strided_case(), st.sampled_from(["float32", "int32", "float64"]))
def test_hypothesis_views_elementwise_and_reductions(case, dtype):
    shape, key, axis = case
    a = np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape) * 3 % 7 + 1
    view = a[key]
    x = npx.asarray(a)[key]
    assert x.shape == view.shape
    if view.size:                      # an empty view's strides are arbitrary
        assert x.strides == view.strides
    np.testing.assert_array_equal((x * 2 - x).to_host(), view * 2 - view)
    np.testing.assert_allclose(npx.exp(x).to_host(), np.exp(view), rtol=1e-6)
    if view.size:
        np.testing.assert_allclose(npx.sum(x, axis=axis).to_host(), view.sum(axis=axis), rtol=1e-6)
        np.testing.assert_array_equal(npx.max(x, axis=axis, keepdims=True).to_host(),
                                      view.max(axis=axis, keepdims=True))
        if axis is not None:
            np.testing.assert_array_equal(npx.argmin(x, axis=axis).to_host(),
                                          view.argmin(axis=axis))


def test_array_dunder_dtype_and_asnumpy_wrong_out():
    x = npx.asarray(np.arange(3.0))
    assert x.__array__(np.float32).dtype == np.float32
    with pytest.raises(ValueError):
        npx.asnumpy(x, out=np.empty(4))
    np.testing.assert_array_equal(npx.asnumpy(x), [0.0, 1.0, 2.0])
