"""The launch paths of binary operators: ``x + y`` for two arrays whose dtypes the aclnn
operator takes as they are runs in C (``_fastpath.BinaryOperator``); everything else takes
the one Python path, ``_Binary._general`` -> ``_ops.launch``, which runs both aclnn phases
of pointer-only operators in one call of the C helper ``npuarray_aclnn_launch``. These tests
check that the two paths give what NumPy gives, for every dtype pair, shapes, views,
scalars, in-place forms, errors, streams, capture and threads, and the C helper's contract
(workspace, errors of each phase)."""
import threading

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import npuarray as npx
from npuarray._core import _elementwise, _ops
from npuarray._acl import ffi
from npuarray._core._data_type import BFLOAT16

DTYPES = [np.dtype(n) for n in ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16",
                                "uint32", "uint64", "float16", "float32", "float64",
                                "complex64", "complex128")] + [BFLOAT16]
# The operators bound to the fast path (NPUArray dunder -> array API function).
OPERATORS = {"add": "__add__", "subtract": "__sub__", "multiply": "__mul__",
             "divide": "__truediv__", "equal": "__eq__", "not_equal": "__ne__",
             "less": "__lt__", "less_equal": "__le__", "greater": "__gt__",
             "greater_equal": "__ge__"}
NUMPY = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply, "divide": np.divide,
         "equal": np.equal, "not_equal": np.not_equal, "less": np.less,
         "less_equal": np.less_equal, "greater": np.greater, "greater_equal": np.greater_equal}


def random_host(rng, dtype, shape):
    """Values of ``dtype`` that every operator takes without overflow surprises (no zero
    divisors: integer division by zero is not what this file tests)."""
    if dtype == np.bool_:
        return rng.integers(0, 2, size=shape).astype(bool)
    if dtype.kind in "iu":
        return rng.integers(1, 10, size=shape).astype(dtype)
    values = rng.uniform(0.5, 4.0, size=shape)
    if dtype.kind == "c":
        values = values + 1j * rng.uniform(0.5, 4.0, size=shape)
    return values.astype(dtype)


def general(name, x1, x2):
    """The general path of ``name`` (no fast path): the plan's dispatch by operand kind."""
    return _elementwise._BINARY[name]._general(x1, x2)


def outcome(fn):
    """(dtype, shape, host values) of fn(), or the exception type it raises."""
    try:
        result = fn()
    except (TypeError, ValueError, OverflowError) as exc:
        return type(exc)
    return result.dtype, result.shape, result.to_host()


def assert_same_outcome(fast, slow):
    if isinstance(fast, type) or isinstance(slow, type):
        assert fast is slow
        return
    assert fast[0] == slow[0] and fast[1] == slow[1]
    if fast[0] == BFLOAT16:  # (NumPy's testing does not see bfloat16 NaNs as NaNs)
        fast, slow = [(None, None, values.astype(np.float32)) for *_, values in (fast, slow)]
    np.testing.assert_array_equal(fast[2], slow[2])


@pytest.mark.parametrize("dtype2", DTYPES, ids=str)
@pytest.mark.parametrize("dtype1", DTYPES, ids=str)
def test_every_dtype_pair_agrees_with_the_general_path(dtype1, dtype2, rng):
    a, b = random_host(rng, dtype1, (3, 4)), random_host(rng, dtype2, (3, 4))
    x, y = npx.asarray(a), npx.asarray(b)
    for name, dunder in OPERATORS.items():
        fast = outcome(lambda: getattr(x, dunder)(y))
        assert_same_outcome(fast, outcome(lambda: general(name, x, y)))
        assert_same_outcome(outcome(lambda: getattr(npx, name)(x, y)), fast)


