"""prod, std, var, cumulative_sum, cumulative_prod (and the dtype / empty-input rules
of sum, mean, max, min) against NumPy: every dtype the standard allows, axes,
keepdims, dtype=, correction, include_initial, 0-d, empty and non-contiguous
input, the standard's special cases and bad arguments."""
import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import npuarray as npx
from test_elementwise import BF16, COMPLEX, FLOATS, INTS, dt, random_array, up

NUMERIC = INTS + FLOATS + COMPLEX
REAL = INTS + FLOATS
AXES = [None, 0, 1, -1, (0, 2), (2, 0), (0, 1, 2), ()]


def host(a):
    """bfloat16 data computed in float32 by NumPy (its bfloat16 arithmetic is slow
    and not what a device accumulates in)."""
    return a.astype(np.float32) if a.dtype == BF16 else a


def assert_close(result, expected, dtype, *, rtol=None):
    """``result`` has ``dtype`` and NumPy's values within the accumulation error
    of ``dtype`` (results of many-element reductions are rounded once)."""
    dtype = np.dtype(dtype)
    assert result.dtype == dtype, (result.dtype, dtype)
    expected = np.asarray(expected)
    assert result.shape == expected.shape, (result.shape, expected.shape)
    got = result.to_host()
    if dtype.kind in "fc" or dtype == BF16:
        wide = np.complex128 if dtype.kind == "c" else np.float64
        eps = float((ml_dtypes.finfo if dtype == BF16 else np.finfo)(dtype).eps)
        np.testing.assert_allclose(got.astype(wide), expected.astype(wide),
                                   rtol=rtol or 8 * eps, atol=8 * eps, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, expected)


# ---------------------------------------------------------------------------
# prod

@pytest.mark.parametrize("dtype", ["bool"] + NUMERIC)
def test_prod_dtypes(rng, dtype):
    a = random_array(rng, (5, 4), dtype, low=-3, high=3)
    if dt(dtype).kind in "fc" or dt(dtype) == BF16:
        a = random_array(rng, (5, 4), dtype, low=0.5, high=1.5)
    expected_dtype = {"b": np.int64, "i": np.int64, "u": np.uint64}.get(dt(dtype).kind, dt(dtype))
    for axis in (None, 0, 1):
        expected = np.prod(host(a), axis=axis, dtype=expected_dtype if dt(dtype) != BF16
                           else np.float64)
        assert_close(npx.prod(up(a), axis=axis), expected, expected_dtype,
                     rtol=5e-2 if dt(dtype) == BF16 else None)


@pytest.mark.parametrize("axis", AXES)
@pytest.mark.parametrize("keepdims", [False, True])
def test_prod_axes_keepdims(rng, axis, keepdims):
    a = random_array(rng, (3, 4, 5), "float64", low=0.5, high=1.5)
    assert_close(npx.prod(up(a), axis=axis, keepdims=keepdims),
                 np.prod(a, axis=axis, keepdims=keepdims), np.float64)


def test_prod_integer_overflow_wraps_and_dtype_argument(rng):
    a = np.full(40, 7, np.int8)
    assert_close(npx.prod(up(a)), np.prod(a), np.int64)               # wraps in int64
    assert_close(npx.prod(up(a), dtype=npx.int8), np.prod(a, dtype=np.int8), np.int8)
    u = np.array([2**40, 2**30, 3], np.uint64)
    assert_close(npx.prod(up(u)), np.prod(u), np.uint64)              # modulo 2**64
    u16 = random_array(rng, (6, 3), "uint16", low=1, high=9)
    assert_close(npx.prod(up(u16), axis=0, dtype=npx.uint16),
                 np.prod(u16, axis=0, dtype=np.uint16), np.uint16)
    f = random_array(rng, (8,), "float32")
    assert_close(npx.prod(up(f), dtype=npx.float64), np.prod(f, dtype=np.float64),
                 np.float64)


