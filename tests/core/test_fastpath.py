"""npuarray/_core/_fastpath.c: the C common case of NPUArray's binary operators and of
DeviceBuffer.__del__. Each test checks results against NumPy, and that every
case outside the common one reaches the Python operator with the same semantics."""
import contextlib
import gc
import inspect
import threading

import numpy as np
import pytest

import npuarray as npx
from npuarray._core import _elementwise, _ops, _shape
from npuarray._acl import ffi
from npuarray.runtime import _memory_pool

pytestmark = pytest.mark.skipif(_ops._fastpath is None or _ops._launch_helper is None,
                                reason="npuarray._core._fastpath (or the npusim launch helper) "
                                       "is not built")

OPERATORS = {"__add__": np.add, "__sub__": np.subtract, "__mul__": np.multiply,
             "__truediv__": np.divide, "__eq__": np.equal, "__ne__": np.not_equal,
             "__lt__": np.less, "__le__": np.less_equal, "__gt__": np.greater,
             "__ge__": np.greater_equal}
ORDERINGS = {"__lt__", "__le__", "__gt__", "__ge__"}
DTYPES = [np.float32, np.float64, np.float16, np.int8, np.int16, np.int32, np.int64,
          np.uint8, np.bool_, np.complex64]


@pytest.fixture
def python_path_calls(monkeypatch):
    """The operators launched by their Python path (_ops.launch), by name: the C path
    never calls it."""
    return python_launches(monkeypatch)


def python_launches(monkeypatch):
    """The operators launched through _ops.launch (the Python path) from now on, by name."""
    launched = []
    real = _ops.launch
    monkeypatch.setattr(_ops, "launch", lambda *args, **kwargs: (launched.append(args[0]),
                                                                 real(*args, **kwargs))[1])
    return launched


def made_by_operator(a):
    """An NPUArray of `a` made by an operator (so it has its aclTensor, as results do)."""
    x = npx.asarray(a)
    return x[...] if x._acl_tensor is not None else npx.asarray(a) * 1 if a.dtype != bool \
        else npx.asarray(a) & True


def test_the_operators_and_the_release_are_the_c_ones():
    assert type(npx.NPUArray.__add__) is _ops._fastpath.BinaryOperator
    assert type(vars(_memory_pool.DeviceBuffer)["__del__"]) is _ops._fastpath.BufferRelease
    x = npx.asarray(np.arange(3.0))
    method = x.__add__
    assert method.__self__ is x and method.__name__ == "add"
    np.testing.assert_array_equal(method(x).to_host(), [0.0, 2.0, 4.0])
    np.testing.assert_array_equal(npx.NPUArray.__mul__(x, x).to_host(), [0.0, 1.0, 4.0])
    assert "add" in npx.NPUArray.__add__.__doc__
    assert npx.NPUArray.__add__.__module__ == "npuarray._core._elementwise"
    assert str(inspect.signature(npx.NPUArray.__add__)) == "(x1, x2)"  # via __wrapped__
    assert str(inspect.signature(npx.NPUArray.__iadd__)) == "(self, other)"


@pytest.mark.parametrize("operation, expected, path", [
    (lambda x, y: x + y, lambda a, b: a + b, "arrays"),
    (lambda x, y: x + 2.0, lambda a, b: a + 2.0, "scalar"),
    (lambda x, y: x.sum(), lambda a, b: a.sum(), "reduction"),
    (lambda x, y: x.__setitem__(Ellipsis, y) or x, lambda a, b: b, "in_place"),
    (lambda x, y: x > y, lambda a, b: a > b, "arrays"),
    (lambda x, y: x.astype(np.float64), lambda a, b: a.astype(np.float64), "unary"),
    (lambda x, y: x[1:, None] / y[:4], lambda a, b: a[1:, None] / b[:4], "arrays"),
], ids=["x + y", "x + 2.0", "x.sum()", "x[...] = y", "x > y", "x.astype(float64)",
        "views (made by indexing, without an aclTensor)"])
@pytest.mark.parametrize("profiled", [False, True], ids=["", "profiled"])
def test_the_common_cases_run_in_c(operation, expected, path, profiled, rng):
    # The counters of _fastpath.c: one more on the path each case should take, so a change
    # that sends it back to Python (a renamed slot, a new condition) fails here; also while
    # a profile runs (the C path records the launch itself).
    a, b = (rng.standard_normal(16).astype(np.float32) for _ in range(2))
    x, y = npx.asarray(a), npx.asarray(b)
    operation(x, y)  # the plans made and a block of the result's size cached
    with npx.profile() if profiled else contextlib.nullcontext() as prof:
        x * 1.0  # (a profile's first launch on a stream records its baseline from Python)
        before = _ops.fastpath_counts()
        result = operation(x, y)
        after = _ops.fastpath_counts()
    if profiled:
        assert prof.records[-1].kind == "launch" and prof.records[-1].device_end_ns is not None
    assert after[path] == before[path] + 1, (path, before, after)
    assert sum(after.values()) == sum(before.values()) + 1  # one operation, one path
    np.testing.assert_allclose(result.to_host(), expected(a, b), rtol=1e-6)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", [(16,), (3, 5), (), (2, 3, 4)], ids=str)
def test_every_operator_and_dtype_matches_numpy(dtype, shape, rng):
    a = (rng.standard_normal(shape) * 8).astype(dtype)
    b = (rng.standard_normal(shape) * 8 + 1).astype(dtype)
    x, y = npx.asarray(a), npx.asarray(b)
    x, y = x + x - x if dtype != np.bool_ else x | x, y + y - y if dtype != np.bool_ else y | y
    for dunder, function in OPERATORS.items():
        try:
            if dtype == np.complex64 and dunder in ORDERINGS:
                raise TypeError("the array API leaves complex ordering out")
            with np.errstate(all="ignore"):
                expected = function(a, b)
        except TypeError:  # NumPy refuses (bool - bool), or the standard: npuarray too
            with pytest.raises(TypeError):
                getattr(x, dunder)(y)
            continue
        result = getattr(x, dunder)(y)
        assert result.shape == expected.shape and result.dtype == expected.dtype, dunder
        rtol = 1e-2 if dtype == np.float16 else 1e-5
        np.testing.assert_allclose(result.to_host(), expected, rtol=rtol, equal_nan=True,
                                   err_msg=dunder)


def test_the_common_case_never_reaches_python(python_path_calls, monkeypatch, rng):
    a = rng.standard_normal(64).astype(np.float32)
    x = npx.asarray(a) * 1.0
    (x + x + x).to_host()  # blocks of this size cached for the stream (else the pool's
    del python_path_calls[:]  # Python path allocates them: another test may have freed all)
    z = x
    for _ in range(50):
        z = z + x
    np.testing.assert_allclose(z.to_host(), a * 51, rtol=1e-5)
    assert python_path_calls == []


def test_a_chain_reuses_one_block_and_returns_it(rng):
    pool = npx.get_default_memory_pool()
    x = npx.asarray(rng.standard_normal(16).astype(np.float32)) * 1.0
    z = x + x
    del z
    gc.collect()  # (garbage of earlier tests must not be freed during the measure)
    before = (pool.used_bytes(), pool.total_bytes())
    z = x
    for _ in range(1000):
        z = z + x
    np.testing.assert_allclose(z.to_host(), x.to_host() * 1001, rtol=1e-4)
    del z
    assert (pool.used_bytes(), pool.total_bytes()) == before