@pytest.mark.parametrize("dtype", [d for d in DTYPES if d != BFLOAT16], ids=str)
@pytest.mark.parametrize("name", list(OPERATORS))
def test_same_dtype_operands_match_numpy(name, dtype, rng):
    a, b = random_host(rng, dtype, (5, 6)), random_host(rng, dtype, (5, 6))
    x, y = npx.asarray(a), npx.asarray(b)
    if name == "subtract" and dtype == np.bool_:
        with pytest.raises(TypeError):
            x - y
        return
    if dtype.kind == "c" and name in ("less", "less_equal", "greater", "greater_equal"):
        with pytest.raises(TypeError):
            getattr(x, OPERATORS[name])(y)
        return
    result = getattr(x, OPERATORS[name])(y)
    with np.errstate(divide="ignore", invalid="ignore"):  # bool / bool divides by False
        expected = NUMPY[name](a, b)
    assert result.dtype == expected.dtype and result.shape == expected.shape
    np.testing.assert_allclose(result.to_host(), expected, rtol=1e-3 if dtype == np.float16
                               else 1e-6)


def python_call(name):
    """The Python body of the binary function ``name`` (its general path), behind the C
    common case of npuarray.<name> and the operators (tests/core/test_fastpath.py)."""
    call = _elementwise._BINARY[name].call
    return getattr(call, "__wrapped__", call)


def counted_launches(monkeypatch):
    """The operators launched through _ops.launch (the one Python path), by name."""
    launched = []
    real = _ops.launch
    monkeypatch.setattr(_ops, "launch", lambda *args, **kwargs: (launched.append(args[0]),
                                                                 real(*args, **kwargs))[1])
    return launched


def test_arrays_made_by_operators_run_in_c(monkeypatch, rng):
    """Arrays with cached aclTensors outside a capture: x + y in C, the result with its
    aclTensor from the descriptor cache; the Python path launches the same operator."""
    x = npx.asarray(rng.standard_normal(16).astype(np.float32))
    y = x * 2.0
    (x + y, x + y)  # (the plan is made by a first Python call, and blocks cached)
    before = _ops.fastpath_counts()["arrays"]
    launched = counted_launches(monkeypatch)
    z = x + y
    assert _ops.fastpath_counts()["arrays"] == before + 1 and launched == []
    assert z._acl_tensor is not None
    w = python_call("add")(x, y)
    assert launched == ["aclnnAdd"]
    np.testing.assert_allclose(z.to_host(), x.to_host() * 3, rtol=1e-6)
    np.testing.assert_array_equal(w.to_host(), z.to_host())


@pytest.mark.parametrize("shape1, shape2", [((3, 1), (4,)), ((), (5,)), ((2, 3), ()),
                                            ((4, 1, 3), (2, 1)), ((1,), (7, 1))])
def test_broadcasting(shape1, shape2, rng):
    a = rng.standard_normal(shape1).astype(np.float32)
    b = rng.standard_normal(shape2).astype(np.float32)
    x, y = npx.asarray(a), npx.asarray(b)
    for name, dunder in OPERATORS.items():
        result = getattr(x, dunder)(y)
        expected = NUMPY[name](a, b)
        assert result.shape == expected.shape
        np.testing.assert_allclose(result.to_host(), expected, rtol=1e-6)


def test_zero_dimensional_and_empty(rng):
    x, y = npx.asarray(np.float64(1.5)), npx.asarray(np.float64(-2.25))
    assert (x + y).shape == () and float(x * y) == -3.375
    e1, e2 = npx.asarray(np.zeros((0, 3), np.float32)), npx.asarray(np.ones((1, 3), np.float32))
    for dunder in OPERATORS.values():
        result = getattr(e1, dunder)(e2)
        assert result.shape == (0, 3)
        assert result.to_host().shape == (0, 3)


def test_views_transposed_strided_and_negative_steps(rng):
    a = rng.standard_normal((6, 8)).astype(np.float32)
    b = rng.standard_normal((8, 6)).astype(np.float32)
    x, y = npx.asarray(a), npx.asarray(b)
    cases = [(x.T, y, a.T, b), (x[::2, 1::3], y[1::3, ::2].T, a[::2, 1::3], b[1::3, ::2].T),
             (x[::-1], y.T[:, ::-1], a[::-1], b.T[:, ::-1]), (x[:, ::-2], x[::-1, 1::2],
                                                              a[:, ::-2], a[::-1, 1::2])]
    for u, v, p, q in cases:
        for _ in range(2):  # the second time the views have their aclTensors (if describable)
            for name, dunder in OPERATORS.items():
                np.testing.assert_allclose(getattr(u, dunder)(v).to_host(), NUMPY[name](p, q),
                                           rtol=1e-6)
    np.testing.assert_array_equal(x.to_host(), a)  # operands are never written


