"""Small reductions and matrix products through npuarray's exact-signature C launch helpers
``npuarray_aclnn_launch_reduce`` (aclnnAmax / aclnnAmin),
``..._reduce_dtype`` (aclnnReduceSum / aclnnMean), ``..._reduce_index`` (aclnnArgMax /
aclnnArgMin) and ``..._matmul`` (aclnnMatmul) run both aclnn phases in one call from
``_ops.reduction_result`` / ``_ops.matmul_result``, and aclTensors of views (``c.T``) are
memoised by their full description (``_ops._view_tensors``).

Each reduction is called twice per case: the first call makes the plan, the second takes
the helper; a counting wrapper around the helper proves which path ran. Results are compared
with NumPy for every dtype each operator takes through the helper, keepdims, negative axes,
views; errors of either phase must raise AclError naming the phase, with the code."""
import threading

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import npuarray as npx
from npuarray._core import _linear_algebra, _ops, _searching, _statistical
from npuarray._acl import ffi
from npuarray._core._data_type import BFLOAT16, to_acl_dtype

needs_helper = pytest.mark.skipif(_ops._launch_helper is None,
                                  reason="the C launch helpers are not built")

# Dtypes that reach each operator as they are (so through the plan and the helper), from the
# operator tables of npuarray._core._statistical / npuarray._core._searching (CANN's documents).
SUM_DTYPES = ["float16", "float32", "float64", BFLOAT16, "int64", "complex64", "complex128"]
SUM_WITH_DTYPE = ["int8", "int16", "int32", "uint8"]  # sum(x, dtype=x.dtype)
MEAN_DTYPES = ["float16", "float32", "float64", BFLOAT16, "complex64", "complex128"]
EXTREMA_DTYPES = ["float16", "float32", "float64", BFLOAT16, "int8", "int16", "int32", "int64",
                  "uint8", "bool"]
MOMENT_DTYPES = ["float32", "float16", BFLOAT16]
ARG_DTYPES = ["float16", "float32", "float64", BFLOAT16, "int8", "int16", "int32", "int64",
              "uint8"]


