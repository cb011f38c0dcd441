"""Inspection API (__array_namespace_info__), finfo/iinfo objects, and the
tuple results of meshgrid and broadcast_arrays (array API 2025.12)."""
import ml_dtypes
import numpy as np
import pytest

import npuarray as npx

STANDARD = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
            "uint64", "float32", "float64", "complex64", "complex128")

# The standard's kinds (inspection.rst, dtypes()) and the dtypes each must list.
KINDS = {
    "bool": {"bool"},
    "signed integer": {"int8", "int16", "int32", "int64"},
    "unsigned integer": {"uint8", "uint16", "uint32", "uint64"},
    "integral": {"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"},
    "real floating": {"float32", "float64"},
    "complex floating": {"complex64", "complex128"},
    "numeric": set(STANDARD) - {"bool"},
}


@pytest.fixture
def info():
    return npx.__array_namespace_info__()


def test_capabilities(info):
    caps = info.capabilities()
    assert caps == {"boolean indexing": True, "data-dependent shapes": True,
                    "max dimensions": 8}


def test_max_dimensions_is_the_real_limit(info):
    limit = info.capabilities()["max dimensions"]
    x = npx.ones((1,) * limit)
    assert x.shape == (1,) * limit
    with pytest.raises(npx.AclError, match="at most 8"):
        npx.ones((1,) * (limit + 1))
    assert float(npx.sum(npx.ones((2, 3)))) == 6.0  # the next operation still works


def test_devices_is_a_tuple_of_creation_devices(info):
    devices = info.devices()
    assert isinstance(devices, tuple)
    assert devices == tuple(npx.Device(i) for i in range(npx.device_count()))
    assert info.default_device() in devices
    last = devices[-1]
    x = npx.zeros(3, device=last)
    assert x.device == last


def test_default_device_follows_the_current_device(info):
    assert info.default_device() == npx.get_device()
    with npx.Device(1):
        assert info.default_device() == npx.Device(1)
    assert info.default_device() == npx.Device(0)


@pytest.mark.parametrize("device", [None, 0, npx.Device(1)])
def test_default_dtypes(info, device):
    assert info.default_dtypes(device=device) == {
        "real floating": np.float64, "complex floating": np.complex128,
        "integral": np.int64, "indexing": np.int64}


def test_default_dtypes_match_creation_defaults(info):
    defaults = info.default_dtypes()
    assert npx.zeros(2).dtype == defaults["real floating"]
    assert npx.arange(3).dtype == defaults["integral"]
    assert npx.full(2, 1j).dtype == defaults["complex floating"]


def test_dtypes_lists_only_array_api_dtypes(info):
    dtypes = info.dtypes()
    assert list(dtypes) == list(STANDARD)
    for name, dtype in dtypes.items():
        assert dtype == np.dtype(name) and dtype == getattr(npx, name)
    assert "float16" not in dtypes and "bfloat16" not in dtypes


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_dtypes_by_kind(info, kind):
    assert set(info.dtypes(kind=kind)) == KINDS[kind]


def test_dtypes_by_tuple_of_kinds(info, rng):
    for _ in range(20):
        chosen = tuple(rng.choice(sorted(KINDS), size=rng.integers(1, 4), replace=False))
        assert set(info.dtypes(kind=chosen)) == set().union(*(KINDS[k] for k in chosen))


def test_dtypes_per_device(info):
    for device in info.devices():
        assert info.dtypes(device=device) == info.dtypes()


def test_bad_inspection_arguments(info):
    with pytest.raises(ValueError, match="unknown dtype kind"):
        info.dtypes(kind="floating")
    with pytest.raises(npx.AclError):
        info.dtypes(device=npx.device_count())
    with pytest.raises(npx.AclError):
        info.default_dtypes(device=-1)
    with pytest.raises(TypeError):
        info.dtypes(device="cpu")
    assert list(info.dtypes(kind="bool")) == ["bool"]  # still works afterwards


# -- finfo / iinfo ---------------------------------------------------------------------------

@pytest.mark.parametrize("name, real", [("float16", "float16"), ("float32", "float32"),
                                        ("float64", "float64"), ("complex64", "float32"),
                                        ("complex128", "float64"), ("bfloat16", "bfloat16")])