def test_prod_empty_is_one_and_0d():
    assert_close(npx.prod(up(np.zeros((0, 3), np.float32))), np.float32(1), np.float32)
    assert_close(npx.prod(up(np.zeros((0, 3), np.int32)), axis=0), np.ones(3, np.int64),
                 np.int64)
    assert npx.prod(up(np.zeros((3, 0))), axis=0).shape == (0,)
    assert_close(npx.prod(up(np.array(2.5))), np.float64(2.5), np.float64)


def test_prod_non_contiguous(rng):
    a = random_array(rng, (6, 8), "float32", low=0.5, high=1.5)
    assert_close(npx.prod(up(a).T, axis=1), np.prod(a.T, axis=1), np.float32)
    assert_close(npx.prod(up(a)[::-2, 1::3], axis=0), np.prod(a[::-2, 1::3], axis=0),
                 np.float32)


def test_prod_special_cases():
    # successive multiplication: nan propagates, inf * 0 is nan, inf * finite is inf
    cases = [([np.nan, 1.0], np.nan), ([np.inf, 0.0], np.nan), ([np.inf, -2.0], -np.inf)]
    for values, expected in cases:
        assert_close(npx.prod(up(np.array(values))), np.float64(expected), np.float64)


# ---------------------------------------------------------------------------
# std / var

@pytest.mark.parametrize("name", ["std", "var"])
@pytest.mark.parametrize("dtype", FLOATS + ["int32", "uint8", "bool"])
@pytest.mark.parametrize("correction", [0, 1, 0.5, 2])
def test_std_var_dtypes_and_corrections(rng, name, dtype, correction):
    a = random_array(rng, (6, 7), dtype)
    ref = getattr(np, name)
    out_dtype = np.float64 if dt(dtype).kind in "biu" else dt(dtype)
    rtol = {"float16": 5e-3, "bfloat16": 3e-2}.get(dtype, 1e-5 if dtype == "float32" else None)
    for axis in (None, 0, 1, (0, 1)):
        expected = ref(host(a).astype(np.float64), axis=axis, ddof=correction)
        assert_close(getattr(npx, name)(up(a), axis=axis, correction=correction), expected,
                     out_dtype, rtol=rtol)


@pytest.mark.parametrize("name", ["std", "var"])
@pytest.mark.parametrize("axis", AXES)
@pytest.mark.parametrize("keepdims", [False, True])
def test_std_var_axes(rng, name, axis, keepdims):
    a = random_array(rng, (3, 4, 5), "float32")
    expected = getattr(np, name)(a.astype(np.float64), axis=axis, keepdims=keepdims)
    assert_close(getattr(npx, name)(up(a), axis=axis, keepdims=keepdims), expected,
                 np.float32, rtol=1e-5)


@pytest.mark.parametrize("name", ["std", "var"])
def test_std_var_special_cases(name):
    fn = getattr(npx, name)
    # M - correction <= 0: NaN (the standard; NumPy would give inf for some of these)
    assert np.isnan(fn(up(np.array([1.0, 2.0])), correction=2).to_host())
    assert np.isnan(fn(up(np.array([1.0, 2.0], np.float32)), correction=3).to_host())
    assert np.isnan(fn(up(np.zeros((0,), np.float32))).to_host())
    # NaN propagates
    for dtype in ("float32", "float64"):
        r = fn(up(np.array([[1.0, np.nan], [2.0, 3.0]], dtype)), axis=1).to_host()
        assert np.isnan(r[0]) and not np.isnan(r[1])
    # a constant array has zero spread; 0-d input reduces nothing
    assert fn(up(np.full(9, 3.25, np.float32))).to_host() == 0
    assert_close(fn(up(np.array(4.0))), np.float64(0.0), np.float64)
    assert fn(up(np.zeros((0, 4), np.float32)), axis=0, correction=0).shape == (4,)


@pytest.mark.parametrize("name", ["std", "var"])
def test_std_var_non_contiguous(rng, name):
    a = random_array(rng, (8, 10), "float64")
    for view, ref in ((up(a).T, a.T), (up(a)[::-3, ::2], a[::-3, ::2])):
        assert_close(getattr(npx, name)(view, axis=0, correction=1),
                     getattr(np, name)(ref, axis=0, ddof=1), np.float64)