@pytest.mark.parametrize("scalar", [2, -3, 1.5, True, np.float32(0.25), np.int8(3)],
                         ids=repr)
def test_scalars_take_the_general_path_and_match_numpy(scalar, rng):
    a = rng.uniform(1, 4, size=(3, 5)).astype(np.float32)
    x = npx.asarray(a)
    for name, dunder in OPERATORS.items():
        expected = NUMPY[name](a, scalar)
        result = getattr(x, dunder)(scalar)
        assert result.dtype == expected.dtype
        np.testing.assert_allclose(result.to_host(), expected, rtol=1e-6)
        reflected = getattr(npx, name)(scalar, x)
        np.testing.assert_allclose(reflected.to_host(), NUMPY[name](scalar, a), rtol=1e-6)


SCALARS = [3, -2, 0, 1.5, -0.0, float("inf"), float("nan"), 300, -129, 2**40, 2**70]


@pytest.mark.filterwarnings("ignore:overflow encountered in cast")  # 2**70 as float16
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_python_scalars_agree_with_the_general_path(dtype, rng):
    """``x <op> scalar`` and ``scalar <op> x`` for Python ints and floats (the scalar fast
    path: aclnnAdds, aclnnMuls, aclnnRsubs, aclnnEqScalar ...), including ints that do not
    fit the dtype (OverflowError, or a wider comparison, as NumPy 2), signed zeros, inf, nan."""
    x = npx.asarray(random_host(rng, dtype, (2, 3)))
    for value in SCALARS:
        for name in OPERATORS:
            spec = _elementwise._BINARY[name]
            fast = outcome(lambda: spec.call(x, value))
            assert_same_outcome(fast, outcome(lambda: spec._general(x, value)))
            reflected = outcome(lambda: spec.call(value, x))
            assert_same_outcome(reflected, outcome(lambda: spec._general(value, x)))


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int32", "float32", "float64", "complex64"])
def test_python_scalars_match_numpy(dtype, rng):
    dtype = np.dtype(dtype)
    a = random_host(rng, dtype, (4, 5))
    x = npx.asarray(a)
    for value in (3, 2.5, -1.0):
        if dtype.kind in "iu" and isinstance(value, float):
            continue   # the array API promotes to the default float; NumPy keeps float64 too
        if dtype.kind == "u" and value < 0:
            continue
        for name, dunder in OPERATORS.items():
            if dtype.kind == "c" and name in ("less", "less_equal", "greater", "greater_equal"):
                continue
            with np.errstate(all="ignore"):
                expected = NUMPY[name](a, value)
                reflected = NUMPY[name](value, a)
            result = getattr(x, dunder)(value)
            assert result.dtype == expected.dtype
            np.testing.assert_allclose(result.to_host(), expected, rtol=1e-6)
            np.testing.assert_allclose(getattr(npx, name)(value, x).to_host(), reflected,
                                       rtol=1e-6)


def test_python_scalars_run_in_c(monkeypatch, rng):
    x = npx.asarray(rng.standard_normal(16).astype(np.float32))

    def run():
        y = x * 2.0
        return y, 1 - y, y >= 0.5
    run(), run()  # (plans made by a first Python call, blocks cached)
    before = _ops.fastpath_counts()["scalar"]
    launched = counted_launches(monkeypatch)
    y, z, w = run()
    assert _ops.fastpath_counts()["scalar"] == before + 3 and launched == []
    np.testing.assert_allclose(z.to_host(), 1 - 2 * x.to_host(), rtol=1e-6)
    np.testing.assert_array_equal(w.to_host(), 2 * x.to_host() >= 0.5)
    python_call("multiply")(x, 2.0), npx.subtract(1, y), python_call("greater_equal")(y, 0.5)
    assert launched == ["aclnnMuls", "aclnnRsubs", "aclnnGeScalar"]


