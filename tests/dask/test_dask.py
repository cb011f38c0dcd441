"""npuarray.dask in one process: Dask's dispatches for NPUArray chunks and the npuarray backend."""
import pathlib
import tomllib

import numpy as np
import pytest

da = pytest.importorskip("dask.array", reason="dask is not installed (pip install 'npuarray[dask]')")
import dask  # noqa: E402
from dask.array import dispatch  # noqa: E402
from hypothesis import given, settings, strategies as st  # noqa: E402

import npuarray as npx  # noqa: E402
from _numpy_names_helpers import sample  # noqa: E402
import npuarray.dask  # noqa: E402,F401  registers the dispatches and the backend
from npuarray import _dask_hook  # noqa: E402

DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
          np.uint64, np.float32, np.float64, np.complex64, np.complex128]


def compute(collection):
    """Computes in this thread with implicit device->host copies forbidden."""
    with npx.transfer_guard("disallow"):
        return collection.compute(scheduler="sync")


def device_chunks(host, chunks):
    """A Dask array of NPUArray chunks holding ``host``."""
    return da.from_array(host, chunks=chunks).map_blocks(npx.asarray, meta=npx.empty((0,) * host.ndim, dtype=host.dtype))


# -- lazy registration -----------------------------------------------------------------------

def test_lookups_resolve_to_npuarray_functions():
    assert dispatch.concatenate_lookup.dispatch(npx.NPUArray) is _dask_hook._concatenate
    assert dispatch.tensordot_lookup.dispatch(npx.NPUArray) is _dask_hook._tensordot
    assert dispatch.take_lookup.dispatch(npx.NPUArray) is _dask_hook._take
    assert dispatch.empty_lookup.dispatch(npx.NPUArray) is _dask_hook._empty
    assert dispatch.numel_lookup.dispatch(npx.NPUArray) is _dask_hook._numel
    assert dispatch.nannumel_lookup.dispatch(npx.NPUArray) is _dask_hook._nannumel
    assert dispatch.percentile_lookup.dispatch(npx.NPUArray) is _dask_hook._percentile
    assert dispatch.to_numpy_dispatch.dispatch(npx.NPUArray) is _dask_hook._to_numpy


def test_registration_waits_for_an_npuarray():
    lookup = dask.utils.Dispatch("probe")
    lookup.register(object, lambda *a: "generic")
    calls = []
    lookup.register_lazy("npuarray", lambda: calls.append(1) or lookup.register(npx.NPUArray, lambda *a: "npu"))
    assert lookup(np.ones(2)) == "generic" and not calls
    assert lookup(npx.ones(2)) == "npu" and calls == [1]


# -- dispatches through Dask graphs, results on the device ------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
def test_chunks_join_on_device(rng, dtype):
    host = sample(rng, (7, 5), dtype)
    result = compute(device_chunks(host, (3, 2)))
    assert isinstance(result, npx.NPUArray) and result.dtype == host.dtype
    np.testing.assert_array_equal(result.to_host(), host)


def test_concatenate_along_axes_and_transposed_chunks(rng):
    a, b = rng.standard_normal((4, 6)), rng.standard_normal((4, 3))
    joined = compute(da.concatenate([device_chunks(a, 2), device_chunks(b, 2)], axis=1))
    np.testing.assert_array_equal(joined.to_host(), np.concatenate([a, b], axis=1))
    transposed = compute(device_chunks(a, (2, 3)).T)
    np.testing.assert_array_equal(transposed.to_host(), a.T)
    strided = compute(device_chunks(a, (2, 3))[::-2, ::2])
    np.testing.assert_array_equal(strided.to_host(), a[::-2, ::2])


def test_concatenate_dispatch_bad_axis_raises_and_next_call_works(rng):
    x = npx.asarray(rng.standard_normal((2, 3)))
    with pytest.raises((IndexError, ValueError)):
        _dask_hook._concatenate([x, x], axis=2)
    np.testing.assert_array_equal(_dask_hook._concatenate([x, x], axis=1).to_host(),
                                  np.concatenate([x.to_host()] * 2, axis=1))


@pytest.mark.parametrize("shapes, axes", [
    (((2, 3), (4,)), 0), (((2, 3), (3, 4)), 1), (((2, 3, 4), (3, 4, 2)), 2),
    (((3, 4), (4, 3)), ([1], [0])), (((3, 4), (4, 3)), ([0, 1], [1, 0])),
    (((3, 4), (4, 3)), ([-1], [-2]))])