def assert_scalar_operators(x, a, operators, *, reflected):
    """Each of ``operators`` (dunder: NumPy function) of ``x`` (``a`` on the host) with
    each of SCALARS (on the left when ``reflected``) against NumPy: its result and dtype,
    or its error."""
    for value in SCALARS:
        for dunder, function in operators.items():
            try:
                with np.errstate(all="ignore"):
                    expected = function(value, a) if reflected else function(a, value)
            except (OverflowError, TypeError) as error:  # e.g. int8 + 1000
                with pytest.raises(type(error)):
                    getattr(x, dunder)(value)
                continue
            result = getattr(x, dunder)(value)
            assert result.dtype == expected.dtype, (dunder, value)
            rtol = 1e-2 if a.dtype == np.float16 else 1e-6
            np.testing.assert_allclose(result.to_host(), expected, rtol=rtol, equal_nan=True,
                                       err_msg=f"{dunder} {value!r}")


SCALARS = [2.5, -0.0, 0.0, float("nan"), float("inf"), 3, -7, 0, 1000, 2**40, True]


@pytest.mark.filterwarnings("ignore:overflow encountered in cast")  # (2**40 as float16)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, np.int8, np.int32,
                                   np.int64, np.uint8], ids=lambda d: np.dtype(d).name)
def test_array_and_python_scalar_match_numpy(dtype, monkeypatch, rng):
    """x <op> scalar for float, int (fitting the dtype or not: NumPy's errors) and bool
    scalars; the C path's scalars come from acl_scalar's cache, or from acl_scalar for
    0.0, -0.0 and NaN, which it does not cache."""
    a = (rng.standard_normal(24) * 5).astype(dtype)
    x = npx.asarray(a) * 1 if dtype != np.float16 else npx.asarray(a) * 1.0
    assert_scalar_operators(x, a, OPERATORS, reflected=False)


def test_a_scalar_chain_never_reaches_python(monkeypatch, rng):
    calls = python_launches(monkeypatch)
    a = rng.standard_normal(16).astype(np.float32)
    z = x = npx.asarray(a) * 1.0
    warm = x
    for _ in range(3):  # (blocks cached for the stream, as above: three live at a time)
        warm = warm * 1.01 - 0.5
    del warm, calls[:]
    for _ in range(100):
        z = z * 1.01 - 0.5
    expected = a.copy()
    for _ in range(100):
        expected = expected * np.float32(1.01) - np.float32(0.5)
    np.testing.assert_allclose(z.to_host(), expected, rtol=1e-4)
    assert calls == []
    launched = python_launches(monkeypatch)
    doubled = x * np.float32(2.0)  # a NumPy scalar: the Python operator's general path
    assert launched == ["aclnnMuls"] and doubled.dtype == np.float32
    np.testing.assert_allclose(doubled.to_host(), a * 2, rtol=1e-6)


REFLECTED = {"__radd__": np.add, "__rsub__": np.subtract, "__rmul__": np.multiply,
             "__rtruediv__": np.divide}
IN_PLACE = {"__iadd__": np.add, "__isub__": np.subtract, "__imul__": np.multiply,
            "__itruediv__": np.divide}


def test_the_reflected_and_in_place_operators_are_c_ones():
    for dunder in list(REFLECTED) + list(IN_PLACE):
        assert type(vars(npx.NPUArray)[dunder]) is _ops._fastpath.BinaryOperator, dunder
    with pytest.raises(ValueError, match="mode"):
        _ops._fastpath.BinaryOperator("aclnnAdd", {}, {}, np.add, mode="sideways")


@pytest.mark.filterwarnings("ignore:overflow encountered in cast")  # (2**40 as float16)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, np.int8, np.int32,
                                   np.int64, np.uint8], ids=lambda d: np.dtype(d).name)
def test_python_scalar_and_array_match_numpy(dtype, rng):
    """scalar <op> x (NPUArray's reflected operators) against NumPy."""
    a = (rng.standard_normal(24) * 5).astype(dtype)
    x = npx.asarray(a) * 1 if dtype != np.float16 else npx.asarray(a) * 1.0
    assert_scalar_operators(x, a, REFLECTED, reflected=True)


def test_reflected_with_an_array_takes_the_python_operator(rng):
    a, b = rng.standard_normal((2, 8)).astype(np.float32)
    x, y = npx.asarray(a) * 1.0, npx.asarray(b) * 1.0
    np.testing.assert_allclose(x.__rsub__(y).to_host(), b - a, rtol=1e-6)
    with pytest.raises(TypeError, match="operands must be NPUArrays or Python scalars"):
        x.__radd__(object())


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.int8],
                         ids=lambda d: np.dtype(d).name)
def test_in_place_operators_match_numpy(dtype, rng):
    for dunder, function in IN_PLACE.items():
        a = (rng.standard_normal((6, 5)) * 5).astype(dtype)
        b = (rng.standard_normal((6, 5)) * 5 + 20).astype(dtype)
        x, y = npx.asarray(a) * 1, npx.asarray(b) * 1
        buffer = x._buffer
        expected = a.copy()
        try:
            function(expected, b, out=expected)
        except TypeError:  # int /= int: NumPy refuses the cast, so does npuarray
            with pytest.raises(TypeError):
                getattr(x, dunder)(y)
            np.testing.assert_array_equal(x.to_host(), a)  # unchanged
            continue
        result = getattr(x, dunder)(y)
        assert result is x and x._buffer is buffer
        np.testing.assert_allclose(x.to_host(), expected, rtol=1e-6, err_msg=dunder)


def test_in_place_common_case_never_reaches_python(monkeypatch, rng):
    calls = python_launches(monkeypatch)
    a, b = rng.standard_normal((2, 32)).astype(np.float32)
    x, y = npx.asarray(a) * 1.0, npx.asarray(b) * 1.0
    warm = x * 1.0  # (the plans of these dtypes are made by a first Python call)
    for operator in ("__iadd__", "__imul__", "__isub__"):
        getattr(warm, operator)(y)
    del warm, calls[:]
    for _ in range(10):
        x += y
        x *= y
        x -= y
    x += x  # the operand is x itself: the same memory, in order
    expected = a.copy()
    for _ in range(10):
        expected = (expected + b) * b - b
    np.testing.assert_allclose(x.to_host(), expected * 2, rtol=1e-4)
    assert calls == []


@pytest.mark.parametrize("case", ["overlap", "broadcast", "cast", "read-only", "scalar",
                                  "other stream"])
def test_in_place_other_cases_take_the_python_operator(case, rng):
    a = rng.standard_normal((4, 4)).astype(np.float32)
    x = npx.asarray(a) * 1.0
    expected = a.copy()
    if case == "overlap":  # NumPy computes as if from a copy
        x[1:] += x[:-1]
        expected[1:] += a[:-1].copy()
    elif case == "broadcast":
        x += npx.asarray(a[0]) * 1.0
        expected += a[0]
    elif case == "cast":
        x += npx.asarray(a.astype(np.float16)) * 1.0
        expected += a.astype(np.float16)
    elif case == "read-only":
        view = npx.broadcast_to(x[0], (4, 4))
        with pytest.raises(ValueError):
            view += x
    elif case == "scalar":
        x -= 2.5
        expected -= np.float32(2.5)
    else:
        y = npx.asarray(a) * 1.0
        with npx.Stream():
            x += y
        expected += a
    np.testing.assert_allclose(x.to_host(), expected, rtol=1e-3 if case == "cast" else 1e-6)