def test_in_place_operators(rng):
    a = rng.uniform(1, 4, size=(4, 4)).astype(np.float32)
    b = rng.uniform(1, 4, size=(4,)).astype(np.float32)
    x, y = npx.asarray(a), npx.asarray(b)
    buffer = x._buffer
    x += y
    x *= y
    x -= 1.0
    x /= y
    assert x._buffer is buffer
    np.testing.assert_allclose(x.to_host(), ((a + b) * b - 1.0) / b, rtol=1e-6)
    with pytest.raises(ValueError):
        y += x   # the broadcast result does not fit y
    np.testing.assert_array_equal(y.to_host(), b)


INPLACE = {"add": "__iadd__", "subtract": "__isub__", "multiply": "__imul__",
           "divide": "__itruediv__"}


def inplace_outcome(dtype1, dtype2, dunder, rng, seed_shape=(3, 4), other_shape=(3, 4)):
    a, b = random_host(rng, dtype1, seed_shape), random_host(rng, dtype2, other_shape)
    x, y = npx.asarray(a), npx.asarray(b)
    try:
        getattr(x, dunder)(y)
    except (TypeError, ValueError) as exc:
        np.testing.assert_array_equal(x.to_host(), a)  # unchanged on error
        return type(exc)
    return x.dtype, x.shape, x.to_host()


@pytest.mark.parametrize("dtype2", DTYPES, ids=str)
@pytest.mark.parametrize("dtype1", DTYPES, ids=str)
def test_in_place_every_dtype_pair_agrees_with_the_general_path(dtype1, dtype2, rng,
                                                                monkeypatch):
    """x += y, -=, *=, /= through aclnnInplaceAdd/Sub/Mul/Div give what the general path
    (the result computed apart, then copied into x) gives, including its refusals."""
    seed = int(rng.integers(0, 2**32))
    fast = {d: inplace_outcome(dtype1, dtype2, d, np.random.default_rng(seed))
            for d in INPLACE.values()}
    monkeypatch.setattr(_elementwise, "_inplace_fast", lambda *args: False)
    for dunder, outcome_fast in fast.items():
        slow = inplace_outcome(dtype1, dtype2, dunder, np.random.default_rng(seed))
        assert_same_outcome(outcome_fast, slow)


def test_the_in_place_fast_path_is_taken(monkeypatch, rng):
    a = rng.standard_normal((4, 4)).astype(np.float32)
    b = rng.standard_normal(4).astype(np.float32)
    x, y = npx.asarray(a), npx.asarray(b)
    launched = counted_launches(monkeypatch)
    for name, other in [("add", y), ("subtract", y), ("multiply", y), ("divide", y),
                        ("add", x)]:  # (the operators' C path: tests/core/test_fastpath.py)
        _elementwise.inplace(name, x, other)
    assert launched == ["aclnnInplaceAdd", "aclnnInplaceSub", "aclnnInplaceMul",
                        "aclnnInplaceDiv", "aclnnInplaceAdd"]
    np.testing.assert_allclose(x.to_host(), 2 * (a * b / b), rtol=1e-5)


@pytest.mark.parametrize("target, source", [
    (np.s_[1:], np.s_[:-1]), (np.s_[:-1], np.s_[1:]), (np.s_[::2], np.s_[1::2]),
    (np.s_[::-1], np.s_[:]), (np.s_[2:6], np.s_[4:8])])
def test_in_place_with_overlapping_operands_matches_numpy(target, source, rng):
    a = rng.standard_normal(8)
    x = npx.asarray(a)
    expected = a.copy()
    view_expected = expected[target]
    view_expected += expected[source].copy()   # NumPy buffers overlapping operands
    view = x[target]
    view += x[source]
    np.testing.assert_allclose(x.to_host(), expected, rtol=1e-12)


