"""The transfer guard: implicit device-to-host transfers can be logged or forbidden."""
import logging
import operator
import threading

import numpy as np
import pytest

import npuarray as npx

IMPLICIT = {
    "numpy.asarray": lambda x: np.asarray(x),
    "bool": lambda x: bool(x),
    "int": lambda x: int(x),
    "float": lambda x: float(x),
    "complex": lambda x: complex(x),
    "index": lambda x: operator.index(x),
    "format": lambda x: f"{x:.3f}",
}


@pytest.fixture
def scalar():
    return npx.asarray(np.int64(np.random.default_rng().integers(1, 100)))


@pytest.mark.parametrize("name", IMPLICIT)
def test_disallow_forbids_implicit_transfers(scalar, name):
    with npx.transfer_guard("disallow"):
        with pytest.raises(npx.ImplicitTransferError) as info:
            IMPLICIT[name](scalar)
    assert isinstance(info.value, TypeError)
    assert "to_host" in str(info.value) or "item" in str(info.value)
    IMPLICIT[name](scalar)  # allowed again outside the block


def test_iteration_yields_device_arrays_without_transfer():
    x = npx.asarray([3, 1, 2])
    with npx.transfer_guard("disallow"):
        items = list(x)  # 0-d device views, as CuPy's: nothing is copied
        assert np.iterable(x)
        rows = list(npx.asarray([[1, 2], [3, 4]]))  # rows are device views: no transfer
        with pytest.raises(npx.ImplicitTransferError):
            float(items[0])  # reading one is an implicit transfer
    assert all(isinstance(v, npx.NPUArray) and v.shape == () for v in items)
    assert [v.item() for v in items] == [3, 1, 2]
    assert [r.to_host().tolist() for r in rows] == [[1, 2], [3, 4]]


def test_host_fallback_and_uploads_obey_the_guard(caplog):
    a = np.arange(4.0)
    x = npx.asarray(a)
    windows = np.lib.stride_tricks.sliding_window_view  # no device version in npuarray
    np.testing.assert_array_equal(windows(x, 2), windows(a, 2))  # NumPy's host answer
    np.testing.assert_allclose(np.average(a, weights=x), np.average(a, weights=a))
    with npx.transfer_guard("log"), caplog.at_level("WARNING", logger="npuarray"):
        x + a
        windows(x, 2)
    messages = [r.getMessage() for r in caplog.records]
    assert any("test_transfer_guard.py" in m and "to the device" in m for m in messages)
    assert any("sliding_window_view" in m and "test_transfer_guard.py" in m
               for m in messages)
    with npx.transfer_guard("disallow"):
        with pytest.raises(npx.ImplicitTransferError, match="sliding_window_view"):
            windows(x, 2)
        with pytest.raises(npx.ImplicitTransferError, match="add"):
            x + a
        assert_close = (x + 1.0).to_host()  # Python scalars stay operands
    np.testing.assert_allclose(assert_close, a + 1)


def test_explicit_transfers_always_work(scalar):
    host = np.random.default_rng().standard_normal((3, 4)).astype(np.float32)
    x = npx.asarray(host)
    with npx.transfer_guard("disallow"):
        np.testing.assert_array_equal(x.to_host(), host)
        np.testing.assert_array_equal(npx.asnumpy(x), host)
        assert x[1, 2].item() == host[1, 2]
        assert x.tolist() == host.tolist()
        assert "npu:0" in repr(x)
        y = npx.asarray(host) + 1  # uploads and device work are not guarded
        np.testing.assert_allclose(y.to_host(), host + 1, rtol=1e-6)


def test_log_level_warns(scalar, caplog):
    with caplog.at_level(logging.WARNING, logger="npuarray"):
        with npx.transfer_guard("log"):
            value = int(scalar)
    assert value == scalar.item()
    assert any("int(x)" in r.getMessage() for r in caplog.records)


def test_nesting_restores_and_levels_are_validated(scalar):
    with npx.transfer_guard("disallow"):
        with npx.transfer_guard("allow"):
            int(scalar)
        with pytest.raises(npx.ImplicitTransferError):
            int(scalar)
    with pytest.raises(ValueError):
        with npx.transfer_guard("forbid"):
            pass


def test_guard_is_thread_local(scalar):
    results = []
    ready, done = threading.Event(), threading.Event()

    def other_thread():
        ready.wait(5)
        results.append(float(scalar))  # not affected by the main thread's guard
        done.set()

    thread = threading.Thread(target=other_thread)
    thread.start()
    with npx.transfer_guard("disallow"):
        ready.set()
        done.wait(5)
        with pytest.raises(npx.ImplicitTransferError):
            float(scalar)
    thread.join()
    assert results == [float(scalar.item())]


def test_environment_variable_sets_the_default(run_python):
    code = ("import numpy as np, npuarray as npx\n"
            "x = npx.asarray([1.0, 2.0])\n"
            "assert x.to_host().tolist() == [1.0, 2.0]\n"
            "try:\n"
            "    np.asarray(x)\n"
            "except npx.ImplicitTransferError as e:\n"
            "    assert 'to_host' in str(e)\n"
            "else:\n"
            "    raise SystemExit('implicit transfer allowed')\n"
            "with npx.transfer_guard('allow'):\n"
            "    assert np.asarray(x).tolist() == [1.0, 2.0]\n")
    result = run_python(code, NPUARRAY_TRANSFER_GUARD="disallow")
    assert result.returncode == 0, result.stderr


def test_host_read_hooks_run_before_any_read():
    from npuarray._core import _transfer
    seen = []

    def forbid(what):
        seen.append(what)
        raise npx.CaptureError(107027, "test", "reads are forbidden here")

    x = npx.asarray([1, 2, 3])
    _transfer.host_read_hooks.append(forbid)
    try:
        with pytest.raises(npx.CaptureError):
            x.to_host()
        with pytest.raises(npx.CaptureError):
            bool(x[0])
        assert "not readable" in repr(x)  # repr never raises
    finally:
        _transfer.host_read_hooks.remove(forbid)
    assert seen[0] == "to_host()"
    assert x.to_host().tolist() == [1, 2, 3]
