"""Dask meets NPUArray without ``import npuarray.dask``: lazy registration in both import
orders, and the dispatches beyond test_dask.py's (einsum, divide, sizeof, chunk type)."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

da = pytest.importorskip("dask.array", reason="dask is not installed (pip install 'npuarray[dask]')")
from dask.array import dispatch  # noqa: E402
from dask.sizeof import sizeof  # noqa: E402

import npuarray as npx  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

_FRESH = """
import json, sys
import {first}
import {second}
import numpy as np
import dask.array as da
import npuarray as npx
finders = [type(f).__name__ for f in sys.meta_path]
host = np.arange(1.0, 25.0).reshape(6, 4)
x = da.from_array(npx.asarray(host), chunks=(2, 3))
with npx.transfer_guard("disallow"):
    results = {{
        "concatenate": da.concatenate([x, x[::-1]], axis=0),
        "sum": x.sum(axis=0),
        "mean": x.mean(),
        "einsum": da.einsum("ij,ij->j", x, x),
        "tensordot": da.tensordot(x, x, axes=([0], [0])),
        "argmax": x.argmax(axis=1),
        "rechunk": x.rechunk((3, 4)).T,
    }}
    import dask
    with dask.config.set({{"array.backend": "npuarray"}}):
        results["backend_ones"] = da.ones((2, 3), chunks=2) + da.random.default_rng(0).random(3)
    computed = {{k: v.compute(scheduler="sync") for k, v in results.items()}}
print(json.dumps({{"types": sorted({{type(v).__name__ for v in computed.values()}}),
                  "values": {{k: v.to_host().tolist() for k, v in computed.items()}},
                  "finder_left": "_DaskArrayFinder" in finders}}))