@pytest.mark.parametrize("case", ["broadcast", "strided", "large", "empty", "promotion",
                                  "scalar", "host data"])
def test_other_cases_take_the_python_operator(case, python_path_calls, rng):
    a = rng.standard_normal((64, 32)).astype(np.float32)
    x = npx.asarray(a) * 1.0
    if case == "broadcast":
        other, expected_other = x[:1] * 1.0, a[:1]
    elif case == "strided":
        x, a = x[::2], a[::2]
        other, expected_other = x * 1.0, a
    elif case == "large":  # above the pool's lock-free block sizes (1 MiB)
        a = rng.standard_normal(300_000).astype(np.float32)
        x = npx.asarray(a) * 1.0
        other, expected_other = x * 1.0, a
    elif case == "empty":
        a = a[:0]
        x = x[:0]
        other, expected_other = x * 1.0, a
    elif case == "promotion":
        other, expected_other = npx.asarray(a.astype(np.float64)) * 1.0, a.astype(np.float64)
    elif case == "scalar":
        other, expected_other = 2.5, np.float32(2.5)
    else:  # a host operand: uploaded (an implicit transfer), then the Python operator
        other, expected_other = a, a
    del python_path_calls[:]
    result = x + other
    expected = a + expected_other
    assert result.shape == expected.shape and result.dtype == expected.dtype
    np.testing.assert_allclose(result.to_host(), expected, rtol=1e-6)
    if case == "large":
        assert python_path_calls == ["aclnnAdd"]


@pytest.mark.parametrize("shape1, shape2", [((3, 1), (4,)), ((), (5,)), ((2, 3), ()),
                                            ((4, 1, 3), (2, 1)), ((1,), (7, 1)),
                                            ((2, 1, 4), (3, 1)), ((6, 5), (6, 5))], ids=str)
def test_broadcasting_operands_run_in_c(shape1, shape2, python_path_calls, rng):
    a = rng.standard_normal(shape1).astype(np.float32)
    b = rng.standard_normal(shape2).astype(np.float32)
    x, y = npx.asarray(a) * 1.0, npx.asarray(b) * 1.0
    shape = np.broadcast_shapes(shape1, shape2)
    warm = [getattr(left, dunder)(right) for dunder in OPERATORS  # (plans made, blocks of
            for left, right in ((x, y), (y, x)) for _ in range(2)]   # the result's size cached)
    del warm, python_path_calls[:]
    for dunder, function in OPERATORS.items():
        for left, right, expected in ((x, y, function(a, b)), (y, x, function(b, a))):
            result = getattr(left, dunder)(right)
            assert result.shape == shape == expected.shape and result.dtype == expected.dtype
            assert result._strides == _shape.c_strides(shape)
            np.testing.assert_allclose(result.to_host(), expected, rtol=1e-6, err_msg=dunder)
    assert python_path_calls == []


def test_shapes_that_do_not_broadcast_raise_as_before(rng):
    x = npx.asarray(np.ones((3, 4), np.float32)) * 1.0
    y = npx.asarray(np.ones((5,), np.float32)) * 1.0
    with pytest.raises(ValueError):
        x + y
    with pytest.raises(ValueError):
        x * (npx.asarray(np.ones((2, 5, 1), np.float32)) * 1.0)
    np.testing.assert_array_equal((x + x).to_host(), np.full((3, 4), 2, np.float32))


def test_another_stream_is_ordered_by_the_python_path(python_path_calls, rng):
    """Operands last used on the default stream, used inside `with Stream()`: prepare()
    must order the new stream after the old one (Python does it); the results, now on
    the new stream, then take the C path."""
    a = rng.standard_normal(4096).astype(np.float32)
    x = npx.asarray(a) * 1.0
    with npx.Stream() as stream:
        y = x + x
        assert python_path_calls == ["aclnnAdd"] and y._buffer.stream is stream
        del python_path_calls[:]
        (y + y).to_host()  # (a first block for this stream comes from the Python pool path)
        z = y + y
        assert python_path_calls == ["aclnnAdd"]
    np.testing.assert_allclose(z.to_host(), a * 4, rtol=1e-6)


def test_capture_and_replay_use_the_python_path(rng):
    """Inside a capture the Python operator records the work (into the graph's pool);
    replays compute it again from the operands' current values."""
    a = rng.standard_normal(256).astype(np.float32)
    with npx.Stream():
        x = npx.asarray(a) * 1.0
        graph = npx.Graph()
        with graph.capture():
            z = (x + x) * x
        for step in range(3):
            x[...] = x + x
            graph.replay()
            expected = a * 2 ** (step + 1)
            np.testing.assert_allclose(z.to_host(), 2 * expected * expected, rtol=1e-5)
        graph.destroy()


def test_the_profiler_records_operator_launches(rng):
    x = npx.asarray(rng.standard_normal(16).astype(np.float32)) * 1.0
    with npx.profile() as prof:
        y = x + x
        y.to_host()
    assert any(r.name == "aclnnAdd" for r in prof.records)


def test_a_private_pool_is_used(rng):
    x = npx.asarray(rng.standard_normal(16).astype(np.float32)) * 1.0
    pool = npx.MemoryPool()
    with npx.using_pool(pool):
        y = x + x
        z = y + y
    assert y._buffer._pool is pool and z._buffer._pool is pool
    np.testing.assert_allclose(z.to_host(), x.to_host() * 4, rtol=1e-6)


def test_operands_on_two_devices_raise(rng):
    if npx.runtime.device_count() < 2:
        pytest.skip("needs two devices (NPUSIM_DEVICE_COUNT)")
    x = npx.asarray(np.ones(4, np.float32)) * 1.0
    with npx.Device(1):
        y = npx.asarray(np.ones(4, np.float32)) * 1.0
    with pytest.raises(ValueError):
        x + y
    np.testing.assert_array_equal((x + x).to_host(), np.full(4, 2.0, np.float32))


