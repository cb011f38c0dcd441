"""npuarray.matmul, npuarray._core._linear_algebra.matmul and NPUArray.__matmul__ are
_fastpath.MatmulFunction objects: a call with two NPUArrays whose product the Python
function memoised (one aclnnMatmul of the operands as they are) runs in C, a transposed or
sliced operand taking its aclTensor from the cache of views' descriptors; everything else
runs the Python function. Every result is checked against NumPy, on the first call (Python,
which memoises the product) and the repeated ones (C), and the C path is checked to be
taken (or not) through the fast path's counts."""
import inspect
import threading

import numpy as np
import pytest

import npuarray as npx
from npuarray import profiler
from npuarray._core import _linear_algebra, _ops

pytestmark = pytest.mark.skipif(_ops._fastpath is None, reason="npuarray._core._fastpath is not built")

ENTRIES = {"npuarray.matmul": npx.matmul, "_linear_algebra.matmul": _linear_algebra.matmul,
           "operator @": lambda a, b: a @ b}


def assert_close_to_numpy(result, expected):
    expected = np.asarray(expected)
    assert result.shape == expected.shape and result.dtype == expected.dtype, (result, expected)
    k = 1 if expected.ndim == 0 else 64
    np.testing.assert_allclose(result.to_host(), expected, rtol=1e-5, atol=1e-5 * np.sqrt(k) * 8)


def matmul_counts():
    return _ops.fastpath_counts()["matmul"]


def assert_repeated_calls_in_c(product, x1, x2, expected):
    """product(x1, x2) three times against NumPy: the first may run in Python (it memoises
    the product), the next two must run in C."""
    assert_close_to_numpy(product(x1, x2), expected)
    before = matmul_counts()
    assert_close_to_numpy(product(x1, x2), expected)
    assert_close_to_numpy(product(x1, x2), expected)
    assert matmul_counts() == before + 2


def test_the_functions_and_the_operator_are_the_c_entries():
    for entry in (npx.matmul, _linear_algebra.matmul, vars(npx.NPUArray)["__matmul__"]):
        assert type(entry) is _ops._fastpath.MatmulFunction
        assert entry.__name__ in ("matmul", "__matmul__")
    assert "aclnnMatmul" in npx.matmul.__doc__ and "aclnnMatmul" in _linear_algebra.matmul.__doc__
    assert str(inspect.signature(npx.matmul)).startswith("(x1, x2, /, out=None, *, dtype=None")
    assert str(inspect.signature(npx.NPUArray.__matmul__)) == "(self, other)"
    x = npx.asarray(np.eye(3, dtype=np.float32))
    assert x.__matmul__.__self__ is x


@pytest.mark.parametrize("name", sorted(ENTRIES))
@pytest.mark.parametrize("shapes", [((1797, 64), (10, 64)), ((8, 8), (8, 8)), ((5, 3), (1, 3)),
                                    ((1, 7), (40, 7))])
def test_a_transposed_operand_runs_in_c(rng, name, shapes):
    (m, k), (n, _) = shapes
    a = rng.standard_normal((m, k)).astype(np.float32)
    c = rng.standard_normal((n, k)).astype(np.float32)
    x, y = npx.asarray(a), npx.asarray(c)
    product = ENTRIES[name]
    # a new view for each call (as in `x @ c.T`): the cache of views' descriptors serves it
    assert_close_to_numpy(product(x, y.T), a @ c.T)
    before = matmul_counts()
    for _ in range(3):
        assert_close_to_numpy(product(x, y.T), a @ c.T)
    assert matmul_counts() == before + 3


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_shapes_and_dtypes_aclnn_matmul_takes(rng, dtype):
    for s1, s2 in [((4, 6), (6, 9)), ((3, 4, 6), (6, 2)), ((2, 1, 4, 5), (3, 5, 4)), ((6,), (6, 3)),
                   ((4, 6), (6,)), ((6,), (6,))]:
        a = rng.standard_normal(s1).astype(dtype)
        b = rng.standard_normal(s2).astype(dtype)
        expected = np.matmul(a.astype(np.float32), b.astype(np.float32)).astype(dtype)
        for product in ENTRIES.values():
            result = product(npx.asarray(a), npx.asarray(b))
            assert result.shape == expected.shape and result.dtype == expected.dtype
            np.testing.assert_allclose(result.to_host().astype(np.float32), expected.astype(np.float32),
                                       rtol=2e-2 if dtype == np.float16 else 1e-5, atol=5e-2)
        x, y = npx.asarray(a), npx.asarray(b)
        if dtype == np.float32:
            assert_repeated_calls_in_c(npx.matmul, x, y, a @ b)