def host_data(rng, shape, dtype):
    """Random values of ``dtype`` whose sums stay exact enough to compare (no ties for the
    arg-extrema of floats: continuous values)."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if dtype.kind in "iu":
        return rng.integers(0 if dtype.kind == "u" else -9, 10, size=shape).astype(dtype)
    values = rng.uniform(-4, 4, size=shape)
    if dtype.kind == "c":
        values = values + 1j * rng.uniform(-4, 4, size=shape)
    return values.astype(dtype)


def tolerance(dtype):
    dtype = np.dtype(dtype)
    if dtype == BFLOAT16:
        return 3e-2
    return {"e": 4e-3, "f": 1e-5, "d": 1e-12, "F": 1e-5, "D": 1e-12}.get(dtype.char, 0)


def assert_matches(result, expected, dtype=None):
    host = result.to_host()
    expected = np.asarray(expected)
    assert host.shape == expected.shape
    assert host.dtype == (expected.dtype if dtype is None else np.dtype(dtype))
    if host.dtype.kind in "biu":
        np.testing.assert_array_equal(host, expected)
    else:
        rtol = tolerance(host.dtype)
        np.testing.assert_allclose(host.astype(np.complex128 if host.dtype.kind == "c"
                                               else np.float64),
                                   expected.astype(np.complex128 if expected.dtype.kind == "c"
                                                   else np.float64),
                                   rtol=rtol, atol=rtol * 8)


@pytest.fixture
def helper_calls(monkeypatch):
    """Counts the calls of each exact-signature helper by operator (the real helper runs),
    and the launches of the C reduction path, with no plan made yet (another test may have
    made one for the same case)."""
    monkeypatch.setattr(_statistical, "_plans", {})
    monkeypatch.setattr(_searching, "_plans", {})
    monkeypatch.setattr(_linear_algebra, "_planned_shapes", {})
    counts = {}
    for op, helper in list(_ops._EXACT_HELPERS.items()):
        def counting(*args, _op=op, _helper=helper):
            counts[_op] = counts.get(_op, 0) + 1
            return _helper(*args)
        monkeypatch.setitem(_ops._EXACT_HELPERS, op, counting)
    monkeypatch.setattr(_ops, "_exact_launchers", {})
    real_c_path = _ops._reduction_in_c  # (npuarray/_core/_fastpath.c: the same launch, in C)

    def counting_c_path(x, op, *args):
        out = real_c_path(x, op, *args)
        if out is not None:
            counts[op] = counts.get(op, 0) + 1
        return out
    monkeypatch.setattr(_ops, "_reduction_in_c", counting_c_path)
    return counts


def twice(fn, make_input):
    """fn() on two fresh inputs: the first call plans, the second takes the fast path."""
    return [fn(make_input()) for _ in range(2)]


# ---------------------------------------------------------------------------
# Every dtype through the helper

@needs_helper
@pytest.mark.parametrize("dtype", SUM_DTYPES)
@pytest.mark.parametrize("axis,keepdims", [(1, False), (-1, True), (0, False), (None, False),
                                           ((0, 2), True), ((-3, -1), False)])
def test_sum_through_the_helper(rng, helper_calls, dtype, axis, keepdims):
    hosts = [host_data(rng, (3, 5, 4), dtype) for _ in range(2)]
    results = [npx.sum(npx.asarray(a), axis=axis, keepdims=keepdims) for a in hosts]
    for a, result in zip(hosts, results):
        expected = np.sum(a.astype(np.float64) if a.dtype == BFLOAT16 else a, axis=axis,
                          keepdims=keepdims)
        assert_matches(result, expected, a.dtype)
    assert helper_calls.get("aclnnReduceSum") == 1  # the second call


@needs_helper
@pytest.mark.parametrize("dtype", SUM_WITH_DTYPE)
def test_sum_with_its_own_dtype_through_the_helper(rng, helper_calls, dtype):
    for _ in range(2):
        a = host_data(rng, (6, 7), dtype)
        assert_matches(npx.sum(npx.asarray(a), axis=-1, dtype=a.dtype),
                       np.sum(a, axis=-1, dtype=a.dtype))
    assert helper_calls.get("aclnnReduceSum") == 1


@needs_helper
@pytest.mark.parametrize("dtype", MEAN_DTYPES)
@pytest.mark.parametrize("axis,keepdims", [(1, False), (-2, True), (None, True)])
def test_mean_through_the_helper(rng, helper_calls, dtype, axis, keepdims):
    for _ in range(2):
        a = host_data(rng, (5, 6), dtype)
        expected = np.mean(a.astype(np.float64) if a.dtype == BFLOAT16 else a, axis=axis,
                           keepdims=keepdims)
        assert_matches(npx.mean(npx.asarray(a), axis=axis, keepdims=keepdims), expected,
                       a.dtype)
    assert helper_calls.get("aclnnMean") == 1


@needs_helper
@pytest.mark.parametrize("name,op", [("max", "aclnnAmax"), ("min", "aclnnAmin")])
@pytest.mark.parametrize("dtype", EXTREMA_DTYPES)
@pytest.mark.parametrize("axis,keepdims", [(1, False), (-1, True), (None, False)])
def test_extrema_through_the_helper(rng, helper_calls, name, op, dtype, axis, keepdims):
    for _ in range(2):
        a = host_data(rng, (4, 9), dtype)
        expected = getattr(np, name)(a, axis=axis, keepdims=keepdims)
        assert_matches(getattr(npx, name)(npx.asarray(a), axis=axis, keepdims=keepdims),
                       expected, a.dtype)
    assert helper_calls.get(op) == 1


@needs_helper
@pytest.mark.parametrize("name,op", [("std", "aclnnStd"), ("var", "aclnnVar")])
@pytest.mark.parametrize("dtype", MOMENT_DTYPES)
@pytest.mark.parametrize("axis,keepdims,correction", [(1, False, 0), (-1, True, 1),
                                                      (None, False, 1.0), ((0, 2), True, 0.0)])
def test_moments_through_the_helper(rng, helper_calls, name, op, dtype, axis, keepdims,
                                    correction):
    for _ in range(2):
        a = host_data(rng, (4, 5, 6), dtype)
        expected = getattr(np, name)(a.astype(np.float64), axis=axis, keepdims=keepdims,
                                     ddof=correction)
        result = getattr(npx, name)(npx.asarray(a), axis=axis, keepdims=keepdims,
                                    correction=correction)
        assert_matches(result, expected, a.dtype)
    assert helper_calls.get(op) == 1


def test_moments_that_take_two_launches_or_none_are_not_memoised(rng, helper_calls):
    """std with a fractional correction and var with one other than 0 or 1 scale the
    population moment (two launches); a correction leaving M - correction <= 0 gives NaN
    (no launch); float64 is composed: none of them is a plan, and all stay right."""
    for _ in range(2):
        a = host_data(rng, (3, 7), "float32")
        x = npx.asarray(a)
        assert_matches(npx.std(x, axis=1, correction=0.5), a.std(axis=1, ddof=0.5))
        assert_matches(npx.var(x, axis=0, correction=2), a.var(axis=0, ddof=2))
        assert_matches(npx.var(x, axis=0, correction=3), np.full(7, np.nan, np.float32))
        d = host_data(rng, (3, 7), "float64")
        assert_matches(npx.std(npx.asarray(d), axis=1, correction=1), d.std(axis=1, ddof=1))
    assert "aclnnStd" not in helper_calls and "aclnnVar" not in helper_calls
    with pytest.raises(TypeError):
        npx.std(x, axis=1, correction=True)  # a bool is refused, planned or not
    with pytest.raises(TypeError):
        npx.var(x, axis=1, correction="1")
    assert_matches(npx.std(x, axis=1, correction=1), a.std(axis=1, ddof=1))


@needs_helper
@pytest.mark.parametrize("name,op", [("argmax", "aclnnArgMax"), ("argmin", "aclnnArgMin")])
@pytest.mark.parametrize("dtype", ARG_DTYPES)
@pytest.mark.parametrize("axis,keepdims", [(1, False), (-1, True), (0, False), (-3, True)])
def test_arg_extrema_through_the_helper(rng, helper_calls, name, op, dtype, axis, keepdims):
    for _ in range(2):
        a = host_data(rng, (3, 4, 5), dtype)
        expected = getattr(np, name)(a, axis=axis, keepdims=keepdims)
        assert_matches(getattr(npx, name)(npx.asarray(a), axis=axis, keepdims=keepdims),
                       expected, np.int64)
    assert helper_calls.get(op) == 1


@needs_helper
@pytest.mark.parametrize("name,op", [("argmax", "aclnnArgMax"), ("argmin", "aclnnArgMin")])
@pytest.mark.parametrize("shape", [(), (7,), (3, 5), (2, 3, 4)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_flattened_arg_extrema_through_the_helper(rng, helper_calls, name, op, shape,
                                                  keepdims):
    for dtype in ("float32", "int16"):
        for _ in range(2):
            a = host_data(rng, shape, dtype)
            result = getattr(npx, name)(npx.asarray(a), keepdims=keepdims)
            assert_matches(result, getattr(np, name)(a, keepdims=keepdims), np.int64)
    assert helper_calls.get(op) == 2  # the second call of each dtype


@pytest.mark.parametrize("name", ["argmax", "argmin"])
def test_flattened_plan_serves_only_c_contiguous_views(rng, name):
    """A flattened search's plan needs C-order strides: an offset C-contiguous view takes
    it (the flat view starts at the offset); transposed, strided and reversed views of the
    same shape take the general path (a contiguous copy first)."""
    base = host_data(rng, (12, 10), "float32")
    d = npx.asarray(base)
    fn, reference = getattr(npx, name), getattr(np, name)
    first = np.ascontiguousarray(base[:5, :10])
    for keepdims in (False, True):
        assert_matches(fn(npx.asarray(first), keepdims=keepdims),
                       reference(first, keepdims=keepdims))
        for view, host in [(d[4:9], base[4:9]), (d[:10, :5].T, base[:10, :5].T),
                           (d[::2, :], base[::2, :]),
                           (d[::-2, ::-1], base[::-2, ::-1]), (d[7:, :], base[7:, :])]:
            assert_matches(fn(view, keepdims=keepdims), reference(host, keepdims=keepdims))
        assert_matches(fn(npx.asarray(first), keepdims=keepdims),
                       reference(first, keepdims=keepdims))


@needs_helper
@pytest.mark.parametrize("dtype", ["float32", "float16", BFLOAT16])
def test_matmul_of_a_transposed_view_through_the_helper(rng, helper_calls, dtype):
    x = host_data(rng, (33, 16), dtype)
    for _ in range(3):
        c = host_data(rng, (5, 16), dtype)
        xd, cd = npx.asarray(x), npx.asarray(c)
        expected = x.astype(np.float64) @ c.astype(np.float64).T
        assert_matches(npx.matmul(xd, cd.T), expected.astype(np.dtype(dtype)), dtype)
    assert helper_calls.get("aclnnMatmul") == 2


def test_planned_matmul_of_views_of_every_layout(rng):
    """After the plan of (6, 8) @ (8, 5): transposed, strided, offset and reversed views of
    those shapes (reversed ones through a copy), batches and 1-D operands."""
    a = host_data(rng, (12, 16), "float32")
    b = host_data(rng, (16, 10), "float32")
    d, e = npx.asarray(a), npx.asarray(b)
    first = (np.ascontiguousarray(a[:6, :8]), np.ascontiguousarray(b[:8, :5]))
    assert_matches(npx.matmul(npx.asarray(first[0]), npx.asarray(first[1])),
                   first[0] @ first[1])
    pairs = [((d[:8, :6].T, e[:5, :8].T), (a[:8, :6].T, b[:5, :8].T)),
             ((d[::2, ::2], e[::2, ::2]), (a[::2, ::2], b[::2, ::2])),
             ((d[3:9, 5:13], e[7:15, 2:7]), (a[3:9, 5:13], b[7:15, 2:7])),
             ((d[::-2, ::-2], e[::-2, ::-2]), (a[::-2, ::-2], b[::-2, ::-2]))]
    for (x1, x2), (h1, h2) in pairs:
        for _ in range(2):
            assert_matches(npx.matmul(x1, x2), h1 @ h2)
    batch = host_data(rng, (3, 4, 6), "float32")
    vector = host_data(rng, (6,), "float32")
    for _ in range(2):
        assert_matches(npx.matmul(npx.asarray(batch), npx.asarray(vector)), batch @ vector)
        assert_matches(npx.matmul(npx.asarray(vector), npx.asarray(batch).mT),
                       vector @ batch.transpose(0, 2, 1))


# ---------------------------------------------------------------------------
# Views, 0-d, empty, hypothesis

@pytest.mark.parametrize("name", ["sum", "mean", "max", "min", "argmax", "argmin"])
def test_reductions_of_views_after_a_plan(rng, name):
    """A plan made on a contiguous array serves transposed, strided and reversed views of
    the same shape (reversed ones through a copy: an aclTensor has no negative stride)."""
    base = host_data(rng, (10, 12), "float32")
    d = npx.asarray(base)
    fn, reference = getattr(npx, name), getattr(np, name)
    first = np.ascontiguousarray(base[:5, :6])
    assert_matches(fn(npx.asarray(first), axis=1), reference(first, axis=1))
    for view, host in [(d[:6, :5].T, base[:6, :5].T), (d[::2, ::2], base[::2, ::2]),
                       (d[::-2, ::-2], base[::-2, ::-2]), (d[3:8, 1:12:2][:, :6],
                                                           base[3:8, 1:12:2][:, :6])]:
        assert_matches(fn(view, axis=1), reference(host, axis=1))


@pytest.mark.parametrize("name", ["sum", "mean", "max", "min"])
def test_zero_d_and_one_element_reductions(rng, name):
    for _ in range(2):
        a = host_data(rng, (), "float32")
        assert_matches(getattr(npx, name)(npx.asarray(a)), getattr(np, name)(a))
        b = host_data(rng, (1, 1), "float32")
        assert_matches(getattr(npx, name)(npx.asarray(b), axis=-1, keepdims=True),
                       getattr(np, name)(b, axis=-1, keepdims=True))


def test_empty_reductions_after_plans(rng):
    a = host_data(rng, (3, 4), "float32")
    for _ in range(2):
        npx.sum(npx.asarray(a), axis=1)
    empty = np.zeros((0, 4), np.float32)
    assert_matches(npx.sum(npx.asarray(empty), axis=1), np.sum(empty, axis=1))
    assert_matches(npx.sum(npx.asarray(empty), axis=0), np.sum(empty, axis=0))
    with np.errstate(invalid="ignore"):
        assert_matches(npx.mean(npx.asarray(empty), axis=0), np.mean(empty, axis=0))
    with pytest.raises(ValueError):
        npx.max(npx.asarray(empty), axis=0)
    with pytest.raises(ValueError):
        npx.argmin(npx.asarray(empty), axis=0)
    assert_matches(npx.argmin(npx.asarray(empty), axis=1), np.argmin(empty, axis=1))


@settings(max_examples=40, deadline=None)
@given(shape=st.lists(st.integers(1, 6), min_size=1, max_size=4), data=st.data())
def test_hypothesis_shapes_and_axes(shape, data):
    rng = np.random.default_rng(len(shape) * 31 + sum(shape))
    a = host_data(rng, tuple(shape), "float32")
    ndim = len(shape)
    axis = data.draw(st.integers(-ndim, ndim - 1))
    keepdims = data.draw(st.booleans())
    for _ in range(2):
        d = npx.asarray(a)
        assert_matches(npx.sum(d, axis=axis, keepdims=keepdims),
                       np.sum(a, axis=axis, keepdims=keepdims))
        assert_matches(npx.max(d, axis=axis, keepdims=keepdims),
                       np.max(a, axis=axis, keepdims=keepdims))
        assert_matches(npx.argmax(d, axis=axis, keepdims=keepdims),
                       np.argmax(a, axis=axis, keepdims=keepdims))


# ---------------------------------------------------------------------------
# Bad input after a plan exists

def test_bad_input_after_plans_raises_and_the_next_call_works(rng):
    a = host_data(rng, (4, 6), "float32")
    d = npx.asarray(a)
    for _ in range(2):
        npx.sum(d, axis=1), npx.max(d, axis=1), npx.argmax(d, axis=1), npx.matmul(d, d.T)
    with pytest.raises(np.exceptions.AxisError):
        npx.sum(d, axis=2)
    with pytest.raises(IndexError):
        npx.max(d, axis=-3)
    with pytest.raises(ValueError):
        npx.argmax(d, axis=5)
    with pytest.raises(ValueError):
        npx.sum(d, axis=(1, -1))
    with pytest.raises(TypeError):
        npx.max(npx.asarray(a.astype(np.complex64)), axis=1)
    with pytest.raises(TypeError):
        npx.argmin(npx.asarray(a.astype(np.complex64)), axis=1)
    with npx.transfer_guard("disallow"), pytest.raises(npx.ImplicitTransferError):
        npx.sum(a, axis=1)  # a NumPy array: an implicit upload
    with pytest.raises(ValueError):
        npx.matmul(d, d)  # (4, 6) @ (4, 6)
    with pytest.raises(TypeError):
        npx.matmul(npx.asarray(a > 0), npx.asarray(a > 0).T)
    assert_matches(npx.sum(d, axis=1), a.sum(axis=1))
    assert_matches(npx.argmax(d, axis=1), a.argmax(axis=1))
    assert_matches(npx.matmul(d, d.T), a @ a.T)


# ---------------------------------------------------------------------------
# The helpers' contract: arguments, workspace, errors of each phase

REDUCE_FIRST = ("int32_t(*)(void *, void *, bool, void *, uint64_t *, aclOpExecutor **)")
REDUCE_DTYPE_FIRST = ("int32_t(*)(void *, void *, bool, aclDataType, void *, uint64_t *, "
                      "aclOpExecutor **)")
REDUCE_INDEX_FIRST = "int32_t(*)(void *, int64_t, bool, void *, uint64_t *, aclOpExecutor **)"
STD_FIRST = "int32_t(*)(void *, void *, int64_t, bool, void *, uint64_t *, aclOpExecutor **)"
VAR_FIRST = "int32_t(*)(void *, void *, bool, bool, void *, uint64_t *, aclOpExecutor **)"
MATMUL_FIRST = "int32_t(*)(void *, void *, void *, int8_t, uint64_t *, aclOpExecutor **)"
SECOND = "int32_t(*)(void *, uint64_t, aclOpExecutor *, void *)"
FAKE_EXECUTOR = 0x5A5A0


@pytest.fixture
def fake(monkeypatch, forget_entry_points):
    """fake(op, signature): replaces ``op``'s two phases by recording callbacks with the
    operator's exact first-phase signature; returns (calls, behaviour), where behaviour
    sets each phase's status and the workspace size the first phase asks for."""
    keep = []

    def install(op, signature):
        calls, behaviour = [], {"first": 0, "second": 0, "workspace": 0}

        def first(*args):
            *params, size, executor = args
            calls.append(("first", params))
            size[0] = behaviour["workspace"]
            executor[0] = ffi.cast("aclOpExecutor *", FAKE_EXECUTOR)
            return behaviour["first"]

        def second(workspace, size, executor, stream):
            calls.append(("second", workspace, size, int(ffi.cast("uintptr_t", executor))))
            return behaviour["second"]

        callbacks = (ffi.callback(signature, first), ffi.callback(SECOND, second))
        keep.append(callbacks)
        monkeypatch.setitem(_ops._phases, op, callbacks)
        forget_entry_points()
        return calls, behaviour
    return install