def test_two_threads_on_shared_operands(rng):
    a = rng.standard_normal(128).astype(np.float32)
    x = npx.asarray(a) * 1.0
    results, errors = {}, []

    def work(name, use_stream):
        try:
            stream = npx.Stream() if use_stream else None
            with stream if stream is not None else npx.Device(0):
                z = x * 1.0
                for _ in range(300):
                    z = z + x
                results[name] = z.to_host()
        except Exception as exc:  # noqa: BLE001  (reported below)
            errors.append(exc)
    threads = [threading.Thread(target=work, args=(name, name % 2)) for name in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    for name in range(4):
        np.testing.assert_allclose(results[name], a * 301, rtol=1e-4)


class _Cycle:
    """Garbage in a reference cycle whose __del__ runs an operator: collected at any
    allocation, including the fast path's own."""
    def __init__(self, x, sink):
        self.me, self.x, self.sink = self, x, sink

    def __del__(self):
        self.sink.append((self.x + self.x).to_host())


def test_garbage_collection_inside_the_fast_path(rng):
    a = rng.standard_normal(16).astype(np.float32)
    x = npx.asarray(a) * 1.0
    sink = []
    threshold = gc.get_threshold()
    gc.set_threshold(1, 1, 1)
    try:
        z = x
        for _ in range(200):
            _Cycle(x, sink)
            z = z + x
    finally:
        gc.set_threshold(*threshold)
    gc.collect()
    np.testing.assert_allclose(z.to_host(), a * 201, rtol=1e-4)
    assert len(sink) == 200
    for value in sink:
        np.testing.assert_allclose(value, a * 2, rtol=1e-6)


def test_a_buffer_used_on_two_streams_is_released_through_python(rng):
    """A block with several users (`_others`) is joined before it is reused: the C
    release leaves it to the Python __del__, and the pool ends where it began."""
    pool = npx.get_default_memory_pool()
    x = npx.asarray(rng.standard_normal(64).astype(np.float32)) * 1.0
    gc.collect()  # (garbage of earlier tests must not be freed during the measure)
    before = pool.used_bytes()
    y = x + x
    with npx.Stream():
        w = y * y
    assert y._buffer._others
    expected = (x.to_host() * 2) ** 2
    del y
    np.testing.assert_allclose(w.to_host(), expected, rtol=1e-6)
    del w
    assert pool.used_bytes() == before


def test_the_c_finalizer_returns_a_dead_buffer_to_its_free_list(rng):
    """DeviceBuffer's finalizer is the C release: a dropped result's block is on the
    stream's free list (the next result of its size class takes it) and the pool's
    used bytes are back where they began."""
    pool = npx.get_default_memory_pool()
    a = rng.standard_normal(64).astype(np.float32)
    x = npx.asarray(a) * 1.0
    gc.collect()
    before = pool.used_bytes()
    y = x * x
    ptr = y._buffer.ptr
    del y
    assert pool.used_bytes() == before
    z = x + x
    assert z._buffer.ptr == ptr
    np.testing.assert_array_equal(z.to_host(), a + a)


def test_the_class_del_decides_after_it_is_reassigned(monkeypatch, rng):
    """Assigning DeviceBuffer.__del__ replaces the C finalizer (CPython resets the slot):
    the new __del__ runs, and the C finalizer is restored by finalize_in_c."""
    released = []
    real = vars(_memory_pool.DeviceBuffer)["__del__"]

    def counting(buffer):
        released.append(buffer.ptr)
        real(buffer)

    pool = npx.get_default_memory_pool()
    x = npx.asarray(rng.standard_normal(64).astype(np.float32)) * 1.0
    gc.collect()
    before = pool.used_bytes()
    monkeypatch.setattr(_memory_pool.DeviceBuffer, "__del__", counting)
    y = x * x
    ptr = y._buffer.ptr
    del y
    assert released == [ptr] and pool.used_bytes() == before
    monkeypatch.undo()
    _ops._fastpath.finalize_in_c(_memory_pool.DeviceBuffer)
    del x
    assert len(released) == 1


def test_finalize_in_c_accepts_only_the_configured_buffer_type():
    with pytest.raises(TypeError, match="configured buffer type"):
        _ops._fastpath.finalize_in_c(npx.NPUArray)


# -- the launch's error and workspace paths, with phases written in Python (cffi callbacks
#    of an ABI-mode FFI, as CANN's entry points would be foreign function pointers)

FIRST = "int32_t(void *, void *, void *, void *, uint64_t *, void **)"
SECOND = "int32_t(void *, uint64_t, void *, void *)"


def _operator_with_phases(monkeypatch, first, second):
    """A new C operator for aclnnAdd whose phases are `first` and `second`."""
    monkeypatch.setitem(_ops._entry_points, "aclnnAdd",
                        (ffi.cast("void *", first), ffi.cast("void *", second)))
    plan = _elementwise._BINARY["add"]
    return _ops._fastpath.BinaryOperator("aclnnAdd", plan._direct, {}, plan.operator)


def _real_phases():
    return _ops._phases.get("aclnnAdd") or _ops._lookup("aclnnAdd")


def test_a_failed_first_phase_raises_and_loses_nothing(monkeypatch, rng):
    @ffi.callback(FIRST)
    def first(a, b, alpha, out, size, executor):
        return 161002

    @ffi.callback(SECOND)
    def second(workspace, size, executor, stream):
        raise AssertionError("the second phase must not run")
    add = _operator_with_phases(monkeypatch, first, second)
    x = npx.asarray(rng.standard_normal(16).astype(np.float32)) * 1.0
    pool = npx.get_default_memory_pool()
    gc.collect()  # (garbage of earlier tests must not be freed during the measure)
    before = pool.used_bytes()
    with pytest.raises(npx.AclError) as error:
        add(x, x)
    assert error.value.code == 161002 and "aclnnAddGetWorkspaceSize" in str(error.value)
    del error  # (the Python path's traceback holds its result until the error is dropped)
    assert pool.used_bytes() == before
    monkeypatch.undo()  # (every aclnnAdd launch used the failing phases until now)
    np.testing.assert_allclose((x + x).to_host(), x.to_host() * 2, rtol=1e-6)


def test_a_failed_second_phase_raises_naming_it(monkeypatch, rng):
    real_first, real_second = _real_phases()

    @ffi.callback(FIRST)
    def first(a, b, alpha, out, size, executor):
        return real_first(ffi.cast("aclTensor *", a), ffi.cast("aclTensor *", b),
                          ffi.cast("aclScalar *", alpha), ffi.cast("aclTensor *", out),
                          size, ffi.cast("aclOpExecutor **", executor))

    @ffi.callback(SECOND)
    def second(workspace, size, executor, stream):
        real_second(workspace, size, ffi.cast("aclOpExecutor *", executor),
                    ffi.cast("aclrtStream", stream))  # (runs it: nothing leaks)
        return 507000
    add = _operator_with_phases(monkeypatch, first, second)
    x = npx.asarray(rng.standard_normal(16).astype(np.float32)) * 1.0
    with pytest.raises(npx.AclError) as error:
        add(x, x)
    assert error.value.code == 507000 and "aclnnAdd" in str(error.value) \
        and "GetWorkspaceSize" not in str(error.value)


def test_a_workspace_request_is_served_from_the_pool(monkeypatch, rng):
    real_first, real_second = _real_phases()
    workspaces = []

    @ffi.callback(FIRST)
    def first(a, b, alpha, out, size, executor):
        status = real_first(ffi.cast("aclTensor *", a), ffi.cast("aclTensor *", b),
                            ffi.cast("aclScalar *", alpha), ffi.cast("aclTensor *", out),
                            size, ffi.cast("aclOpExecutor **", executor))
        size[0] = 4096  # as a CANN operator asking for scratch memory
        return status

    @ffi.callback(SECOND)
    def second(workspace, size, executor, stream):
        raise AssertionError("a workspace launch goes through the Python second phase")
    recorded = []
    monkeypatch.setitem(_ops._phases, "aclnnAdd", (
        real_first,
        lambda workspace, size, executor, stream: (
            recorded.append((int(ffi.cast("uintptr_t", workspace)), size)),
            real_second(ffi.NULL, 0, executor, stream))[1]))
    add = _operator_with_phases(monkeypatch, first, second)
    a = rng.standard_normal(16).astype(np.float32)
    x = npx.asarray(a) * 1.0
    result = add(x, x)
    np.testing.assert_allclose(result.to_host(), a * 2, rtol=1e-6)
    assert len(recorded) == 1 and recorded[0][0] != 0 and recorded[0][1] == 4096
    del workspaces


def test_an_injected_launch_fault_is_typed_and_the_pool_recovers(run_python):
    if npx.backend().name != "npusim":
        pytest.skip("fault injection is an npusim feature")
    script = """
import numpy as np, npuarray as npx
x = npx.asarray(np.ones(16, np.float32)) * 1.0
pool = npx.get_default_memory_pool()
z = x + x
del z
before = pool.used_bytes()
z = x
try:
    for _ in range(50):
        z = z + x
    raise SystemExit("no fault")
except npx.AclError as error:
    code = error.code
del z
assert pool.used_bytes() == before, (pool.used_bytes(), before)
print(code, float((x + x).sum()))
"""
    result = run_python(script, NPUSIM_FAULT_INJECT="launch:10")
    assert result.returncode == 0, result.stderr
    code, total = result.stdout.split()
    assert int(code) != 0 and float(total) == 32.0


def test_a_forked_child_refuses_and_does_not_release(run_python):
    script = """
import os, numpy as np, npuarray as npx
x = npx.asarray(np.ones(16, np.float32)) * 1.0
y = x + x
pid = os.fork()
if pid == 0:
    try:
        x + y
        os._exit(3)
    except RuntimeError as error:
        del y  # the parent's block: the child must not file it
        os._exit(0 if "fork" in str(error) else 4)
_, status = os.waitpid(pid, 0)
print(os.waitstatus_to_exitcode(status), float((x + y).sum()))
"""
    result = run_python(script)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["0", "48.0"]


# -- unary operators (_fastpath.unary_result, from _elementwise._unary)

UNARY = {"negative": np.negative, "abs": np.abs, "exp": np.exp, "sqrt": np.sqrt,
         "log": np.log, "sin": np.sin, "cos": np.cos, "floor": np.floor}


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=lambda d: np.dtype(d).name)
def test_unary_common_case_runs_in_c(dtype, monkeypatch, rng):
    a = rng.uniform(0.5, 4, size=(5, 7)).astype(dtype)
    x = npx.asarray(a) * 1.0
    warm = [npx.exp(x) for _ in range(3)]  # (blocks of this size cached for the stream:
    del warm                                 # two results live at a time below)
    launched = python_launches(monkeypatch)
    for name, function in UNARY.items():
        result = getattr(npx, name)(x)
        expected = function(a)
        assert result.dtype == expected.dtype and result.shape == expected.shape
        np.testing.assert_allclose(result.to_host(), expected,
                                   rtol=1e-6, err_msg=name)
    assert launched == []