@settings(max_examples=25, deadline=None)
@given(shape=st.lists(st.integers(1, 5), min_size=1, max_size=4), data=st.data())
def test_var_hypothesis_shapes(shape, data):
    rng = np.random.default_rng(sum(shape))
    a = random_array(rng, tuple(shape), "float32")
    axis = data.draw(st.sampled_from([None] + list(range(-len(shape), len(shape)))))
    assert_close(npx.var(up(a), axis=axis), np.var(a.astype(np.float64), axis=axis),
                 np.float32, rtol=1e-5)


# ---------------------------------------------------------------------------
# cumulative_sum / cumulative_prod

SCANS = [("cumulative_sum", np.cumulative_sum), ("cumulative_prod", np.cumulative_prod)]


def scan_data(rng, shape, dtype, name):
    if name == "cumulative_prod" and (dt(dtype).kind in "fc" or dt(dtype) == BF16):
        return random_array(rng, shape, dtype, low=0.5, high=1.5)
    return random_array(rng, shape, dtype, low=-3, high=3)


@pytest.mark.parametrize("name, ref", SCANS)
@pytest.mark.parametrize("dtype", ["bool"] + NUMERIC)
def test_scan_dtypes(rng, name, ref, dtype):
    a = scan_data(rng, (4, 9), dtype, name)
    out_dtype = {"b": np.int64, "i": np.int64, "u": np.uint64}.get(dt(dtype).kind, dt(dtype))
    for axis in (0, 1, -1):
        expected = ref(host(a), axis=axis, dtype=np.float64 if dt(dtype) == BF16 else None)
        assert_close(getattr(npx, name)(up(a), axis=axis), expected, out_dtype,
                     rtol=5e-2 if dt(dtype) == BF16 else None)


@pytest.mark.parametrize("name, ref", SCANS)
@pytest.mark.parametrize("include_initial", [False, True])
def test_scan_include_initial_and_dtype(rng, name, ref, include_initial):
    a = scan_data(rng, (3, 5, 2), "int16", name)
    for axis in (0, 1, 2):
        for dtype in (None, np.int16, np.float32, np.uint32):
            expected = ref(a, axis=axis, dtype=dtype, include_initial=include_initial)
            result = getattr(npx, name)(up(a), axis=axis, dtype=dtype,
                                        include_initial=include_initial)
            assert_close(result, expected, expected.dtype)


@pytest.mark.parametrize("name, ref", SCANS)
def test_scan_1d_0d_empty_non_contiguous(rng, name, ref):
    fn = getattr(npx, name)
    a = scan_data(rng, (12,), "float64", name)
    assert_close(fn(up(a)), ref(a), np.float64)                        # axis optional in 1-D
    assert_close(fn(up(a)[::-2]), ref(a[::-2]), np.float64)
    assert_close(fn(up(np.array(2.5))), ref(np.array(2.5)), np.float64)   # 0-d as 1-D
    b = scan_data(rng, (5, 6), "float32", name)
    assert_close(fn(up(b).T, axis=1), ref(b.T, axis=1), np.float32)
    assert_close(fn(up(b)[1::2, ::-1], axis=0), ref(b[1::2, ::-1], axis=0), np.float32)
    for shape, axis in (((0,), 0), ((3, 0), 1), ((0, 4), 1), ((0, 4), 0)):
        e = np.zeros(shape, np.float32)
        for initial in (False, True):
            assert_close(fn(up(e), axis=axis, include_initial=initial),
                         ref(e, axis=axis, include_initial=initial), np.float32)


def test_scan_integer_wraparound():
    a = np.array([2**62, 2**62, 2**62], np.int64)
    assert_close(npx.cumulative_sum(up(a)), np.cumulative_sum(a), np.int64)
    u = np.array([2**63, 2**63, 5], np.uint64)
    assert_close(npx.cumulative_sum(up(u)), np.cumulative_sum(u), np.uint64)
    assert_close(npx.cumulative_prod(up(u)), np.cumulative_prod(u), np.uint64)