def test_in_place_on_views_and_errors(rng):
    a = rng.standard_normal((6, 4)).astype(np.float32)
    b = rng.standard_normal((4,)).astype(np.float32)
    x, y = npx.asarray(a), npx.asarray(b)
    view = x.T[1:3]          # strided, non-contiguous
    view *= npx.asarray(np.full((2, 6), 3, np.float32))
    expected = a.copy()
    expected.T[1:3] *= 3
    np.testing.assert_allclose(x.to_host(), expected, rtol=1e-6)
    with pytest.raises(ValueError):
        y += x                                   # result shape (6, 4) does not fit y
    with pytest.raises(ValueError, match="read-only"):
        repeated = npx.broadcast_to(y, (3, 4))
        repeated += y
    counts = npx.asarray(np.arange(4, dtype=np.int32))
    with pytest.raises(TypeError):
        counts += y                              # float into int32: not same_kind
    np.testing.assert_array_equal(counts.to_host(), np.arange(4))
    np.testing.assert_array_equal(y.to_host(), b)
    zero_d = npx.asarray(np.float64(2.0))
    zero_d *= npx.asarray(np.float64(4.0))
    assert float(zero_d) == 8.0
    empty = npx.asarray(np.zeros((0, 4), np.float32))
    empty += y
    assert empty.shape == (0, 4)


def test_in_place_from_another_stream_and_in_a_capture(rng):
    a = rng.standard_normal(4096).astype(np.float32)
    producer, consumer = npx.Stream(), npx.Stream()
    with producer:
        x = npx.asarray(a)
        y = x
        for _ in range(10):
            y = y * 1.0 + 1.0
    with consumer:
        x += y
    np.testing.assert_allclose(x.to_host(), a + a + 10, rtol=1e-5)
    with consumer:
        graph = npx.Graph()
        with graph.capture():
            x += y
        graph.replay()
        graph.replay()
    np.testing.assert_allclose(x.to_host(), a + a + 10 + 2 * (a + 10), rtol=1e-5)
    graph.destroy()


def test_python_and_c_launches_agree(monkeypatch, forget_entry_points, rng):
    """The C path, the Python path through the C helper and the two-call Python launch
    (no helper: a CANN-only install) give the same results."""
    a = rng.standard_normal((7, 3))
    b = rng.standard_normal((7, 3))
    x, y = npx.asarray(a), npx.asarray(b)
    in_c = [(getattr(x, d)(y)).to_host() for d in OPERATORS.values()]
    with_helper = [python_call(name)(x, y).to_host() for name in OPERATORS]
    assert all(_ops._pointer_entry_points[_elementwise._BINARY[name].op][2] == 3
               for name in OPERATORS if name not in ("add", "subtract"))  # (+ alpha: 4)
    forget_entry_points()
    monkeypatch.setattr(_ops, "_launch_helper", None)
    without = [(getattr(x, d)(y)).to_host() for d in OPERATORS.values()]
    assert _ops._entry_points and all(entry is _ops._PYTHON_LAUNCH
                                      for entry in _ops._entry_points.values())
    for one, other in zip(in_c, with_helper):
        np.testing.assert_array_equal(one, other)
    for one, other in zip(with_helper, without):
        np.testing.assert_array_equal(one, other)


def test_shapes_that_do_not_broadcast_raise_and_the_next_operation_works(rng):
    x = npx.asarray(rng.standard_normal((3, 4)).astype(np.float32))
    y = npx.asarray(rng.standard_normal((5,)).astype(np.float32))
    with pytest.raises(ValueError, match="broadcast"):
        x + y
    flags = npx.asarray(np.ones(4, bool))
    with pytest.raises(TypeError):
        flags - flags   # bool subtraction: refused by the plan, as NumPy
    with pytest.raises(TypeError):
        x + "text"
    np.testing.assert_allclose((x + x).to_host(), 2 * x.to_host())


def test_arrays_on_different_devices_raise_value_error(rng):
    if npx.device_count() < 2:
        pytest.skip("needs two devices")
    a = rng.standard_normal(8).astype(np.float32)
    x = npx.asarray(a)
    with npx.Device(1):
        y = npx.asarray(a)
    with pytest.raises(ValueError, match="different devices"):
        x + y
    np.testing.assert_allclose((x + x).to_host(), 2 * a)