@pytest.mark.parametrize("case", ["view", "empty", "cast", "zero-d"])
def test_unary_other_cases_take_the_python_path(case, rng):
    a = rng.uniform(0.5, 4, size=(6, 6)).astype(np.float32)
    x = npx.asarray(a) * 1.0
    if case == "view":
        x, a = x[::-2, 1:], a[::-2, 1:]
    elif case == "empty":
        x, a = x[:0], a[:0]
    elif case == "cast":
        a = (a * 10).astype(np.int32)
        x = npx.asarray(a) * 1
    else:
        a = np.asarray(a[2, 3])
        x = npx.asarray(a) * 1.0
    for name, function in UNARY.items():
        result = getattr(npx, name)(x)
        expected = function(a)
        assert result.dtype == expected.dtype and result.shape == expected.shape
        np.testing.assert_allclose(result.to_host(), expected, rtol=1e-5, err_msg=name)


def test_unary_result_refused_by_the_operator_raises_and_loses_nothing(rng):
    x = npx.asarray(np.arange(16, dtype=np.int32)) * 1
    pool = npx.get_default_memory_pool()
    (x + x).to_host()
    gc.collect()  # (garbage of earlier tests must not be freed during the measure)
    before = pool.used_bytes()
    with pytest.raises(npx.AclError) as error:  # aclnnExp takes no int32 (CANN's table)
        _ops.unary_result("aclnnExp", x, np.dtype(np.int32))
    assert error.value.code == 161002
    assert pool.used_bytes() == before
    assert _ops.unary_result("aclnnNeg", np.arange(3), np.dtype(np.int64)) is None
    with pytest.raises(TypeError):
        _ops._fastpath.unary_result("aclnnNeg", x)


def test_int_and_zero_scalars_take_the_c_path(monkeypatch, rng):
    """An int with a float array (bounds +-inf) and 0.0 / -0.0 (acl_scalar caches them
    under a key with the sign) run in C; -0.0 keeps its sign."""
    calls = python_launches(monkeypatch)
    a = rng.standard_normal(8).astype(np.float32)
    x = npx.asarray(a) * 1.0
    values = (0, 3, -2, 0.0, -0.0, 2**40)
    operators = (("__mul__", np.multiply), ("__gt__", np.greater), ("__add__", np.add))
    warm = [getattr(x, dunder)(value) for value in values for dunder, _ in operators
            for _ in range(2)]  # (plans made by a first Python call; blocks cached)
    del warm, calls[:]
    for value in values:
        for dunder, function in operators:
            result = getattr(x, dunder)(value)
            expected = function(a, value)
            np.testing.assert_array_equal(result.to_host(), expected)
            np.testing.assert_array_equal(np.signbit(result.to_host()), np.signbit(expected))
    assert calls == []
    f32 = np.dtype(np.float32)
    assert _ops.acl_scalar(0.0, f32) is _ops.acl_scalar(0.0, f32)
    assert _ops.acl_scalar(-0.0, f32) is _ops.acl_scalar(-0.0, f32)
    assert _ops.acl_scalar(-0.0, f32) is not _ops.acl_scalar(0.0, f32)


# -- small reads (_fastpath.read_to_host, from _transfer._read_to_host)

@pytest.fixture
def python_reads(monkeypatch):
    """The device-to-host copies made by the Python path, counted."""
    from npuarray.runtime import _transfer as runtime_transfer
    from npuarray._core import _transfer
    calls = []
    real = runtime_transfer.copy_device_to_host
    monkeypatch.setattr(_transfer, "copy_device_to_host",
                        lambda *args, **kwargs: (calls.append(args[0].shape),
                                                 real(*args, **kwargs))[1])
    return calls


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, np.int8, np.int64,
                                   np.uint16, np.bool_, np.complex64, np.complex128],
                         ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", [(), (1,), (16,), (3, 5, 2)], ids=str)
def test_small_reads_run_in_c(dtype, shape, python_reads, rng):
    a = (rng.standard_normal(shape) * 10).astype(dtype)
    x = npx.asarray(a)
    for read in (x.to_host(), np.asarray(x), npx.asnumpy(x)):
        assert read.dtype == a.dtype and read.shape == a.shape and read.flags.c_contiguous
        np.testing.assert_array_equal(read, a)
    if a.ndim == 0:
        assert x.item() == a.item()
        if a.dtype.kind != "c":
            assert float(x) == float(a) and bool(x) == bool(a)
    assert python_reads == []


def test_a_read_waits_for_the_work_that_produces_it(python_reads, rng):
    a = rng.standard_normal(4096).astype(np.float32)
    x = npx.asarray(a) * 1.0
    for _ in range(20):
        x = x * 1.5 + 1.0
    expected = a.copy()
    for _ in range(20):
        expected = expected * np.float32(1.5) + np.float32(1.0)
    np.testing.assert_allclose(x.to_host(), expected, rtol=1e-5)
    assert python_reads == []


@pytest.mark.parametrize("case", ["strided", "large", "stream", "out", "other stream",
                                  "hook", "empty"])
