"""npuarray.sum / max / min and the NPUArray methods of the same names are
_fastpath.ReductionFunction objects: a call with one array, an axis and keepdims whose
launch _statistical memoised runs in C (no Python frame), everything else through the
Python function. Every result is checked against NumPy, on the first call (Python, which
memoises the plan) and on the repeated one (C), and the C path is checked to be taken."""
import inspect

import numpy as np
import pytest

import npuarray as npx
from npuarray._core import _ops, _statistical

pytestmark = pytest.mark.skipif(_ops._fastpath is None, reason="npuarray._core._fastpath is not built")

REDUCTIONS = {"sum": np.sum, "max": np.max, "min": np.min}


def assert_matches_numpy(result, expected, rtol=1e-5):
    expected = np.asarray(expected)
    assert result.shape == expected.shape and result.dtype == expected.dtype, (result, expected)
    np.testing.assert_allclose(result.to_host(), expected, rtol=rtol, equal_nan=True)


def assert_calls_match_numpy(name, x, a, *args, **kwargs):
    """name(x, ...) as the function and as the method, twice each (the second call of each
    takes the memoised plan), all against NumPy."""
    expected = getattr(np, name)(a, *args, **kwargs)
    for _ in range(2):
        assert_matches_numpy(getattr(npx, name)(x, *args, **kwargs), expected)
        assert_matches_numpy(getattr(x, name)(*args, **kwargs), expected)


def test_the_functions_and_methods_are_the_c_entries():
    for name in REDUCTIONS:
        for entry in (getattr(npx, name), vars(npx.NPUArray)[name]):
            assert type(entry) is _ops._fastpath.ReductionFunction
            assert entry.__name__ == name and name in entry.__doc__.lower()
    assert str(inspect.signature(npx.sum)).startswith("(a, /, axis=None, dtype=None, out=None")
    assert str(inspect.signature(npx.NPUArray.max)) == "(self, axis=None, out=None, keepdims=False)"
    x = npx.asarray(np.arange(6.0).reshape(2, 3))
    assert x.sum.__self__ is x


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_the_repeated_call_runs_in_c(name, rng, monkeypatch):
    a = rng.standard_normal((10, 64)).astype(np.float32)
    x = npx.asarray(a) * 1.0  # a result: it has its aclTensor, last used on this stream
    for call in (lambda: getattr(npx, name)(x, axis=1), lambda: getattr(x, name)(-1, keepdims=True)):
        call()  # the plan memoised (and a block of the result's size cached)

    def python_path(*args, **kwargs):
        raise AssertionError("the Python path ran")
    monkeypatch.setattr(_statistical, "_plan_key", python_path)
    monkeypatch.setattr(_ops, "reduction_result", python_path)
    before = _ops.fastpath_counts()["reduction"]
    assert_matches_numpy(getattr(npx, name)(x, axis=1), REDUCTIONS[name](a, axis=1))
    assert_matches_numpy(getattr(x, name)(-1, keepdims=True), REDUCTIONS[name](a, axis=-1, keepdims=True))
    assert_matches_numpy(getattr(npx, name)(x, 1, keepdims=False), REDUCTIONS[name](a, axis=1))
    assert _ops.fastpath_counts()["reduction"] == before + 3


@pytest.mark.parametrize("axis", [None, 0, 1, -1, -2, (0, 1), (-1,), ()])
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int8, np.uint8, np.bool_])
def test_sum_matches_numpy_with_its_dtype_promotion(rng, dtype, axis, keepdims):
    a = (rng.standard_normal((6, 7)) * 20).astype(dtype)
    assert_calls_match_numpy("sum", npx.asarray(a), a, axis=axis, keepdims=keepdims)  # ints sum as int64 / uint64


@pytest.mark.parametrize("name", ["max", "min"])
@pytest.mark.parametrize("axis", [None, 0, -1, (0, 1)])
def test_max_min_match_numpy(rng, name, axis):
    a = rng.standard_normal((5, 9)).astype(np.float32)
    assert_calls_match_numpy(name, npx.asarray(a), a, axis=axis)
    assert_calls_match_numpy(name, npx.asarray(a), a, axis, keepdims=True)


def test_the_other_keywords_take_the_python_path(rng):
    a = rng.standard_normal((4, 6)).astype(np.float32)
    x = npx.asarray(a)
    for _ in range(2):
        assert_matches_numpy(npx.sum(x, axis=1, dtype=np.float64), a.sum(axis=1, dtype=np.float64))
        assert_matches_numpy(x.sum(axis=0, dtype=np.int32), a.sum(axis=0, dtype=np.int32))
        mask = a > 0
        assert_matches_numpy(npx.sum(x, axis=1, where=npx.asarray(mask)), a.sum(axis=1, where=mask))
        assert_matches_numpy(npx.sum(x, axis=0, initial=2.5), a.sum(axis=0, initial=2.5))
        assert_matches_numpy(npx.max(x, axis=1, initial=0.5), a.max(axis=1, initial=0.5))
        out = npx.empty((4,), dtype=np.float32)
        assert npx.sum(x, 1, out=out) is out
        assert_matches_numpy(out, a.sum(axis=1))
        out = npx.empty((1, 6), dtype=np.float32)
        assert x.min(axis=0, out=out, keepdims=True) is out
        assert_matches_numpy(out, a.min(axis=0, keepdims=True))


def test_views_empty_arrays_and_nan(rng):
    a = rng.standard_normal((8, 12)).astype(np.float32)
    a[3, 5] = np.nan
    x = npx.asarray(a)
    for view, ref in [(x.T, a.T), (x[::2, 1::3], a[::2, 1::3]), (x[:, ::-1], a[:, ::-1])]:
        for name in REDUCTIONS:
            assert_calls_match_numpy(name, view, ref, axis=1)
            assert_calls_match_numpy(name, view, ref, axis=-2, keepdims=True)
    empty = np.zeros((0, 5), np.float32)
    assert_calls_match_numpy("sum", npx.asarray(empty), empty, axis=0)
    assert_calls_match_numpy("sum", npx.asarray(empty), empty, axis=1)
    for _ in range(2):
        with pytest.raises(ValueError):
            npx.max(npx.asarray(empty), axis=0)


def test_bad_arguments_raise_as_before(rng):
    x = npx.asarray(rng.standard_normal((3, 4)).astype(np.float32))
    x.sum(axis=1)
    for _ in range(2):
        with pytest.raises(np.exceptions.AxisError):
            npx.sum(x, axis=2)
        with pytest.raises(TypeError):
            npx.sum(x, axis=True)  # a bool is no axis, though it equals 1
        with pytest.raises(ValueError):
            x.sum(axis=(1, -1))
        with pytest.raises(TypeError):
            npx.sum(x, axis=1, bogus=3)


def test_a_plan_on_another_stream_and_in_a_capture(rng):
    a = rng.standard_normal((16, 32)).astype(np.float32)
    x = npx.asarray(a) * 1.0
    assert_matches_numpy(npx.sum(x, axis=1), a.sum(axis=1))
    with npx.Stream():  # x was last used on the default stream: Python prepares it
        assert_matches_numpy(npx.sum(x, axis=1), a.sum(axis=1))
        assert_matches_numpy(npx.sum(x, axis=1), a.sum(axis=1))
    stream = npx.Stream()
    with stream:
        y = npx.asarray(a) * 1.0
        npx.sum(y, axis=1)
        graph = npx.Graph()
        with graph.capture():
            captured = npx.sum(y, axis=1)
        y[...] = npx.asarray(a * 2)
        graph.replay()
        assert_matches_numpy(captured, (a * 2).sum(axis=1))