def test_tensordot_dispatch(rng, shapes, axes):
    a, b = (rng.standard_normal(shape) for shape in shapes)
    got = dispatch.tensordot_lookup(npx.asarray(a), npx.asarray(b), axes=axes)
    np.testing.assert_allclose(got.to_host(), np.tensordot(a, b, axes=axes), rtol=1e-12)


def test_take_dispatch_with_host_and_device_indices(rng):
    host = rng.standard_normal((5, 4))
    x = npx.asarray(host)
    np.testing.assert_array_equal(dispatch.take_lookup(x, [4, 0, 0], axis=0).to_host(),
                                  np.take(host, [4, 0, 0], axis=0))
    index = npx.asarray(np.array([3, 1]))
    np.testing.assert_array_equal(dispatch.take_lookup(x, index, axis=1).to_host(),
                                  np.take(host, [3, 1], axis=1))
    taken = compute(device_chunks(host, 2)[[4, 1, 2]])
    np.testing.assert_array_equal(taken.to_host(), host[[4, 1, 2]])


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.bool_])
def test_empty_dispatch_makes_meta_arrays(dtype):
    meta = dispatch.empty_lookup.dispatch(npx.NPUArray)((0, 0), dtype=dtype)
    assert isinstance(meta, npx.NPUArray) and meta.shape == (0, 0) and meta.dtype == dtype
    with pytest.raises(ValueError, match="C-ordered"):
        dispatch.empty_lookup.dispatch(npx.NPUArray)((2, 2), dtype=dtype, order="F")


@pytest.mark.parametrize("axis, keepdims", [(None, False), (None, True), (0, False), (1, True),
                                            ((0, 1), False), ((1, 0), True)])
def test_numel_and_nannumel_match_dasks_numpy_versions(rng, axis, keepdims):
    host = rng.standard_normal((4, 3))
    host[rng.random((4, 3)) < 0.4] = np.nan
    x = npx.asarray(host)
    for lookup in (dispatch.numel_lookup, dispatch.nannumel_lookup):
        expected = lookup(host, axis=axis, keepdims=keepdims)
        got = lookup(x, axis=axis, keepdims=keepdims)
        assert isinstance(got, npx.NPUArray)
        np.testing.assert_array_equal(got.to_host(), expected)


def test_counts_with_negative_axis(rng):
    host = rng.standard_normal((4, 3))
    host[0, :] = np.nan
    x = npx.asarray(host)
    np.testing.assert_array_equal(dispatch.nannumel_lookup(x, axis=-1).to_host(),
                                  np.sum(~np.isnan(host), axis=-1))
    np.testing.assert_array_equal(dispatch.numel_lookup(x, axis=-2).to_host(), [4, 4, 4])


def test_counts_of_a_zero_d_and_empty_chunk():
    scalar = npx.asarray(np.float64(np.nan))
    assert float(dispatch.nannumel_lookup(scalar).to_host()) == 0.0
    assert float(dispatch.numel_lookup(scalar).to_host()) == 1.0
    empty = npx.empty((0, 3))
    np.testing.assert_array_equal(dispatch.nannumel_lookup(empty, axis=0).to_host(), [0, 0, 0])


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.uint8])
def test_percentile_dispatch(rng, dtype):
    host = sample(rng, (17,), dtype)
    q = [0, 12.5, 50, 99, 100]
    got, n = dispatch.percentile_lookup(npx.asarray(host), q)
    assert n == 17
    assert type(got) is np.ndarray  # Dask merges chunk percentiles on the host
    np.testing.assert_allclose(got, np.percentile(host, q),
                               rtol=1e-6 if dtype == np.float32 else 1e-12)
    assert dispatch.percentile_lookup(npx.empty((0,)), q) == (None, 0)
    with pytest.raises(ValueError, match="linear"):
        dispatch.percentile_lookup(npx.asarray(host), q, method="lower")


def test_da_percentile_over_device_chunks(rng):
    # Dask's merge step iterates its q arrays (made like the chunks) on the host: tiny
    # implicit downloads in Dask's own code, so this runs without transfer_guard.
    host = rng.standard_normal(40)
    got = da.percentile(device_chunks(host, 40), [5, 50, 95]).compute(scheduler="sync")
    np.testing.assert_allclose(got, np.percentile(host, [5, 50, 95]), rtol=1e-12)
    merged = da.percentile(device_chunks(host, 10), [0, 50, 100]).compute(scheduler="sync")
    # Dask's merge is approximate: the oracle is the same merge over NumPy chunks.
    expected = da.percentile(da.from_array(host, chunks=10), [0, 50, 100]).compute()
    np.testing.assert_allclose(merged, expected, rtol=1e-12)