def test_operator_errors_name_the_phase_that_failed(rng):
    """A first phase refusing its arguments raises an AclError naming
    ``aclnn<Op>GetWorkspaceSize`` with npusim's message; the next operation works."""
    x = npx.asarray(rng.standard_normal(4).astype(np.float32))
    wrong = npx.asarray(np.zeros(5, np.float32))
    alpha = _ops.acl_scalar(1, x.dtype)
    with pytest.raises(npx.AclError) as info:
        _ops.launch("aclnnAdd", x, x, alpha, wrong)
    assert info.value.code == 161002 and info.value.api == "aclnnAddGetWorkspaceSize"
    np.testing.assert_allclose((x + x).to_host(), 2 * x.to_host())


# -- the C helper's contract, with stand-in phases (cffi callbacks) -----------------------------

FIRST = "int32_t(void *, void *, void *, uint64_t *, void **)"
SECOND = "int32_t(void *, uint64_t, void *, void *)"


@pytest.fixture
def fake_operator(monkeypatch, forget_entry_points):
    """Registers ``aclnnFake`` with cffi-callback phases; returns the list of calls."""
    calls = []
    behaviour = {"workspace": 0, "first": 0, "second": 0}

    @ffi.callback(FIRST)
    def first(self, other, out, size, executor):
        calls.append(("first", self, other, out))
        size[0] = behaviour["workspace"]
        executor[0] = ffi.cast("void *", 0x5A5A0)
        return behaviour["first"]

    @ffi.callback(SECOND)
    def second(workspace, size, executor, stream):
        calls.append(("second", workspace, size, int(ffi.cast("uintptr_t", executor)), stream))
        return behaviour["second"]

    monkeypatch.setitem(_ops._phases, "aclnnFake", (first, second))
    forget_entry_points()
    return calls, behaviour


def _tensors(rng):
    x = npx.asarray(rng.standard_normal(4).astype(np.float32))
    return x, _ops.acl_tensor(x), _ops.stream_of(x)


def test_helper_runs_both_phases_on_the_stream(fake_operator, rng):
    if _ops._launch_helper is None:
        pytest.skip("the C helper is not built")
    calls, _ = fake_operator
    x, t, stream = _tensors(rng)
    _ops.launch("aclnnFake", x, x, x, stream=stream)
    assert [c[0] for c in calls] == ["first", "second"]
    address = int(ffi.cast("uintptr_t", t))
    assert [int(ffi.cast("uintptr_t", p)) for p in calls[0][1:]] == [address] * 3
    _, workspace, size, executor, on = calls[1]
    assert workspace == ffi.NULL and size == 0 and executor == 0x5A5A0
    assert int(ffi.cast("uintptr_t", on)) == int(ffi.cast("uintptr_t", stream.handle))


def test_helper_leaves_a_workspace_to_the_pool(fake_operator, rng):
    calls, behaviour = fake_operator
    behaviour["workspace"] = 4096
    x, t, stream = _tensors(rng)
    _ops.launch("aclnnFake", x, x, x, stream=stream)
    _, workspace, size, executor, _ = calls[1]
    assert workspace != ffi.NULL and size == 4096 and executor == 0x5A5A0


@pytest.mark.parametrize("phase", ["first", "second"])
def test_helper_errors_name_their_phase(fake_operator, phase, rng):
    calls, behaviour = fake_operator
    behaviour[phase] = 161002
    x, t, stream = _tensors(rng)
    with pytest.raises(npx.AclError) as info:
        _ops.launch("aclnnFake", x, x, x, stream=stream)
    assert info.value.code == 161002
    assert info.value.api == ("aclnnFakeGetWorkspaceSize" if phase == "first" else "aclnnFake")
    assert [c[0] for c in calls] == (["first"] if phase == "first" else ["first", "second"])