def test_other_reads_take_the_python_path(case, python_reads, monkeypatch, rng):
    a = rng.standard_normal((64, 8)).astype(np.float32)
    x = npx.asarray(a)
    kwargs, expected = {}, a
    if case == "strided":
        x, expected = x[:, ::2], a[:, ::2]
    elif case == "large":
        expected = rng.standard_normal(300_000).astype(np.float32)
        x = npx.asarray(expected)
    elif case == "stream":
        kwargs["stream"] = npx.Stream()
    elif case == "out":
        kwargs["out"] = np.empty_like(a)
    elif case == "other stream":  # last used on a stream that is not the current one
        with npx.Stream():
            x = x * 1.0
    elif case == "hook":
        from npuarray._core import _transfer
        seen = []
        _transfer.host_read_hooks.append(seen.append)  # (the list C reads, in place)
        try:
            np.testing.assert_array_equal(x.to_host(), a)
        finally:
            _transfer.host_read_hooks.remove(seen.append)
        assert seen == ["to_host()"]
        return
    else:
        x, expected = x[:0], a[:0]
    read = x.to_host(**kwargs)
    np.testing.assert_array_equal(read, expected)
    if case != "empty":
        assert len(python_reads) == 1


def test_a_read_in_a_capturing_thread_still_raises(rng):
    with npx.Stream():
        x = npx.asarray(rng.standard_normal(8).astype(np.float32)) * 1.0
        graph = npx.Graph()
        with graph.capture():
            y = x + x
            with pytest.raises(npx.CaptureError):
                y.to_host()
        graph.destroy()


def test_an_injected_read_fault_is_typed(run_python):
    if npx.backend().name != "npusim":
        pytest.skip("fault injection is an npusim feature")
    script = """
import numpy as np, npuarray as npx
x = npx.asarray(np.arange(16, dtype=np.float32))
faults = 0
for _ in range(6):
    try:
        assert np.array_equal(x.to_host(), np.arange(16, dtype=np.float32))
    except npx.AclError as error:
        faults += 1
        assert "aclrtMemcpy" in str(error), error
print(faults)
"""
    result = run_python(script, NPUSIM_FAULT_INJECT="memcpy:3")
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["1"]


# -- results from the pool (_fastpath.empty_result, from _ops.empty and _ops._result)

def test_empty_result_takes_a_cached_block_of_the_default_pool(rng):
    device = npx.Device(0)  # another Device object than the pool's: equal, not identical
    stream = _ops.current_stream(npx.asarray(np.ones(1)).device)
    pool = npx.get_default_memory_pool()
    warm = [_ops.empty((4, 5), np.dtype(np.float64), device, stream) for _ in range(2)]
    del warm
    x = _ops.empty_result((4, 5), np.dtype(np.float64), device, stream)
    assert x is not None and x.shape == (4, 5) and x.dtype == np.float64
    assert x._strides == (5, 1) and x._offset == 0 and x._acl_tensor is not None
    assert x._buffer.device is pool.device and x._buffer._pool is pool
    assert x._buffer.stream is stream and x._buffer.nbytes == 160
    x[...] = npx.asarray(np.arange(20.0).reshape(4, 5))
    np.testing.assert_array_equal(x.to_host(), np.arange(20.0).reshape(4, 5))


@pytest.mark.parametrize("case", ["empty", "large", "private pool", "capture"])
def test_empty_result_declines_what_python_does(case):
    x = npx.asarray(np.ones(4, np.float32))
    device, stream = x.device, _ops.current_stream(x.device)
    shape = (0, 3) if case == "empty" else (600_000,) if case == "large" else (4,)
    if case == "private pool":
        with npx.using_pool(npx.MemoryPool()):
            assert _ops.empty_result(shape, x.dtype, device, stream) is None
    elif case == "capture":
        with npx.Stream() as captured:
            graph = npx.Graph()
            with graph.capture():
                assert _ops.empty_result(shape, x.dtype, device, captured) is None
            graph.destroy()
    else:
        assert _ops.empty_result(shape, x.dtype, device, stream) is None
        out = _ops.empty(shape, x.dtype, device, stream)
        assert out.shape == shape


# -- pow with a Python scalar (NPUArray.__pow__ / __rpow__ in C for float dtypes)

@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, np.complex64],
                         ids=lambda d: np.dtype(d).name)
def test_pow_with_a_python_scalar_matches_numpy(dtype, monkeypatch, rng):
    specials = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0]
    if dtype == np.complex64:  # (complex powers of infinities and NaN: left open by the
        specials = [1.0, 0.5]    # standard, and implementations differ)
    a = np.concatenate([rng.uniform(-3, 3, 12), specials]).astype(dtype)
    x = npx.asarray(a) * 1
    for _ in range(2):  # (plans made and blocks cached; then counted)
        [x ** 2, x ** 2.0, 2.0 ** x]
    launched = python_launches(monkeypatch)
    rtol = 5e-3 if dtype == np.float16 else 1e-5
    for value in (2, 3, 0, -1, 0.75, 2.0, -2.5, 0.0, float("nan"), float("inf")):
        with np.errstate(all="ignore"):
            # (not 0.5: NumPy's power is sqrt there, whose -inf and -0.0 differ from the
            # array API's pow special cases, which npuarray follows: tested below)
            expected = np.power(a, np.asarray(value, dtype=a.dtype))
            reflected = np.power(np.asarray(value, dtype=a.dtype), a)
        np.testing.assert_allclose((x ** value).to_host(), expected, rtol=rtol, equal_nan=True,
                                   err_msg=f"x ** {value!r}")
        if dtype != np.complex64:
            np.testing.assert_allclose((value ** x).to_host(), reflected, rtol=rtol,
                                       equal_nan=True, err_msg=f"{value!r} ** x")
    assert "aclnnPowTensorScalar" not in launched
    if dtype != np.complex64:  # the array API's special cases of x ** 0.5 (not NumPy's sqrt)
        special = npx.asarray(np.array([-np.inf, -0.0, 0.0, np.inf, 4.0], dtype)) * 1
        np.testing.assert_array_equal((special ** 0.5).to_host(),
                                      np.array([np.inf, 0.0, 0.0, np.inf, 2.0], dtype))


def test_pow_keeps_its_integer_checks(rng):
    x = npx.asarray(np.arange(5))
    with pytest.raises(ValueError, match="negative integer powers"):
        x ** -1
    with pytest.raises(ValueError, match="negative integer powers"):
        x ** npx.asarray(np.array([1, -1, 2, 0, 1]))
    np.testing.assert_array_equal((x ** 2).to_host(), np.arange(5) ** 2)
    big = npx.asarray(np.array([3, 2**40], dtype=np.uint64))
    np.testing.assert_array_equal((big ** 2).to_host(),
                                  np.array([3, 2**40], dtype=np.uint64) ** 2)
    y = npx.asarray(rng.uniform(1, 2, 4).astype(np.float32))
    np.testing.assert_allclose((y ** y).to_host(), y.to_host() ** y.to_host(), rtol=1e-6)