def test_finfo_fields_are_python_numbers(name, real):
    out = npx.finfo(getattr(npx, name))
    expected = ml_dtypes.finfo(real) if real == "bfloat16" else np.finfo(real)
    assert type(out.bits) is int and out.bits == expected.bits
    for field in ("eps", "max", "min", "smallest_normal"):
        value = getattr(out, field)
        assert type(value) is float
        assert value == float(getattr(expected, field))
    assert out.tiny == out.smallest_normal
    assert out.dtype == np.dtype(real) and isinstance(out.dtype, np.dtype)


def test_finfo_of_an_array_and_its_dtype(rng):
    x = npx.asarray(rng.standard_normal(3).astype(np.float32))
    assert npx.finfo(x).eps == npx.finfo(x.dtype).eps == float(np.finfo(np.float32).eps)


@pytest.mark.parametrize("name", ["int8", "int16", "int32", "int64", "uint8", "uint16",
                                  "uint32", "uint64"])
def test_iinfo_fields_are_python_ints(name):
    out = npx.iinfo(getattr(npx, name))
    expected = np.iinfo(name)
    for field in ("bits", "max", "min"):
        assert type(getattr(out, field)) is int
        assert getattr(out, field) == int(getattr(expected, field))
    assert out.dtype == np.dtype(name) and isinstance(out.dtype, np.dtype)
    assert npx.iinfo(npx.zeros(2, dtype=name)).max == out.max


def test_finfo_iinfo_bad_dtypes():
    with pytest.raises(TypeError):
        npx.finfo(npx.int32)
    with pytest.raises(TypeError):
        npx.finfo(npx.bool)
    with pytest.raises(TypeError):
        npx.iinfo(npx.float32)
    with pytest.raises(TypeError):
        npx.iinfo("float128")
    assert npx.iinfo(npx.int8).max == 127


# -- tuple results ---------------------------------------------------------------------------

@pytest.mark.parametrize("indexing", ["xy", "ij"])
@pytest.mark.parametrize("count", [0, 1, 2, 3])
def test_meshgrid_returns_a_tuple(rng, indexing, count):
    hosts = [rng.standard_normal(n) for n in (3, 4, 2)[:count]]
    got = npx.meshgrid(*(npx.asarray(h) for h in hosts), indexing=indexing)
    expected = np.meshgrid(*hosts, indexing=indexing)
    assert isinstance(got, tuple) and len(got) == len(expected)
    for g, e in zip(got, expected):
        np.testing.assert_array_equal(g.to_host(), e)


def test_meshgrid_keeps_each_dtype_and_reads_strided_views(rng):
    a = rng.integers(-9, 9, 8).astype(np.int32)
    b = rng.standard_normal(3).astype(np.float32)
    got = npx.meshgrid(npx.asarray(a)[::-2], npx.asarray(b))
    expected = np.meshgrid(a[::-2], b)
    for g, e in zip(got, expected):
        assert g.dtype == e.dtype
        np.testing.assert_array_equal(g.to_host(), e)


def test_meshgrid_bad_input():
    (flat,) = npx.meshgrid(npx.ones((2, 2)))  # N-D inputs are flattened, as NumPy's
    assert flat.shape == np.meshgrid(np.ones((2, 2)))[0].shape
    with pytest.raises(ValueError):
        npx.meshgrid(npx.ones(2), indexing="xx")
    assert len(npx.meshgrid(npx.ones(2))) == 1


def test_broadcast_arrays_returns_a_tuple(rng):
    hosts = [rng.standard_normal(s) for s in ((3, 1), (4,), ())]
    got = npx.broadcast_arrays(*(npx.asarray(h) for h in hosts))
    assert isinstance(got, tuple)
    for g, e in zip(got, np.broadcast_arrays(*hosts)):
        assert g.shape == e.shape
        np.testing.assert_array_equal(g.to_host(), e)
    assert npx.broadcast_arrays() == ()


def test_broadcast_arrays_bad_input():
    with pytest.raises(ValueError):
        npx.broadcast_arrays(npx.ones(3), npx.ones(4))
    with pytest.raises(TypeError):
        npx.broadcast_arrays(npx.ones(3), np.ones(3))
    assert npx.broadcast_arrays(npx.ones(3))[0].shape == (3,)