def test_helper_with_entry_points_and_handles_of_an_abi_mode_library(monkeypatch,
                                                                     forget_entry_points, rng):
    """The CANN path: the provider is opened with ffi.dlopen (ABI mode, another cffi
    instance), so its entry points and handles are foreign cdata. Here npusim's own
    library is opened that way, and x + y, x * 2.0, x += y run through the helper."""
    import cffi
    from npuarray import _npusim
    abi = cffi.FFI()
    abi.cdef("""
        typedef struct aclTensor aclTensor; typedef struct aclScalar aclScalar;
        typedef struct aclOpExecutor aclOpExecutor;
        int32_t aclnnAddGetWorkspaceSize(const aclTensor* self, const aclTensor* other,
            const aclScalar* alpha, aclTensor* out, uint64_t* workspaceSize,
            aclOpExecutor** executor);
        int32_t aclnnMulsGetWorkspaceSize(const aclTensor* self, const aclScalar* other,
            aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor);
        int32_t aclnnInplaceAddGetWorkspaceSize(const aclTensor* selfRef,
            const aclTensor* other, const aclScalar* alpha, uint64_t* workspaceSize,
            aclOpExecutor** executor);
        int32_t aclnnAdd(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
            void* stream);
        int32_t aclnnMuls(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
            void* stream);
        int32_t aclnnInplaceAdd(void* workspace, uint64_t workspaceSize,
            aclOpExecutor* executor, void* stream);""")
    library = abi.dlopen(_npusim.__file__)
    forget_entry_points()
    for op in ("aclnnAdd", "aclnnMuls", "aclnnInplaceAdd"):
        monkeypatch.setitem(_ops._phases, op, (getattr(library, op + "GetWorkspaceSize"),
                                               getattr(library, op)))
    foreign = abi.cast("aclTensor *", 0)  # a handle type of the other cffi instance
    real_helper = _ops._launch_helper

    def with_foreign_handles(first, second, count, *pointers_and_stream):
        *pointers, stream = pointers_and_stream
        pointers = [abi.cast(abi.typeof(foreign), int(ffi.cast("uintptr_t", p)))
                    for p in pointers]
        return real_helper(first, second, count, *pointers, stream)

    monkeypatch.setattr(_ops, "_launch_helper", with_foreign_handles)
    a = rng.standard_normal(6).astype(np.float32)
    b = rng.standard_normal(6).astype(np.float32)
    x, y = npx.asarray(a), npx.asarray(b)
    z = python_call("add")(x, y)
    w = npx.multiply(z, 2.0)
    _elementwise.inplace("add", w, y)
    np.testing.assert_allclose(w.to_host(), (a + b) * 2 + b, rtol=1e-6)
    assert set(_ops._entry_points) == {"aclnnAdd", "aclnnMuls", "aclnnInplaceAdd"}
    assert all(entry is not _ops._PYTHON_LAUNCH for entry in _ops._entry_points.values())


def test_helper_refuses_other_operand_counts(rng):
    if _ops._launch_helper is None:
        pytest.skip("the C helper is not built")
    x, t, stream = _tensors(rng)
    first, second = _ops._entry_points_of("aclnnAdd")
    for count in (0, 1, 5, -3):
        assert _ops._launch_helper(first, second, count, t, t, t, t, stream.handle) == 161002
        assert _ops._helper_lib.npuarray_aclnn_failed_phase() == 1
    np.testing.assert_allclose((x + x).to_host(), 2 * x.to_host())


def test_fast_paths_are_profiled(rng):
    """Each fast path keeps the profiler's launch record: operator, operand shapes, dtypes."""
    x = npx.asarray(rng.standard_normal((2, 3)).astype(np.float32))
    y = npx.asarray(rng.standard_normal(3).astype(np.float32))
    with npx.profile() as prof:
        z = x + y
        w = z * 2.0
        w += y
    launches = [(r.name, r.shapes, r.dtypes) for r in prof.records if r.kind == "launch"]
    f32 = np.dtype(np.float32)
    assert launches == [("aclnnAdd", ((2, 3), (3,), (2, 3)), (f32, f32, f32)),
                        ("aclnnMuls", ((2, 3), (2, 3)), (f32, f32)),
                        ("aclnnInplaceAdd", ((2, 3), (3,)), (f32, f32))]
    np.testing.assert_allclose(w.to_host(), (x.to_host() + y.to_host()) * 2 + y.to_host(),
                               rtol=1e-6)