@pytest.mark.parametrize("profiled", [False, True], ids=["", "profiled"])
def test_the_c_paths_keep_every_reference_count(profiled, rng):
    """Each C path taken 2000 times leaves the reference counts of what it touches (the
    stream, pool, device, dtype, shapes, operands, scalars, None) as they were: a missing
    or extra reference per call would show as a difference of thousands. (The descriptor
    caches may keep a few more keys, for blocks the pool made meanwhile.) Also while a
    profile runs (its records hold the shapes, dtypes and stream until it ends)."""
    import sys
    x = npx.asarray(rng.standard_normal((4, 4)).astype(np.float32)) * 1.0
    y, row = x * 2.0, npx.asarray(np.ones(4, np.float32)) * 1.0
    buffer = x._buffer
    watched = (buffer.stream, buffer._pool, buffer.device, x._dtype, x._shape, row._shape,
               None, 2.5, x, y)

    def work():
        for _ in range(2000):
            z = x + y
            z = x * 2.5
            z = 2.5 - x
            z = x + row
            z = npx.exp(x)
            z = x ** 2
            x.__iadd__(y)
            x.__isub__(y)
            z = x.to_host()
            z = _ops.empty((4, 4), x._dtype, buffer.device, buffer.stream)
        del z

    def profiled_work():
        with npx.profile() as prof:
            work()
        assert len(prof.records) > 16000
        del prof

    run = profiled_work if profiled else work
    run()
    gc.collect()
    before = [sys.getrefcount(o) for o in watched]
    run()
    gc.collect()
    after = [sys.getrefcount(o) for o in watched]
    assert all(abs(b - a) < 50 for a, b in zip(before, after)), (before, after)


# -- x[...] = y (aclnnInplaceCopy in C, from _indexing.setitem)

@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int8, np.int64, np.uint16,
                                   np.bool_, np.complex64], ids=lambda d: np.dtype(d).name)
def test_assigning_a_whole_array_runs_in_c(dtype, monkeypatch, rng):
    a = (rng.standard_normal((5, 6)) * 10).astype(dtype)
    b = (rng.standard_normal((5, 6)) * 10).astype(dtype)
    x, y = npx.asarray(a), npx.asarray(b)
    buffer = x._buffer
    x[...] = y  # (a first one may make plans)
    launched = python_launches(monkeypatch)
    x[...] = npx.asarray(a)
    x[...] = y
    assert x._buffer is buffer and launched == []
    np.testing.assert_array_equal(x.to_host(), b)
    np.testing.assert_array_equal(y.to_host(), b)


@pytest.mark.parametrize("case", ["cast", "broadcast", "scalar", "host", "self", "overlap",
                                  "negative step", "read-only", "empty", "other stream"])
def test_assigning_other_values_takes_the_general_path(case, rng):
    a = rng.standard_normal((4, 4)).astype(np.float32)
    b = rng.standard_normal((4, 4)).astype(np.float32)
    x, expected = npx.asarray(a), a.copy()
    if case == "cast":
        x[...] = npx.asarray(b.astype(np.float64))
        expected[...] = b
    elif case == "broadcast":
        x[...] = npx.asarray(b[0])
        expected[...] = b[0]
    elif case == "scalar":
        x[...] = 2.5
        expected[...] = 2.5
    elif case == "host":
        x[...] = b
        expected[...] = b
    elif case == "self":
        x[...] = x
    elif case == "overlap":
        view = x[1:]
        view[...] = x[:-1]
        expected[1:] = a[:-1].copy()
    elif case == "negative step":
        flipped = x[::-1]
        flipped[...] = npx.asarray(b)
        expected[::-1] = b
    elif case == "read-only":
        with pytest.raises(ValueError, match="read-only"):
            repeated = npx.broadcast_to(x[0], (4, 4))
            repeated[...] = npx.asarray(b)
    elif case == "empty":
        x[:0][...] = npx.asarray(b[:0])
    else:
        y = npx.asarray(b)
        with npx.Stream():
            z = y * 1.0  # z last used on this other stream
        x[...] = z
        expected[...] = b
    np.testing.assert_array_equal(x.to_host(), expected)


def test_assigning_across_devices_raises():
    if npx.runtime.device_count() < 2:
        pytest.skip("needs two devices (NPUSIM_DEVICE_COUNT)")
    x = npx.asarray(np.ones(4, np.float32))
    with npx.Device(1):
        y = npx.asarray(np.zeros(4, np.float32))
    with pytest.raises(ValueError):
        x[...] = y
    np.testing.assert_array_equal(x.to_host(), np.ones(4, np.float32))


# -- reductions (_fastpath.reduction_result, from _ops.reduction_result)

@pytest.mark.parametrize("name, function, kwargs", [
    ("sum", np.sum, {"axis": 1}), ("mean", np.mean, {"axis": 0, "keepdims": True}),
    ("max", np.max, {"axis": -1}), ("min", np.min, {}), ("argmax", np.argmax, {"axis": 1}),
    ("argmin", np.argmin, {"axis": 0}), ("std", np.std, {"axis": 1}),
    ("var", np.var, {"axis": (0, 1)})], ids=lambda v: v if isinstance(v, str) else "")
def test_small_reductions_run_in_c(name, function, kwargs, monkeypatch, rng):
    a = rng.standard_normal((10, 64)).astype(np.float32)
    x = npx.asarray(a)
    for _ in range(3):  # (plans made, blocks cached)
        getattr(npx, name)(x, **kwargs)
    before = _ops.fastpath_counts()["reduction"]  # (sum, max, min reach it without _ops)
    python_launches = []
    real_helper = _ops._launch_in_python
    monkeypatch.setattr(_ops, "_launch_in_python", lambda *args: (
        python_launches.append(args[0]), real_helper(*args))[1])
    result = getattr(npx, name)(x, **kwargs)
    expected = function(a, **kwargs)
    assert result.shape == expected.shape
    np.testing.assert_allclose(result.to_host(), expected, rtol=1e-4, atol=1e-5)
    assert _ops.fastpath_counts()["reduction"] == before + 1 and python_launches == []


def test_reduction_result_declines_what_it_does_not_know(rng):
    x = npx.asarray(rng.standard_normal((3, 4)).astype(np.float32))
    dims = _ops.acl_int_array((1,))
    f32 = np.dtype(np.float32)
    assert _ops._reduction_in_c(x, "aclnnCumsum", (dims, False), (3,), f32) is None
    assert _ops._reduction_in_c(x, "aclnnAmax", (dims, 1), (3,), f32) is None  # not a bool
    assert _ops._reduction_in_c(x, "aclnnAmax", (dims,), (3,), f32) is None
    assert _ops._reduction_in_c(x, "aclnnAmax", (object(), False), (3,), f32) is None
    assert _ops._reduction_in_c(np.ones(3), "aclnnAmax", (dims, False), (3,), f32) is None
    with pytest.raises(TypeError):
        _ops._fastpath.reduction_result(x, "aclnnAmax")
    out = _ops._reduction_in_c(x, "aclnnAmax", (dims, False), (3,), f32)
    if out is not None:  # (None: no cached block of that size yet)
        np.testing.assert_array_equal(out.to_host(), x.to_host().max(axis=1))


@pytest.mark.parametrize("key", [np.s_[2:5], np.s_[1:, :], np.s_[3], np.s_[-1, 2:],
                                 np.s_[::2], np.s_[:, ::-1], np.s_[None, 1]], ids=str)
def test_small_reads_of_views_match_numpy(key, rng):
    """Views (offsets, steps, added axes) read in C when C-contiguous, else in Python."""
    a = rng.standard_normal((6, 4)).astype(np.float32)
    x = npx.asarray(a)
    view = x[key]
    np.testing.assert_array_equal(view.to_host(), a[key])
    np.testing.assert_array_equal(np.asarray(view), a[key])