def test_strided_and_offset_views(rng):
    wide = rng.standard_normal((60, 80)).astype(np.float32)
    b = rng.standard_normal((40, 30)).astype(np.float32)
    x, y = npx.asarray(wide), npx.asarray(b)
    assert_repeated_calls_in_c(npx.matmul, x[3:, 5:45], y[:, ::3], wide[3:, 5:45] @ b[:, ::3])
    assert_repeated_calls_in_c(npx.matmul, x[::2, :80:2], y, wide[::2, :80:2] @ b)
    # negative steps: the Python path copies such views, every time
    before = matmul_counts()
    for _ in range(2):
        assert_close_to_numpy(npx.matmul(x[::-1, :40], y), wide[::-1, :40] @ b)
        assert_close_to_numpy(npx.matmul(x[:, :40], y[::-1]), wide[:, :40] @ b[::-1])
    assert matmul_counts() == before


def test_other_dtypes_and_mixed_dtypes_take_the_python_path(rng):
    a = rng.standard_normal((6, 5))
    b = rng.standard_normal((5, 4))
    before = matmul_counts()
    for _ in range(2):
        for da, db in [(np.float64, np.float64), (np.float32, np.float64), (np.int32, np.int32),
                       (np.complex64, np.complex64), (np.int8, np.float32)]:
            x, y = npx.asarray(a.astype(da)), npx.asarray(b.astype(db))
            expected = a.astype(da) @ b.astype(db)
            result = npx.matmul(x, y)
            assert result.dtype == expected.dtype
            np.testing.assert_allclose(result.to_host(), expected, rtol=1e-5, atol=1e-5)
            np.testing.assert_allclose((x @ y).to_host(), expected, rtol=1e-5, atol=1e-5)
    assert matmul_counts() == before


def test_keywords_and_non_arrays_take_the_python_path(rng):
    a = rng.standard_normal((4, 6)).astype(np.float32)
    b = rng.standard_normal((6, 3)).astype(np.float32)
    x, y = npx.asarray(a), npx.asarray(b)
    npx.matmul(x, y)
    for _ in range(2):  # (the product inside the public function may run in C)
        out = npx.empty((4, 3), dtype=np.float32)
        assert npx.matmul(x, y, out=out) is out
        assert_close_to_numpy(out, a @ b)
        assert_close_to_numpy(npx.matmul(x, y, dtype=np.float64), a.astype(np.float64) @ b)
        assert_close_to_numpy(npx.matmul(x, b), a @ b)  # a NumPy operand is uploaded
        assert_close_to_numpy(npx.matmul(a, y), a @ b)
        assert_close_to_numpy(npx.matmul(x, y, order="F"), np.asfortranarray(a @ b))
        assert npx.matmul(x, y, order="F").flags.f_contiguous
    with pytest.raises(TypeError):
        _linear_algebra.matmul(x, b)  # the array API function takes NPUArrays only


def test_errors_are_the_python_path_errors(rng):
    x = npx.asarray(rng.standard_normal((4, 6)).astype(np.float32))
    y = npx.asarray(rng.standard_normal((6, 3)).astype(np.float32))
    x @ y, x @ y  # the product memoised
    for _ in range(2):
        with pytest.raises(ValueError, match="contracted dimensions differ"):
            npx.matmul(y, y)
        with pytest.raises(ValueError, match="contracted dimensions differ"):
            x @ x
        with pytest.raises(ValueError, match="0-d"):
            npx.matmul(x, npx.asarray(np.float32(2.0)))
        with pytest.raises(ValueError, match="do not broadcast"):
            _linear_algebra.matmul(npx.zeros((2, 4, 6), dtype=np.float32), npx.zeros((3, 6, 3), dtype=np.float32))
        with pytest.raises(TypeError):
            npx.matmul(x, y, bogus=1)
        with pytest.raises(TypeError):
            _linear_algebra.matmul(npx.asarray(np.ones((2, 2), bool)), npx.asarray(np.ones((2, 2), bool)))


def test_operands_last_used_on_another_stream_are_ordered_by_python(rng):
    a = rng.standard_normal((32, 16)).astype(np.float32)
    c = rng.standard_normal((10, 16)).astype(np.float32)
    x, y = npx.asarray(a) * 1.0, npx.asarray(c) * 1.0
    npx.matmul(x, y.T)
    with npx.Stream():
        before = matmul_counts()
        assert_close_to_numpy(npx.matmul(x, y.T), a @ c.T)  # buffers prepared for this stream
        assert_close_to_numpy(npx.matmul(x, y.T), a @ c.T)  # now last used here: C
        assert matmul_counts() == before + 1