def address(handle):
    return int(ffi.cast("uintptr_t", handle))


@needs_helper
def test_reduce_dtype_helper_passes_the_exact_arguments(fake, rng):
    calls, _ = fake("aclnnReduceSum", REDUCE_DTYPE_FIRST)
    x = npx.asarray(host_data(rng, (3, 4), "float32"))
    dims = _ops.acl_int_array((1,))
    out = _ops.reduction_result(x, "aclnnReduceSum", (dims, True, to_acl_dtype(x.dtype)),
                                (3, 1), x.dtype)
    assert out.shape == (3, 1) and out.dtype == np.float32
    (kind, params), second = calls
    assert kind == "first"
    assert address(params[0]) == address(_ops.acl_tensor(x))
    assert address(params[1]) == address(dims)
    assert params[2] is True and params[3] == to_acl_dtype(x.dtype)
    assert address(params[4]) == address(out._acl_tensor)
    assert second[0] == "second" and second[1] == ffi.NULL and second[2] == 0
    assert second[3] == FAKE_EXECUTOR


@needs_helper
def test_reduce_and_index_helpers_pass_the_exact_arguments(fake, rng):
    x = npx.asarray(host_data(rng, (3, 4), "float32"))
    calls, _ = fake("aclnnAmax", REDUCE_FIRST)
    dims = _ops.acl_int_array((0,))
    _ops.reduction_result(x, "aclnnAmax", (dims, False), (4,), x.dtype)
    params = calls[0][1]
    assert address(params[1]) == address(dims) and params[2] is False
    calls, _ = fake("aclnnArgMin", REDUCE_INDEX_FIRST)
    out = _ops.reduction_result(x, "aclnnArgMin", (-1, True), (3, 1), np.dtype(np.int64))
    params = calls[0][1]
    assert params[1] == -1 and params[2] is True
    assert address(params[3]) == address(out._acl_tensor)