def test_binary_and_unary_operators_on_views_match_numpy(rng):
    a = rng.standard_normal((6, 4)).astype(np.float32)
    b = rng.standard_normal((6, 4)).astype(np.float32)
    x, y = npx.asarray(a), npx.asarray(b)
    for key in (np.s_[2:5], np.s_[1:, 1:], np.s_[3], np.s_[:, 1], np.s_[::2]):
        xv, yv = x[key], y[key]
        for _ in range(2):  # (the second time, views with aclTensors take the C paths)
            np.testing.assert_allclose((xv + yv).to_host(), a[key] + b[key], rtol=1e-6)
            np.testing.assert_allclose((xv * 2.5).to_host(), a[key] * np.float32(2.5),
                                       rtol=1e-6)
            np.testing.assert_allclose(npx.exp(xv).to_host(), np.exp(a[key]), rtol=1e-6)
            np.testing.assert_allclose(npx.sum(xv, axis=-1).to_host() if xv.ndim else
                                       npx.sum(xv).to_host(),
                                       np.sum(a[key], axis=-1), rtol=1e-5)


def test_without_the_extension_everything_runs_in_python(run_python):
    """An install whose npuarray._core._fastpath cannot be imported (a build without it) takes
    the Python paths, with the same results."""
    script = """
import sys
sys.modules["npuarray._core._fastpath"] = None  # the import fails, as for a missing extension
import numpy as np, npuarray as npx
from npuarray._core import _ops
assert _ops._fastpath is None and not isinstance(npx.NPUArray.__add__, type(len))
a = np.arange(12, dtype=np.float32).reshape(3, 4)
x, y = npx.asarray(a), npx.asarray(a[0])
z = (x + y) * 2.0 - 1.0
z += x
z[...] = z ** 2
assert np.allclose(z.to_host(), ((a + a[0]) * 2 - 1 + a) ** 2)
assert float(npx.sum(x)) == a.sum() and np.allclose(np.asarray(npx.exp(x)), np.exp(a), rtol=1e-6)
print("ok")
"""
    result = run_python(script)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["ok"]


# -- astype (aclnnCast through _fastpath.unary_result, from _ops.cast)

CAST_DTYPES = [np.bool_, np.int8, np.uint8, np.int32, np.int64, np.float16, np.float32,
               np.float64]


@pytest.mark.parametrize("source", CAST_DTYPES, ids=lambda d: np.dtype(d).name)
def test_casts_run_in_c_and_match_numpy(source, monkeypatch, rng):
    a = (rng.standard_normal((5, 7)) * 50).astype(source)
    x = npx.asarray(a)
    for target in CAST_DTYPES:  # (plans made, blocks cached)
        x.astype(target)
        x.astype(target)
    launched = python_launches(monkeypatch)
    for target in CAST_DTYPES:
        result = x.astype(target)
        with np.errstate(all="ignore"):
            expected = a.astype(target)
        assert result.dtype == expected.dtype and result.shape == expected.shape
        if np.dtype(target).kind in "iu" and a.dtype.kind == "f":
            finite = np.abs(a.astype(np.float64)) < np.iinfo(target).max  # (C leaves the
            np.testing.assert_array_equal(result.to_host()[finite], expected[finite])  # rest)
        else:
            np.testing.assert_array_equal(result.to_host(), expected)
    assert "aclnnCast" not in launched


def test_casts_of_other_views_take_the_python_path(rng):
    a = (rng.standard_normal((6, 4)) * 10).astype(np.float32)
    x = npx.asarray(a)
    for key in (np.s_[::-1], np.s_[:, ::-2], np.s_[1:, 1], np.s_[:0]):
        np.testing.assert_array_equal(x[key].astype(np.int32).to_host(),
                                      a[key].astype(np.int32))
    with pytest.raises(TypeError):
        _ops._fastpath.unary_result("aclnnCast", x, np.dtype(np.float64), "float64")


# -- fills (aclnnInplaceFillScalar through _fastpath.fill, from _ops.fill_)

@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int8, np.int64, np.uint16,
                                   np.bool_, np.complex64], ids=lambda d: np.dtype(d).name)
def test_fills_run_in_c_and_match_numpy(dtype, monkeypatch, rng):
    values = [True, False] if dtype == np.bool_ else [0, 1, -3, 7] if \
        np.dtype(dtype).kind == "i" else [0, 1, 7] if np.dtype(dtype).kind == "u" else \
        [0.0, -0.0, 2.5, -1e3, float("inf"), float("nan")]
    x = npx.asarray(np.zeros((3, 5), dtype))
    launched = python_launches(monkeypatch)
    for value in values:
        x[...] = value
        np.testing.assert_array_equal(x.to_host(), np.full((3, 5), value, dtype))
        full = npx.full((2, 3), value, dtype=dtype)
        np.testing.assert_array_equal(full.to_host(), np.full((2, 3), value, dtype))
        view = x[:, 1::2]  # positive steps: the C path too
        view[...] = value
        expected = np.full((3, 5), value, dtype)
        np.testing.assert_array_equal(x.to_host(), expected)
    assert "aclnnInplaceFillScalar" not in launched


def test_fills_of_other_views_take_the_python_path(rng):
    a = rng.standard_normal((4, 6)).astype(np.float32)
    x = npx.asarray(a)
    flipped = x[::-1, ::-2]
    flipped[...] = 1.5
    a[::-1, ::-2] = 1.5
    np.testing.assert_array_equal(x.to_host(), a)
    with pytest.raises(ValueError, match="read-only"):
        repeated = npx.broadcast_to(x[0], (4, 6))
        repeated[...] = 0.0
    with pytest.raises(ValueError):
        npx.asarray(np.zeros(3, np.int32))[...] = float("nan")  # as NumPy refuses
    with pytest.raises(OverflowError):
        npx.asarray(np.zeros(3, np.int8))[...] = 1000
    assert _ops._fill_in_c(x, object()) is None
    with pytest.raises(TypeError):
        _ops._fastpath.fill(x)


def test_copies_run_in_c_and_match_numpy(monkeypatch, rng):
    """x.copy() and _ops.copy_ between arrays of one shape and dtype: aclnnInplaceCopy from
    C; other copies (broadcast, cast, overlap, an explicit stream) keep the Python path."""
    a = rng.standard_normal((5, 6)).astype(np.float32)
    x = npx.asarray(a)
    x.copy(), x.copy()  # (blocks cached)
    launched = python_launches(monkeypatch)
    y = x.copy()
    assert y._buffer is not x._buffer
    np.testing.assert_array_equal(y.to_host(), a)
    assert launched == []
    out = npx.asarray(np.zeros((5, 6), np.float32))
    _ops.copy_(out, npx.asarray(a[0]))  # broadcast: Python
    np.testing.assert_array_equal(out.to_host(), np.broadcast_to(a[0], (5, 6)))
    _ops.copy_(out, npx.asarray(a.astype(np.float64)))  # cast: Python
    np.testing.assert_array_equal(out.to_host(), a)
    _ops.copy_(out[1:], out[:-1])  # partial overlap: Python, through a temporary
    expected = a.copy()
    expected[1:] = a[:-1]
    np.testing.assert_array_equal(out.to_host(), expected)
    assert launched.count("aclnnInplaceCopy") == 4  # (the overlap: into and out of a temporary)