def test_to_numpy_dispatch_is_an_explicit_download(rng):
    host = rng.standard_normal((3, 2))
    with npx.transfer_guard("disallow"):
        got = dispatch.to_numpy_dispatch(npx.asarray(host).T)
    assert type(got) is np.ndarray
    np.testing.assert_array_equal(got, host.T)


@pytest.mark.parametrize("reduce", ["sum", "max", "min", "mean"])
def test_reductions_over_chunks(rng, reduce):
    host = rng.standard_normal((9, 4))
    got = compute(getattr(device_chunks(host, (4, 3)), reduce)(axis=0))
    np.testing.assert_allclose(got.to_host(), getattr(host, reduce)(axis=0), rtol=1e-12)


# -- the npuarray backend -------------------------------------------------------------------

def test_backend_entry_point_is_declared():
    project = tomllib.loads((pathlib.Path(__file__).parents[2] / "pyproject.toml").read_text())
    target = project["project"]["entry-points"]["dask.array.backends"]["npuarray"]
    module, name = target.split(":")
    assert getattr(__import__(module, fromlist=[name]), name) is npuarray.dask.NPUArrayBackendEntrypoint
    assert project["project"]["optional-dependencies"]["dask"] == ["dask[array,distributed]"]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.bool_,
                                   np.complex64])
@pytest.mark.parametrize("make, expected", [
    (lambda s, d: da.ones(s, chunks=2, dtype=d), lambda s, d: np.ones(s, d)),
    (lambda s, d: da.zeros(s, chunks=2, dtype=d), lambda s, d: np.zeros(s, d)),
    (lambda s, d: da.full(s, 1, chunks=2, dtype=d), lambda s, d: np.full(s, 1, d)),
])
def test_backend_creation_makes_npuarray_chunks(dtype, make, expected):
    with dask.config.set({"array.backend": "npuarray"}):
        x = make((5, 3), dtype)
    assert isinstance(x._meta, npx.NPUArray) and x.dtype == dtype
    got = compute(x)
    assert isinstance(got, npx.NPUArray)
    np.testing.assert_array_equal(got.to_host(), expected((5, 3), dtype))


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.bool_, np.complex128])
def test_backend_like_creation_and_triangles(rng, dtype):
    host = sample(rng, (5, 4), dtype)
    x = device_chunks(host, (2, 3))
    with dask.config.set({"array.backend": "npuarray"}):
        made = {"ones_like": da.ones_like(x), "zeros_like": da.zeros_like(x),
                "full_like": da.full_like(x, 1), "tril": da.tril(x, -1), "triu": da.triu(x)}
        empty = da.empty_like(x)
    expected = {"ones_like": np.ones_like(host), "zeros_like": np.zeros_like(host),
                "full_like": np.full_like(host, 1), "tril": np.tril(host, -1), "triu": np.triu(host)}
    for name, array in made.items():
        got = compute(array)
        assert isinstance(got, npx.NPUArray) and got.dtype == host.dtype, name
        np.testing.assert_array_equal(got.to_host(), expected[name], err_msg=name)
    assert compute(empty).shape == host.shape


def test_backend_fortran_order_raises_and_next_creation_works():
    with dask.config.set({"array.backend": "npuarray"}):
        x = da.ones((4, 4), chunks=2, order="F")
        with pytest.raises(ValueError, match="C-ordered"):
            compute(x)
        np.testing.assert_array_equal(compute(da.ones((2, 2), chunks=1)).to_host(), np.ones((2, 2)))


def test_backend_empty_full_default_dtypes_and_zero_d():
    with dask.config.set({"array.backend": "npuarray"}):
        empty = da.empty((4, 0), chunks=2)
        scalar = da.full((), 2.5)
        ints = da.full((3,), 7, chunks=2)
    assert isinstance(empty._meta, npx.NPUArray) and empty.dtype == np.float64
    assert compute(empty).shape == (4, 0)
    assert float(compute(scalar).to_host()) == 2.5
    assert ints.dtype == np.int64
    np.testing.assert_array_equal(compute(ints).to_host(), [7, 7, 7])


def test_to_backend_uploads_numpy_chunks(rng):
    host = rng.standard_normal((6, 4))
    x = da.from_array(host, chunks=3).to_backend("npuarray")
    assert isinstance(x._meta, npx.NPUArray)
    np.testing.assert_array_equal(compute(x * 2).to_host(), host * 2)
    assert x.to_backend("npuarray") is x