"""


def run_fresh(code):
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=120, cwd=ROOT,
                            env={**os.environ, "PYTHONPATH": ROOT})
    assert result.returncode == 0, result.stderr
    return result.stdout


@pytest.mark.parametrize("first, second", [("npuarray", "dask.array"),
                                           ("dask.array", "npuarray")])
def test_fresh_process_registers_in_either_import_order(first, second):
    out = json.loads(run_fresh(_FRESH.format(first=first, second=second)).splitlines()[-1])
    assert out["types"] == ["NPUArray"]
    assert out["finder_left"] is False  # the import watcher removed itself
    host = np.arange(1.0, 25.0).reshape(6, 4)
    expected = {"concatenate": np.concatenate([host, host[::-1]]), "sum": host.sum(axis=0),
                "mean": host.mean(), "einsum": np.einsum("ij,ij->j", host, host),
                "tensordot": np.tensordot(host, host, axes=([0], [0])),
                "argmax": host.argmax(axis=1), "rechunk": host.T}
    for name, value in expected.items():
        np.testing.assert_allclose(out["values"][name], value, rtol=1e-12, err_msg=name)
    ones_plus_uniform = np.asarray(out["values"]["backend_ones"])
    assert ones_plus_uniform.shape == (2, 3) and np.all((ones_plus_uniform >= 1) & (ones_plus_uniform < 2))


def test_import_npuarray_alone_does_not_import_dask():
    out = run_fresh("import sys, npuarray; print(sorted(m for m in sys.modules "
                    "if m == 'dask' or m.startswith('dask.')))")
    assert out.strip() == "[]"


def test_a_failing_registration_warns_instead_of_breaking_dask(monkeypatch):
    from npuarray import _dask_hook

    def broken():
        raise RuntimeError("simulated")
    monkeypatch.setattr(_dask_hook, "register_lazily", broken)
    with pytest.warns(RuntimeWarning, match="import npuarray.dask"):
        _dask_hook._register_lazily()
    monkeypatch.undo()
    _dask_hook.install()  # dask.array is loaded here: registers at once, no finder left behind
    assert not any(isinstance(f, _dask_hook._DaskArrayFinder) for f in sys.meta_path)
    assert dispatch.concatenate_lookup.dispatch(npx.NPUArray) is _dask_hook._concatenate


def test_the_finder_ignores_other_modules():
    from npuarray import _dask_hook
    assert _dask_hook._DaskArrayFinder().find_spec("numpy.linalg", None) is None


def test_without_registration_dask_would_download_chunks():
    # What the registration prevents: NumPy's concatenate on NPUArrays needs __array__.
    x = npx.asarray(np.ones(3))
    with npx.transfer_guard("disallow"), pytest.raises(TypeError):
        np.asarray(x)
    assert dispatch.concatenate_lookup.dispatch(npx.NPUArray).__module__ == "npuarray._dask_hook"


# -- einsum ----------------------------------------------------------------------------------

@pytest.mark.parametrize("subscripts, shapes", [
    ("ij,jk->ik", [(3, 4), (4, 2)]), ("ij,ij->j", [(5, 3), (5, 3)]), ("ii->i", [(4, 4)]),
    ("ijk->kji", [(2, 3, 4)]), ("i,i->", [(6,), (6,)]), ("ij->", [(0, 3)])])
def test_einsum_dispatch(rng, subscripts, shapes):
    hosts = [rng.standard_normal(s) for s in shapes]
    with npx.transfer_guard("disallow"):
        got = dispatch.einsum_lookup(subscripts, *[npx.asarray(h) for h in hosts],
                                     casting="safe", order="K")
    assert isinstance(got, npx.NPUArray)
    np.testing.assert_allclose(got.to_host(), np.einsum(subscripts, *hosts), rtol=1e-12,
                               atol=1e-12)


def test_einsum_on_chunks_with_strided_operands(rng):
    a, b = rng.standard_normal((8, 6)), rng.standard_normal((6, 8))
    x = da.from_array(npx.asarray(a), chunks=(3, 2))[::-1]
    y = da.from_array(npx.asarray(b), chunks=(2, 3)).T
    with npx.transfer_guard("disallow"):
        got = da.einsum("ij,ij->i", x, y).compute(scheduler="sync")
    np.testing.assert_allclose(got.to_host(), np.einsum("ij,ij->i", a[::-1], b.T), rtol=1e-12)


def test_einsum_dispatch_bad_subscripts_raise_and_next_call_works(rng):
    x = npx.asarray(rng.standard_normal((2, 3)))
    with pytest.raises(ValueError):
        dispatch.einsum_lookup("ij,jk->ik", x, x)
    np.testing.assert_allclose(dispatch.einsum_lookup("ij->ji", x).to_host(), x.to_host().T)


# -- divide ----------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [None, np.float32, np.float64, np.complex128])
@pytest.mark.parametrize("operands", [np.float64, np.int32, np.float32])
def test_divide_dispatch_matches_dasks_numpy_version(rng, dtype, operands):
    a = (rng.standard_normal((4, 3)) * 10).astype(operands)
    b = (rng.integers(1, 9, (3,))).astype(operands)
    expected = dispatch.divide_lookup(a, b, dtype=dtype)
    with npx.transfer_guard("disallow"):
        got = dispatch.divide_lookup(npx.asarray(a), npx.asarray(b), dtype=dtype)
    assert got.dtype == expected.dtype
    np.testing.assert_allclose(got.to_host(), expected, rtol=1e-6)


def test_divide_dispatch_zero_d_and_empty(rng):
    np.testing.assert_array_equal(
        dispatch.divide_lookup(npx.asarray(np.float64(3.0)), npx.asarray(np.float64(2.0))).to_host(), 1.5)
    assert dispatch.divide_lookup(npx.empty((0, 2)), npx.ones((2,))).shape == (0, 2)


def test_divide_dispatch_refuses_out_and_next_call_works():
    x = npx.ones(3)
    with pytest.raises(TypeError, match="out="):
        dispatch.divide_lookup(x, x, out=x)
    np.testing.assert_array_equal(dispatch.divide_lookup(x, x).to_host(), np.ones(3))


def test_mean_over_chunks_uses_the_divide_dispatch(rng):
    host = rng.standard_normal((7, 5))
    x = da.from_array(npx.asarray(host), chunks=(3, 2))
    with npx.transfer_guard("disallow"):
        got = x.mean(axis=1, dtype=np.float32).compute(scheduler="sync")
    assert got.dtype == np.float32
    np.testing.assert_allclose(got.to_host(), host.mean(axis=1), rtol=1e-5)


# -- sizeof and the chunk type -------------------------------------------------------------

@pytest.mark.parametrize("dtype, shape", [(np.float64, (5, 3)), (np.int8, (7,)),
                                          (np.complex128, ()), (np.float32, (0, 4))])
def test_sizeof_counts_device_bytes(dtype, shape):
    x = npx.zeros(shape, dtype=dtype)
    assert sizeof(x) == np.zeros(shape, dtype=dtype).nbytes
    assert sizeof(npx.zeros((6, 4), dtype=dtype).T[::2]) == np.zeros((4, 6), dtype)[::2].nbytes


def test_dask_arrays_and_npuarrays_mix(rng):
    a, b = rng.standard_normal((4, 6)), rng.standard_normal(6)
    x = da.from_array(npx.asarray(a), chunks=(2, 3))
    y = npx.asarray(b)
    with npx.transfer_guard("disallow"):
        for got, expected in [(x + y, a + b), (np.multiply(x, y), a * b),
                              (da.maximum(x, y), np.maximum(a, b))]:
            assert isinstance(got, da.Array) and isinstance(got._meta, npx.NPUArray)
            np.testing.assert_array_equal(got.compute(scheduler="sync").to_host(), expected)