@needs_helper
def test_moment_helpers_pass_the_exact_arguments(fake, rng):
    x = npx.asarray(host_data(rng, (3, 4), "float32"))
    dims = _ops.acl_int_array((1,))
    calls, _ = fake("aclnnStd", STD_FIRST)
    out = _ops.reduction_result(x, "aclnnStd", (dims, -2, True), (3, 1), x.dtype)
    params = calls[0][1]
    assert address(params[1]) == address(dims) and params[2] == -2 and params[3] is True
    assert address(params[4]) == address(out._acl_tensor)
    calls, behaviour = fake("aclnnVar", VAR_FIRST)
    _ops.reduction_result(x, "aclnnVar", (dims, True, False), (3,), x.dtype)
    assert calls[0][1][2:4] == [True, False]
    behaviour["second"] = 161002
    with pytest.raises(npx.AclError) as info:
        _ops.reduction_result(x, "aclnnVar", (dims, False, False), (3,), x.dtype)
    assert info.value.code == 161002 and info.value.api == "aclnnVar"


@needs_helper
@pytest.mark.parametrize("cube_math_type", [0, 1, 3])
def test_matmul_helper_passes_the_exact_arguments(fake, rng, cube_math_type):
    calls, _ = fake("aclnnMatmul", MATMUL_FIRST)
    x = npx.asarray(host_data(rng, (3, 4), "float32"))
    c = npx.asarray(host_data(rng, (2, 4), "float32"))
    out = _ops.matmul_result(x, c.T, (3, 2), cube_math_type)
    params = calls[0][1]
    assert address(params[0]) == address(_ops.acl_tensor(x))
    assert address(params[1]) == address(_ops._view_tensors[
        (c._buffer.ptr, c._buffer.nbytes, (4, 2), (1, 4), 0, c.dtype)])
    assert address(params[2]) == address(out._acl_tensor)
    assert params[3] == cube_math_type