def test_scan_special_cases():
    # successive addition / multiplication: nan and inf propagate, inf - inf is nan
    x = np.array([1.0, np.inf, -np.inf, 2.0])
    assert_close(npx.cumulative_sum(up(x)), np.cumulative_sum(x), np.float64)
    y = np.array([2.0, np.inf, 0.0, 3.0])
    assert_close(npx.cumulative_prod(up(y)), np.cumulative_prod(y), np.float64)
    z = np.array([1.0, np.nan, 2.0], np.float32)
    assert_close(npx.cumulative_prod(up(z)), np.cumulative_prod(z), np.float32)


def test_scan_long_complex_prod_matches_sequential(rng):
    a = (np.exp(1j * rng.uniform(-0.1, 0.1, 1000))).astype(np.complex128)
    assert_close(npx.cumulative_prod(up(a)), np.cumulative_prod(a), np.complex128,
                 rtol=1e-12)


@settings(max_examples=25, deadline=None)
@given(shape=st.lists(st.integers(0, 5), min_size=1, max_size=4), data=st.data())
def test_cumulative_sum_hypothesis(shape, data):
    rng = np.random.default_rng(sum(shape) + 7)
    a = random_array(rng, tuple(shape), "int32")
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    initial = data.draw(st.booleans())
    assert_close(npx.cumulative_sum(up(a), axis=axis, include_initial=initial),
                 np.cumulative_sum(a, axis=axis, include_initial=initial), np.int64)


# ---------------------------------------------------------------------------
# sum, mean, max, min: dtype coverage and empty reductions

@pytest.mark.parametrize("dtype", REAL)
@pytest.mark.parametrize("name", ["max", "min"])
def test_max_min_every_real_dtype(rng, dtype, name):
    a = random_array(rng, (5, 6), dtype)
    if dtype == "uint64":
        a = a + np.uint64(2**63)  # values on both sides of the int64 boundary
        a[0, 0] = 3
    for axis in (None, 0, 1, (0, 1)):
        assert_close(getattr(npx, name)(up(a), axis=axis), getattr(np, name)(host(a), axis=axis)
                     .astype(a.dtype), a.dtype)


def test_max_min_bool_and_nan():
    b = np.array([[True, False], [False, False]])
    assert_close(npx.max(up(b), axis=1), np.max(b, axis=1), np.bool_)
    assert_close(npx.min(up(b)), np.min(b), np.bool_)
    f = np.array([1.0, np.nan, 3.0], np.float32)
    assert np.isnan(npx.max(up(f)).to_host()) and np.isnan(npx.min(up(f)).to_host())


def test_empty_reductions():
    e = np.zeros((0, 3), np.float32)
    for name in ("max", "min"):
        with pytest.raises(ValueError):
            getattr(npx, name)(up(e))
        with pytest.raises(ValueError):
            getattr(npx, name)(up(e), axis=0)
        assert getattr(npx, name)(up(e), axis=1).shape == (0,)
    assert_close(npx.sum(up(e)), np.float32(0), np.float32)
    assert_close(npx.sum(up(np.zeros((0,), np.uint8))), np.uint64(0), np.uint64)
    assert np.isnan(npx.mean(up(e)).to_host())
    assert_close(npx.mean(up(e), axis=0), np.full(3, np.nan, np.float32), np.float32)
    assert npx.max(up(np.ones(3))).to_host() == 1  # the next operation still works


@pytest.mark.parametrize("dtype", ["bool"] + NUMERIC)
def test_sum_mean_every_dtype(rng, dtype):
    a = random_array(rng, (4, 7), dtype)
    sum_dtype = {"b": np.int64, "i": np.int64, "u": np.uint64}.get(dt(dtype).kind, dt(dtype))
    mean_dtype = np.float64 if dt(dtype).kind in "biu" else dt(dtype)
    rtol = 5e-2 if dt(dtype) == BF16 else 1e-2 if dtype == "float16" else None
    for axis in (None, 1):
        assert_close(npx.sum(up(a), axis=axis), np.sum(host(a).astype(
            np.float64 if dt(dtype) == BF16 else sum_dtype), axis=axis), sum_dtype, rtol=rtol)
        assert_close(npx.mean(up(a), axis=axis), np.mean(host(a).astype(
            np.complex128 if dt(dtype).kind == "c" else np.float64), axis=axis), mean_dtype,
            rtol=rtol)