# -- streams, capture, threads ------------------------------------------------------------------

def test_operands_from_another_stream_are_ordered_by_events(rng):
    a = rng.standard_normal(1 << 16).astype(np.float32)
    producer, consumer = npx.Stream(), npx.Stream()
    with producer:
        x = npx.asarray(a)
        for _ in range(20):   # pending work on the producer when the consumer reads x
            x = x * 1.0 + 1.0
    with consumer:
        z = x + x
    assert z._buffer.stream is consumer
    np.testing.assert_allclose(z.to_host(), 2 * (a + 20), rtol=1e-5)


def test_results_of_the_current_stream(rng):
    x = npx.asarray(rng.standard_normal(32).astype(np.float32))
    s = npx.Stream()
    with s:
        y = x + x
    assert y._buffer.stream is s
    assert x._buffer.stream is s      # prepared for s: its later reuse waits for s
    s.synchronize()
    np.testing.assert_allclose(y.to_host(), 2 * x.to_host())


def test_capture_takes_the_general_path_and_replays(rng):
    a = rng.standard_normal((8, 8)).astype(np.float32)
    stream = npx.Stream()
    with stream:
        x = npx.asarray(a)
        y = x * 1.0
        graph = npx.Graph()
        with graph.capture():
            z = x + y
            w = z * z
        for _ in range(2):
            fresh = rng.standard_normal((8, 8)).astype(np.float32)
            x[...] = npx.asarray(fresh)
            graph.replay()
            np.testing.assert_allclose(w.to_host(), (fresh + a) ** 2, rtol=1e-5)
    graph.destroy()


def test_threads_each_on_their_own_stream(rng):
    a = rng.standard_normal(64).astype(np.float32)
    x = npx.asarray(a)
    x.to_host()
    results, errors = {}, []

    def work(index):
        try:
            with npx.Stream():
                y = x
                for _ in range(200):
                    y = y + x
                results[index] = y.to_host()
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for value in results.values():
        np.testing.assert_allclose(value, 201 * a, rtol=1e-4)


@settings(max_examples=40, deadline=None)
@given(shape1=st.lists(st.integers(1, 4), max_size=3).map(tuple),
       shape2=st.lists(st.integers(1, 4), max_size=3).map(tuple),
       data=st.data())
def test_hypothesis_shapes_match_numpy(shape1, shape2, data):
    try:
        expected_shape = np.broadcast_shapes(shape1, shape2)
    except ValueError:
        expected_shape = None
    seed = data.draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape1).astype(np.float32)
    b = rng.standard_normal(shape2).astype(np.float32)
    x, y = npx.asarray(a), npx.asarray(b)
    if expected_shape is None:
        with pytest.raises(ValueError):
            x + y
        return
    for name, dunder in OPERATORS.items():
        result = getattr(x, dunder)(y)
        assert result.shape == expected_shape
        np.testing.assert_allclose(result.to_host(), NUMPY[name](a, b), rtol=1e-6)


def test_a_launch_with_the_wrong_number_of_arguments_raises(rng):
    """launch() hands the C helper only the operator's own number of pointers: a call with
    one missing (aclnnAdd without alpha) is refused by cffi, not run with a NULL."""
    x = npx.asarray(rng.standard_normal(4).astype(np.float32))
    out = _ops.empty((4,), x.dtype, x.device, _ops.stream_of(x))
    _ops.launch("aclnnAdd", x, x, _ops.acl_scalar(1, x.dtype), out)
    assert _ops._pointer_entry_points["aclnnAdd"][2] == 4
    with pytest.raises(TypeError):
        _ops.launch("aclnnAdd", x, x, out)
    np.testing.assert_allclose(out.to_host(), 2 * x.to_host(), rtol=1e-6)