@needs_helper
@pytest.mark.parametrize("op,signature,params,shape", [
    ("aclnnReduceSum", REDUCE_DTYPE_FIRST, "dtype", (3,)),
    ("aclnnAmin", REDUCE_FIRST, "dims", (3,)),
    ("aclnnArgMax", REDUCE_INDEX_FIRST, "index", (3,)),
    ("aclnnMatmul", MATMUL_FIRST, None, (3, 3)),
])
@pytest.mark.parametrize("phase", ["first", "second"])
def test_errors_name_their_phase_and_code(fake, rng, op, signature, params, shape, phase):
    calls, behaviour = fake(op, signature)
    behaviour[phase] = 161002
    x = npx.asarray(host_data(rng, (3, 4), "float32"))
    with pytest.raises(npx.AclError) as info:
        if params is None:
            _ops.matmul_result(x, x.T, shape, 0)
        else:
            dims = _ops.acl_int_array((1,))
            arguments = {"dtype": (dims, False, to_acl_dtype(x.dtype)), "dims": (dims, False),
                         "index": (1, False)}[params]
            dtype = np.dtype(np.int64) if params == "index" else x.dtype
            _ops.reduction_result(x, op, arguments, shape, dtype)
    assert info.value.code == 161002
    assert info.value.api == (op + "GetWorkspaceSize" if phase == "first" else op)
    assert [c[0] for c in calls] == (["first"] if phase == "first" else ["first", "second"])


