"""npuarray/_fastpath.c: the C common case of NPUArray's binary operators and of
DeviceBuffer.__del__ (issue 9). Each test checks results against NumPy, and that every
case outside the common one reaches the Python operator with the same semantics."""
import gc
import threading

import numpy as np
import pytest

import npuarray as npx
from npuarray import _elementwise, _ops
from npuarray._acl import ffi
from npuarray.runtime import _memory_pool

pytestmark = pytest.mark.skipif(_ops._fastpath is None or _ops._launch_helper is None,
                                reason="npuarray._fastpath (or the npusim launch helper) "
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
    """The operators' Python fast path (binary_result), counted: the C path never calls it."""
    calls = []
    real = _ops.binary_result

    def counted(*args):
        calls.append(args[0])
        return real(*args)
    monkeypatch.setattr(_ops, "binary_result", counted)
    return calls


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
    before = (pool.used_bytes(), pool.total_bytes())
    z = x
    for _ in range(1000):
        z = z + x
    np.testing.assert_allclose(z.to_host(), x.to_host() * 1001, rtol=1e-4)
    del z
    assert (pool.used_bytes(), pool.total_bytes()) == before


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
    for value in SCALARS:
        for dunder, function in OPERATORS.items():
            try:
                with np.errstate(all="ignore"):
                    expected = function(a, value)
            except (OverflowError, TypeError) as error:  # e.g. int8 + 1000
                with pytest.raises(type(error)):
                    getattr(x, dunder)(value)
                continue
            result = getattr(x, dunder)(value)
            assert result.dtype == expected.dtype, (dunder, value)
            rtol = 1e-2 if dtype == np.float16 else 1e-6
            np.testing.assert_allclose(result.to_host(), expected, rtol=rtol, equal_nan=True,
                                       err_msg=f"{dunder} {value!r}")


def test_a_scalar_chain_never_reaches_python(monkeypatch, rng):
    calls = []
    real = _ops.scalar_result
    monkeypatch.setattr(_ops, "scalar_result", lambda *args: (calls.append(args[0]),
                                                              real(*args))[1])
    a = rng.standard_normal(16).astype(np.float32)
    z = x = npx.asarray(a) * 1.0
    for _ in range(100):
        z = z * 1.01 - 0.5
    expected = a.copy()
    for _ in range(100):
        expected = expected * np.float32(1.01) - np.float32(0.5)
    np.testing.assert_allclose(z.to_host(), expected, rtol=1e-4)
    assert calls == []
    (x * np.float32(2.0)).to_host()  # a NumPy scalar: the Python operator
    2.0 * x                           # reflected: the Python operator
    assert calls == ["aclnnMuls"]


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
    else:
        with pytest.raises(TypeError):
            x + a
        return
    result = x + other
    expected = a + expected_other
    assert result.shape == expected.shape and result.dtype == expected.dtype
    np.testing.assert_allclose(result.to_host(), expected, rtol=1e-6)
    if case in ("broadcast", "large"):
        assert python_path_calls == ["aclnnAdd"]


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
    before = pool.used_bytes()
    with pytest.raises(npx.AclError) as error:
        add(x, x)
    assert error.value.code == 161002 and "aclnnAddGetWorkspaceSize" in str(error.value)
    assert pool.used_bytes() == before
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