# ---------------------------------------------------------------------------
# Bad input

@pytest.mark.parametrize("name", ["prod", "std", "var", "cumulative_sum", "cumulative_prod"])
def test_bad_arguments(rng, name):
    fn = getattr(npx, name)
    a = up(random_array(rng, (3, 4), "float32"))
    with npx.transfer_guard("disallow"), pytest.raises(npx.ImplicitTransferError):
        fn(np.ones(3))                       # host data: an implicit upload
    with pytest.raises((ValueError, IndexError)):
        fn(a, axis=2)
    with pytest.raises((ValueError, IndexError)):
        fn(a, axis=-3)
    if name.startswith("cumulative"):
        with pytest.raises(ValueError):
            fn(a)                            # axis required for 2-D input
        with pytest.raises(TypeError):
            fn(a, axis=(0,))
    elif name == "prod":
        with pytest.raises(ValueError):
            fn(a, axis=(0, 0))
    else:
        with pytest.raises(TypeError):
            fn(up(np.ones(3, np.complex64)))  # real floating only
        with pytest.raises(TypeError):
            fn(a, correction="1")
    assert_close(npx.sum(a, axis=0), np.sum(a.to_host(), axis=0), np.float32)  # still works


def test_on_a_non_default_stream(rng):
    a = random_array(rng, (64, 33), "float32")
    with npx.Stream() as s:
        x = up(a)
        r = (npx.std(x, axis=0), npx.cumulative_sum(x, axis=1), npx.prod(x[:4], axis=0))
        s.synchronize()
    assert_close(r[0], np.std(a.astype(np.float64), axis=0), np.float32, rtol=1e-5)
    assert_close(r[1], np.cumulative_sum(a.astype(np.float64), axis=1), np.float32, rtol=1e-5)
    assert_close(r[2], np.prod(a[:4].astype(np.float64), axis=0), np.float32, rtol=1e-5)


# ---------------------------------------------------------------------------
# npusim's aclnnCumprod keeps CANN's documented rules (dtypes, INT32 dim scalar)

def _cumprod_launch(x, dim_value, dim_dtype, dtype, out):
    from npuarray._core import _data_type, _ops
    _ops.launch("aclnnCumprod", x, _ops.acl_scalar(dim_value, np.dtype(dim_dtype)),
                -1 if dtype is None else _data_type.to_acl_dtype(np.dtype(dtype)), out)


def test_npusim_cumprod_follows_cann_rules(rng):
    a = random_array(rng, (3, 4), "float32", low=0.5, high=1.5)
    x = up(a)
    out = npx.empty((3, 4), dtype=npx.float32)
    _cumprod_launch(x, 1, "int32", None, out)             # ACL_DT_UNDEFINED: input's dtype
    assert_close(out, np.cumulative_prod(a, axis=1), np.float32)
    wide = npx.empty((3, 4), dtype=npx.float64)
    _cumprod_launch(x, -2, "int32", "float64", wide)      # converted to dtype first
    assert_close(wide, np.cumulative_prod(a.astype(np.float64), axis=0), np.float64)
    bad = [
        (x, 1, "int64", None, out),                       # dim must be an INT32 scalar
        (x, 2, "int32", None, out),                       # dim out of range
        (x, 1, "int32", None, wide),                      # out dtype != input's
        (x, 1, "int32", "float32", wide),                 # out dtype != dtype
        (up(a.astype(np.complex64)), 1, "int32", None,
         npx.empty((3, 4), dtype=npx.complex64)),        # complex: not documented
        (up(a > 1), 0, "int32", None, npx.empty((3, 4), dtype=npx.bool)),  # nor bool
    ]
    for args in bad:
        with pytest.raises(npx.AclError) as info:
            _cumprod_launch(*args)
        assert info.value.code == 161002
    assert_close(npx.cumulative_prod(x, axis=1), np.cumulative_prod(a, axis=1), np.float32)