@needs_helper
def test_a_workspace_request_is_served_by_the_pool(fake, rng):
    calls, behaviour = fake("aclnnMean", REDUCE_DTYPE_FIRST)
    behaviour["workspace"] = 8192
    x = npx.asarray(host_data(rng, (3, 4), "float32"))
    dims = _ops.acl_int_array((1,))
    _ops.reduction_result(x, "aclnnMean", (dims, False, to_acl_dtype(x.dtype)), (3,), x.dtype)
    _, workspace, size, executor = calls[1]
    assert workspace != ffi.NULL and size == 8192 and executor == FAKE_EXECUTOR


@needs_helper
def test_a_real_first_phase_error_raises_and_the_next_call_works(rng):
    """npusim's own refusal (aclnnReduceSum has no uint16 kernel: CANN documents none)
    comes back through the helper as AclError 161002 naming the first phase."""
    a = host_data(rng, (3, 4), "uint16")
    x = npx.asarray(a)
    dims = _ops.acl_int_array((1,))
    with pytest.raises(npx.AclError) as info:
        _ops.reduction_result(x, "aclnnReduceSum", (dims, False, to_acl_dtype(x.dtype)),
                              (3,), x.dtype)
    assert info.value.code == 161002
    assert info.value.api == "aclnnReduceSumGetWorkspaceSize"
    assert_matches(npx.sum(x, axis=1), a.sum(axis=1))  # through int64, as documented


def test_python_launch_gives_the_same_results(monkeypatch, forget_entry_points, rng):
    """Without the C helpers (a CANN-only install) the same paths launch from Python."""
    a = host_data(rng, (6, 5), "float32")
    c = host_data(rng, (3, 5), "float32")
    d, cd = npx.asarray(a), npx.asarray(c)

    def run():
        return [npx.sum(d, axis=1), npx.mean(d, axis=0), npx.max(d, axis=-1),
                npx.argmin(d, axis=1), npx.matmul(d, cd.T)]
    run()
    forget_entry_points()
    monkeypatch.setattr(_ops, "_launch_helper", None)
    results = run()
    assert set(_ops._exact_launchers) == {"aclnnReduceSum", "aclnnMean", "aclnnAmax",
                                          "aclnnArgMin", "aclnnMatmul"}
    assert all(entry is _ops._PYTHON_LAUNCH for entry in _ops._exact_launchers.values())
    expected = [a.sum(axis=1), a.mean(axis=0), a.max(axis=-1), a.argmin(axis=1), a @ c.T]
    for result, reference in zip(results, expected):
        assert_matches(result, reference)


@needs_helper
def test_helpers_with_entry_points_of_an_abi_mode_library(monkeypatch, forget_entry_points,
                                                         rng):
    """The CANN path: the provider is opened with ffi.dlopen (ABI mode, another cffi
    instance), so its entry points are foreign cdata. Here npusim's own library is opened
    that way, and each exact-signature helper runs its operator through them."""
    import cffi
    from npuarray import _npusim
    abi = cffi.FFI()
    abi.cdef("""
        typedef struct aclTensor aclTensor; typedef struct aclIntArray aclIntArray;
        typedef struct aclOpExecutor aclOpExecutor;
        int32_t aclnnReduceSumGetWorkspaceSize(const aclTensor* self, const aclIntArray* dims,
            bool keepDims, int dtype, aclTensor* out, uint64_t* workspaceSize,
            aclOpExecutor** executor);
        int32_t aclnnAmaxGetWorkspaceSize(const aclTensor* self, const aclIntArray* dim,
            bool keepDim, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor);
        int32_t aclnnArgMaxGetWorkspaceSize(const aclTensor* self, int64_t dim, bool keepdim,
            aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor);
        int32_t aclnnMatmulGetWorkspaceSize(const aclTensor* self, const aclTensor* mat2,
            aclTensor* out, int8_t cubeMathType, uint64_t* workspaceSize,
            aclOpExecutor** executor);
        int32_t aclnnReduceSum(void*, uint64_t, aclOpExecutor*, void*);
        int32_t aclnnAmax(void*, uint64_t, aclOpExecutor*, void*);
        int32_t aclnnArgMax(void*, uint64_t, aclOpExecutor*, void*);
        int32_t aclnnMatmul(void*, uint64_t, aclOpExecutor*, void*);""")
    library = abi.dlopen(_npusim.__file__)
    a = host_data(rng, (6, 5), "float32")
    c = host_data(rng, (3, 5), "float32")
    d, cd = npx.asarray(a), npx.asarray(c)

    def run():
        return [npx.sum(d, axis=1), npx.max(d, axis=0, keepdims=True),
                npx.argmax(d, axis=-1), npx.matmul(d, cd.T)]
    run()  # the plans (their first call takes launch(), which this test does not feed)
    ops = ("aclnnReduceSum", "aclnnAmax", "aclnnArgMax", "aclnnMatmul")
    forget_entry_points()
    for op in ops:
        monkeypatch.setitem(_ops._phases, op, (getattr(library, op + "GetWorkspaceSize"),
                                               getattr(library, op)))
    expected = [a.sum(axis=1), a.max(axis=0, keepdims=True), a.argmax(axis=-1), a @ c.T]
    for result, reference in zip(run(), expected):
        assert_matches(result, reference)
    # (the reductions launch from npuarray/_core/_fastpath.c, matmul through its exact helper:
    # both with the ABI-mode library's entry points)
    assert set(ops) <= set(_ops._entry_points)
    assert all(_ops._entry_points[op] is not _ops._PYTHON_LAUNCH for op in ops)