def test_two_threads_launching_through_the_entry_on_one_array(rng):
    a = rng.standard_normal((1797, 64)).astype(np.float32)
    c = rng.standard_normal((10, 64)).astype(np.float32)
    expected = a @ c.T
    x, y = npx.asarray(a), npx.asarray(c)
    npx.matmul(x, y.T)
    failures = []

    def launch():
        try:
            with npx.Stream():  # its own stream: the first call orders x and y (Python)
                for _ in range(30):
                    results = [x @ y.T for _ in range(4)]
                    for r in results:
                        assert_close_to_numpy(r, expected)
        except Exception as error:  # noqa: BLE001 - reported below
            failures.append(error)
    before = matmul_counts()
    threads = [threading.Thread(target=launch) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures, failures
    assert matmul_counts() > before
    # and on one stream shared by both threads (the default one)
    results = {}

    def shared(i):
        results[i] = [npx.matmul(x, y.T) for _ in range(20)]
    threads = [threading.Thread(target=shared, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for outs in results.values():
        for r in outs:
            assert_close_to_numpy(r, expected)


def test_under_a_profiler_the_launches_are_recorded(rng):
    a = rng.standard_normal((64, 32)).astype(np.float32)
    c = rng.standard_normal((10, 32)).astype(np.float32)
    x, y = npx.asarray(a), npx.asarray(c)
    [npx.matmul(x, y.T) for _ in range(3)]  # three blocks of the result's size cached
    before = matmul_counts()
    with profiler.profile() as p:
        results = [npx.matmul(x, y.T) for _ in range(3)]
    assert matmul_counts() == before + 3
    for r in results:
        assert_close_to_numpy(r, a @ c.T)
    launches = [r for r in p.records if r.name == "aclnnMatmul"]
    assert len(launches) == 3


def test_in_a_graph_capture_python_records_the_product(rng):
    a = rng.standard_normal((40, 16)).astype(np.float32)
    c = rng.standard_normal((10, 16)).astype(np.float32)
    stream = npx.Stream()
    with stream:
        x, y = npx.asarray(a) * 1.0, npx.asarray(c) * 1.0
        npx.matmul(x, y.T)
        before = matmul_counts()
        graph = npx.Graph()
        with graph.capture():
            captured = x @ y.T
        assert matmul_counts() == before
        x[...] = npx.asarray(a * 2)
        graph.replay()
        assert_close_to_numpy(captured, (a * 2) @ c.T)
        assert_close_to_numpy(npx.matmul(x, y.T), (a * 2) @ c.T)


def test_a_transposed_operand_makes_no_descriptor_per_call(rng, monkeypatch):
    a = rng.standard_normal((300, 64)).astype(np.float32)
    c = rng.standard_normal((10, 64)).astype(np.float32)
    x, y = npx.asarray(a), npx.asarray(c)
    npx.matmul(x, y.T), npx.matmul(x, y.T)  # the product memoised, c.T's descriptor cached

    def no_new_descriptor(view):
        raise AssertionError("aclCreateTensor for a view already described")
    monkeypatch.setattr(_ops, "_create_tensor", no_new_descriptor)
    before = matmul_counts()
    for _ in range(5):
        t = y.T  # a new view object each time, as in `x @ c.T`
        assert t._acl_tensor is None
        assert_close_to_numpy(x @ t, a @ c.T)
        assert t._acl_tensor is not None  # filed on the view, as _ops.acl_tensor does
    assert matmul_counts() == before + 5


def test_operands_on_two_devices_raise_as_before(rng):
    a = rng.standard_normal((5, 4)).astype(np.float32)
    b = rng.standard_normal((4, 3)).astype(np.float32)
    x, y = npx.asarray(a), npx.asarray(b)
    npx.matmul(x, y), npx.matmul(x, y)  # the product memoised for these shapes and dtype
    other = npx.asarray(b, device=npx.Device(1))
    for _ in range(2):
        with pytest.raises(ValueError):
            npx.matmul(x, other)
        with pytest.raises(ValueError):
            x @ other
    with npx.Device(1):
        x1 = npx.asarray(a, device=npx.Device(1))
        assert_repeated_calls_in_c(npx.matmul, x1, other, a @ b)
        assert npx.matmul(x1, other).device.id == 1