def test_unknown_backend_still_raises():
    with dask.config.set({"array.backend": "npuarray-typo"}):
        with pytest.raises(ValueError, match="No backend"):
            da.ones(3)
    with dask.config.set({"array.backend": "npuarray"}):
        assert isinstance(da.ones(3)._meta, npx.NPUArray)


@settings(max_examples=15, deadline=None)
@given(shape=st.lists(st.integers(0, 6), min_size=1, max_size=3),
       chunk=st.integers(1, 4))
def test_backend_shapes_and_chunks_hypothesis(shape, chunk):
    with dask.config.set({"array.backend": "npuarray"}):
        x = da.full(tuple(shape), 3.0, chunks=chunk)
    got = compute((x + 1).sum(axis=0))
    np.testing.assert_array_equal(got.to_host(), np.full(shape, 4.0).sum(axis=0))


# -- Dask operations on NPUArray chunks stay on the device --------------------------------------

_OPERATIONS = {
    "elementwise": lambda x, y: da.exp(x) * 2 + y,
    "sum_axis": lambda x, y: (x * y).sum(axis=0),
    "mean": lambda x, y: x.mean(),
    "std_axis": lambda x, y: y.std(axis=1),
    "var": lambda x, y: x.var(),
    "max_axis": lambda x, y: x.max(axis=1),
    "nansum": lambda x, y: da.nansum(x),
    "nanmean_axis": lambda x, y: da.nanmean(x, axis=0),
    "cumsum": lambda x, y: x.cumsum(axis=0),
    "matmul": lambda x, y: x @ y.T,
    "einsum": lambda x, y: da.einsum("ij,ij->j", x, y),
    "transpose": lambda x, y: x.T + 1,
    "slice": lambda x, y: x[::-2, 1:],
    "fancy_take": lambda x, y: x[[5, 0, 2]],
    "rechunk": lambda x, y: x.rechunk((2, 4)),
    "reshape": lambda x, y: x.reshape(24),
    "stack": lambda x, y: da.stack([x, y]),
    "concatenate": lambda x, y: da.concatenate([x, y], axis=1),
    "where": lambda x, y: da.where(x > 0, x, y),
    "tensordot": lambda x, y: da.tensordot(x, y, axes=([0], [0])),
    "argmax": lambda x, y: x.argmax(axis=0),  # Dask makes its dtype with asarray(like=chunk)
    "argmin_axis1": lambda x, y: y.argmin(axis=1),
    "arange_like": lambda x, y: da.arange(6, chunks=4, like=x) + x[:, 0],
    "ones_zeros_full_like": lambda x, y: da.ones_like(x) + da.zeros_like(y) + da.full_like(x, 2.5),
    "triu": lambda x, y: da.triu(x, 1),
    "topk": lambda x, y: x.topk(3, axis=1),
}


@pytest.mark.parametrize("k, axis", [(5, None), (-2, 0), (2, 1)])
def test_argtopk_uploads_dasks_host_index_chunks(rng, k, axis):
    # Dask's argtopk keeps the index chunks it pairs with the data on the host, so
    # take_along_axis receives one device and one host array: an implicit upload,
    # allowed here and refused under transfer_guard("disallow").
    a = rng.standard_normal((6, 4))
    x = device_chunks(a, (3, 2))
    x, host = (x.reshape(24), a.reshape(24)) if axis is None else (x, a)
    with npx.transfer_guard("allow"):
        got = x.argtopk(k, axis=axis or 0).compute(scheduler="sync")
    assert isinstance(got, npx.NPUArray)
    expected = da.from_array(host, chunks=3).argtopk(k, axis=axis or 0).compute()
    np.testing.assert_array_equal(got.to_host(), expected)
    with pytest.raises(npx.ImplicitTransferError):
        compute(x.argtopk(k, axis=axis or 0))


@pytest.mark.parametrize("operation", list(_OPERATIONS.values()), ids=list(_OPERATIONS))
def test_dask_operations_on_device_chunks(rng, operation):
    a, b = rng.standard_normal((6, 4)), rng.standard_normal((6, 4))
    x, y = device_chunks(a, (3, 2)), device_chunks(b, (2, 3))
    got = compute(operation(x, y))
    assert isinstance(got, npx.NPUArray)
    expected = operation(da.from_array(a, chunks=(3, 2)), da.from_array(b, chunks=(2, 3))).compute()
    np.testing.assert_allclose(got.to_host(), expected, rtol=1e-12, atol=1e-12)