# ---------------------------------------------------------------------------
# Descriptors of views

def test_view_descriptors_are_shared_by_equal_views(rng):
    c = npx.asarray(host_data(rng, (5, 8), "float32"))
    first, second = c.T, c.T
    assert first is not second
    assert address(_ops.acl_tensor(first)) == address(_ops.acl_tensor(second))
    other = c[:, ::2]
    assert address(_ops.acl_tensor(other)) != address(_ops.acl_tensor(first))


def test_view_descriptor_after_the_block_is_recycled(rng):
    """A freed block reused by a new array (same address): its views, equal or not to the
    old ones, describe the new data; results stay right."""
    a = host_data(rng, (8, 6), "float32")
    x = npx.asarray(a)
    ptr = x._buffer.ptr
    assert_matches(npx.sum(x.T, axis=1), a.T.sum(axis=1))
    assert_matches(npx.matmul(x[:, ::2].T, x[:, ::2]), a[:, ::2].T @ a[:, ::2])
    old = address(_ops.acl_tensor(x.T))
    del x
    for _ in range(20):  # the pool hands the block back on the same stream
        b = host_data(rng, (8, 6), "float32")
        y = npx.asarray(b)
        if y._buffer.ptr == ptr:
            break
    else:
        pytest.skip("the pool did not reuse the block")
    assert address(_ops.acl_tensor(y.T)) == old  # the same description: the same handle
    assert_matches(npx.sum(y.T, axis=1), b.T.sum(axis=1))
    assert_matches(npx.max(y[1:, 1::2], axis=0), b[1:, 1::2].max(axis=0))
    assert_matches(npx.matmul(y.T, y), b.T @ b)
    reshaped = npx.reshape(y, (6, 8))  # another shape over the same block
    assert_matches(npx.sum(reshaped.T, axis=0), b.reshape(6, 8).T.sum(axis=0))
    assert_matches(npx.argmax(reshaped.T, axis=1), b.reshape(6, 8).T.argmax(axis=1))


def test_view_descriptor_of_a_block_reused_with_another_dtype(rng):
    """Same address and strides, another dtype: another descriptor."""
    a = host_data(rng, (4, 4), "int32")
    x = npx.asarray(a)
    view = x[:, 1:]
    assert_matches(npx.sum(view, axis=1), a[:, 1:].sum(axis=1))
    as_float = type(x)._from_buffer(x._buffer, (4, 3), (4, 1), 1, np.dtype(np.float32))
    assert address(_ops.acl_tensor(as_float)) != address(_ops.acl_tensor(view))
    expected = a.view(np.float32)[:, 1:].max(axis=1)
    assert_matches(npx.max(as_float, axis=1), expected)


def test_shape_writing_operators_do_not_change_shared_descriptors(rng):
    """aclnnNonzero rewrites its output's shape: launch() gives that output a private
    aclTensor, so the memoised descriptor of an equal view keeps its shape and later views
    of the same description still read every row."""
    a = rng.random((5, 4)) < 0.5
    a[0, 0] = True
    x = npx.asarray(a)
    stream = _ops.stream_of(x)
    block = npx.asarray(np.zeros((40, 2), np.int64))
    rows = block[:20]                                      # (20, 2) view of the block
    shared = _ops.acl_tensor(rows)
    _ops.launch("aclnnNonzero", x, rows, stream=stream)
    stream.synchronize()
    count = int(a.sum())
    assert _ops.view_shape(rows) == (count, 2)              # the operator's private tensor
    assert address(rows._acl_tensor) != address(shared)
    again = block[:20]                                     # the same description: the cache
    assert address(_ops.acl_tensor(again)) == address(shared)
    assert _ops.view_shape(again) == (20, 2)
    expected = np.zeros((20, 2), np.int64)
    expected[:count] = np.argwhere(a)
    assert_matches(npx.sum(again, axis=1), expected.sum(axis=1))
    for got, reference in zip(npx.nonzero(x), np.nonzero(a)):
        assert_matches(got, reference)


def test_view_cache_is_bounded(monkeypatch, rng):
    monkeypatch.setattr(_ops, "_view_tensors", {})
    monkeypatch.setattr(_ops, "_DESCRIPTOR_CACHE_SIZE", 8)
    a = host_data(rng, (4, 40), "float32")
    x = npx.asarray(a)
    for i in range(30):
        assert_matches(npx.sum(x[:, i:i + 3], axis=1), a[:, i:i + 3].sum(axis=1))
    assert len(_ops._view_tensors) <= 8


# ---------------------------------------------------------------------------
# aclIntArrays of dims

def test_dims_arrays_are_shared_and_bounded(monkeypatch, rng):
    monkeypatch.setattr(_ops, "_int_arrays", {})
    assert address(_ops.dims_array((0, 2))) == address(_ops.dims_array((0, 2)))
    assert address(_ops.dims_array((0, 2))) != address(_ops.dims_array((2,)))
    monkeypatch.setattr(_ops, "_INT_ARRAY_CACHE_SIZE", 4)
    a = host_data(rng, (2, 3, 4, 5), "float32")
    x = npx.asarray(a)
    axes = [(0,), (1,), (2,), (3,), (0, 1), (1, 3), (0, 2, 3), (0, 1, 2, 3)]
    for _ in range(2):
        for axis in axes:
            assert_matches(npx.std(x, axis=axis), a.std(axis=axis))
            assert_matches(npx.sum(x, axis=axis, keepdims=True),
                           a.sum(axis=axis, keepdims=True))
    assert len(_ops._int_arrays) <= 4


def test_reductions_that_cast_first_share_dims(monkeypatch, rng):
    """sum of int32 (accumulated in int64), mean of integers (in float64), var: several
    launches, no plan, the dims array from the cache."""
    monkeypatch.setattr(_ops, "_int_arrays", {})
    a = host_data(rng, (5, 6), "int32")
    x = npx.asarray(a)
    for _ in range(2):
        assert_matches(npx.sum(x, axis=1), a.sum(axis=1))
        assert_matches(npx.mean(x, axis=(0, 1)), a.mean(axis=(0, 1)))
        f = host_data(rng, (5, 6), "float32")
        assert_matches(npx.var(npx.asarray(f), axis=0, correction=1), f.var(axis=0, ddof=1))
    assert set(_ops._int_arrays) == {(1,), (0, 1), (0,)}


# ---------------------------------------------------------------------------
# Streams, capture, threads, profiler

def test_reductions_on_a_stream_and_across_streams(rng):
    a = host_data(rng, (16, 9), "float32")
    x = npx.asarray(a)
    s1, s2 = npx.Stream(), npx.Stream()
    with s1:
        for _ in range(2):
            total = npx.sum(x, axis=1)
            product = npx.matmul(x, x.T)
    with s2:  # used on another stream: ordered after s1's work
        assert_matches(npx.max(total, axis=0), a.sum(axis=1).max(axis=0))
        assert_matches(npx.argmax(product, axis=1), (a @ a.T).argmax(axis=1))


def test_reductions_in_a_graph_capture(rng):
    a = host_data(rng, (8, 5), "float32")
    c = host_data(rng, (3, 5), "float32")
    x, cd = npx.asarray(a), npx.asarray(c)
    for _ in range(2):  # plans exist before the capture
        npx.sum(x, axis=1), npx.argmin(x, axis=1), npx.matmul(x, cd.T), npx.argmax(x)
    stream = npx.Stream()
    graph = npx.Graph()
    with stream:
        with graph.capture():
            total = npx.sum(x, axis=1)
            index = npx.argmin(x, axis=1)
            flat_index = npx.argmax(x, keepdims=True)
            product = npx.matmul(x, cd.T)
        graph.replay()
        stream.synchronize()
    assert_matches(total, a.sum(axis=1))
    assert_matches(index, a.argmin(axis=1))
    assert_matches(flat_index, a.argmax(keepdims=True))
    assert_matches(product, a @ c.T)
    graph.destroy()


def test_reductions_from_threads(rng):
    hosts = [host_data(rng, (12, 7), "float32") for _ in range(4)]
    errors = []

    def work(a):
        try:
            with npx.Stream():
                x = npx.asarray(a)
                for _ in range(20):
                    assert_matches(npx.sum(x, axis=1), a.sum(axis=1))
                    assert_matches(npx.argmax(x.T, axis=1), a.T.argmax(axis=1))
                    assert_matches(npx.matmul(x, x.T), a @ a.T)
        except Exception as exc:  # handed to the test thread
            errors.append(exc)
    threads = [threading.Thread(target=work, args=(a,)) for a in hosts]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not errors, errors


def test_fast_paths_are_profiled(rng):
    x = npx.asarray(host_data(rng, (3, 4), "float32"))
    for _ in range(2):
        npx.sum(x, axis=1), npx.argmax(x, axis=0), npx.matmul(x, x.T)
    with npx.profile() as prof:
        npx.sum(x, axis=1)
        npx.argmax(x, axis=0)
        npx.matmul(x, x.T)
    f32, i64 = np.dtype(np.float32), np.dtype(np.int64)
    launches = [(r.name, r.shapes, r.dtypes) for r in prof.records if r.kind == "launch"]
    assert launches == [("aclnnReduceSum", ((3, 4), (3,)), (f32, f32)),
                        ("aclnnArgMax", ((3, 4), (4,)), (f32, i64)),
                        ("aclnnMatmul", ((3, 4), (4, 3), (3, 3)), (f32, f32, f32))]
