"""save/load, text files, raw data and string formatting (npuarray/_io.py)
against NumPy: files written from NPUArrays equal NumPy's, files read come back
as NPUArrays equal to NumPy's arrays."""
import io

import numpy as np
import pytest

import npuarray as npx
from _numpy_names_helpers import REAL_DTYPES, assert_matches, sample, up

ALL_DTYPES = REAL_DTYPES + ["float16", "complex64", "complex128"]


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_save_load_round_trip(tmp_path, rng, dtype):
    a = sample(rng, (3, 4), dtype)
    npx.save(tmp_path / "a", up(a))
    np.save(tmp_path / "b", a)
    assert (tmp_path / "a.npy").read_bytes() == (tmp_path / "b.npy").read_bytes()
    loaded = npx.load(tmp_path / "a.npy")
    assert_matches(loaded, a)


def test_save_views_and_file_objects(rng):
    a = rng.standard_normal((4, 6))
    buf = io.BytesIO()
    npx.save(buf, up(a).T[::2])
    buf.seek(0)
    assert_matches(npx.load(buf), a.T[::2])


def test_save_takes_host_data_too(tmp_path):
    npx.save(tmp_path / "h.npy", [1, 2, 3])
    assert_matches(npx.load(tmp_path / "h.npy"), np.array([1, 2, 3]))


def test_savez_and_compressed(tmp_path, rng):
    a, b = rng.standard_normal(5), rng.integers(0, 9, (2, 3))
    for name in ("savez", "savez_compressed"):
        path = tmp_path / f"{name}.npz"
        getattr(npx, name)(path, up(a), weights=up(b))
        with npx.load(path) as archive:
            assert sorted(archive.files) == ["arr_0", "weights"]
            assert "weights" in archive and len(archive) == 2
            assert_matches(archive["arr_0"], a)
            assert_matches(archive["weights"], b)
            assert sorted(archive) == ["arr_0", "weights"]
        with np.load(path) as host:
            np.testing.assert_array_equal(host["weights"], b)


def test_load_allow_pickle_as_numpy(tmp_path):
    path = tmp_path / "obj.npy"
    np.save(path, np.array([{"a": 1}], dtype=object), allow_pickle=True)
    with pytest.raises(ValueError):
        np.load(path)
    with pytest.raises(ValueError):
        npx.load(path)
    with pytest.raises(TypeError, match="object"):
        npx.load(path, allow_pickle=True)
    with pytest.raises(ValueError):
        npx.save(tmp_path / "o.npy", np.array([{}], dtype=object), allow_pickle=False)


def test_load_missing_file():
    with pytest.raises(FileNotFoundError):
        npx.load("/nonexistent/file.npy")


def test_load_mmap_mode(tmp_path, rng):
    a = rng.standard_normal(10)
    np.save(tmp_path / "m.npy", a)
    assert_matches(npx.load(tmp_path / "m.npy", mmap_mode="r"), a)


@pytest.mark.parametrize("fmt", ["%.18e", "%d", "%.3f", ["%.2f", "%10.4e", "%g"]])
def test_savetxt_matches_numpy(rng, fmt):
    a = rng.uniform(-100, 100, (4, 3))
    got, expected = io.StringIO(), io.StringIO()
    kwargs = dict(fmt=fmt, delimiter=",", header="h", footer="f", comments="// ")
    npx.savetxt(got, up(a), **kwargs)
    np.savetxt(expected, a, **kwargs)
    assert got.getvalue() == expected.getvalue()


def test_savetxt_complex_and_1d(rng):
    for a in (rng.standard_normal(5), rng.standard_normal(3) + 1j):
        got, expected = io.StringIO(), io.StringIO()
        npx.savetxt(got, up(a))
        np.savetxt(expected, a)
        assert got.getvalue() == expected.getvalue()
    with pytest.raises(ValueError):
        npx.savetxt(io.StringIO(), up(np.ones((2, 2, 2))))


TEXT = "# comment\n1,2,3\n4,5,6\n7,8,9\n"


@pytest.mark.parametrize("kwargs", [{}, {"dtype": np.int32}, {"usecols": (0, 2)},
                                    {"skiprows": 2}, {"unpack": True}, {"ndmin": 2},
                                    {"max_rows": 2, "comments": None, "skiprows": 1},
                                    {"dtype": "float32", "usecols": 1}])
def test_loadtxt_matches_numpy(kwargs):
    expected = np.loadtxt(io.StringIO(TEXT), delimiter=",", **kwargs)
    got = npx.loadtxt(io.StringIO(TEXT), delimiter=",", **kwargs)
    assert_matches(got, expected)


def test_loadtxt_unpacks_columns():
    a, b, c = npx.loadtxt(io.StringIO(TEXT), delimiter=",", unpack=True)
    assert_matches(b, np.array([2.0, 5.0, 8.0]))


def test_loadtxt_errors():
    with pytest.raises(ValueError):
        np.loadtxt(io.StringIO("1,x\n"), delimiter=",")
    with pytest.raises(ValueError):
        npx.loadtxt(io.StringIO("1,x\n"), delimiter=",")
    with pytest.raises(TypeError, match="does not support dtype"):
        npx.loadtxt(io.StringIO("a b\n"), dtype=str)


def test_genfromtxt_matches_numpy():
    text = "1,2,\n4,,6\n7,8,9\n"
    for kwargs in ({}, {"filling_values": -1}, {"skip_header": 1}, {"usecols": (0, 2)},
                   {"dtype": np.float32}, {"skip_footer": 1}, {"unpack": True}):
        expected = np.genfromtxt(io.StringIO(text), delimiter=",", **kwargs)
        assert_matches(npx.genfromtxt(io.StringIO(text), delimiter=",", **kwargs), expected)
    with pytest.raises(TypeError):
        npx.genfromtxt(io.StringIO(text), delimiter=",", usemask=True)
    with pytest.raises(TypeError):
        npx.genfromtxt(io.StringIO("a,b\n1,2\n"), delimiter=",", names=True)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_fromfile_and_frombuffer(tmp_path, rng, dtype):
    a = sample(rng, 12, dtype)
    path = tmp_path / "raw.bin"
    a.tofile(path)
    assert_matches(npx.fromfile(path, dtype=dtype), np.fromfile(path, dtype=dtype))
    assert_matches(npx.fromfile(path, dtype=dtype, count=5, offset=a.itemsize),
                   np.fromfile(path, dtype=dtype, count=5, offset=a.itemsize))
    data = a.tobytes()
    assert_matches(npx.frombuffer(data, dtype=dtype), np.frombuffer(data, dtype=dtype))
    assert_matches(npx.frombuffer(data, dtype=dtype, count=3, offset=a.itemsize),
                   np.frombuffer(data, dtype=dtype, count=3, offset=a.itemsize))


def test_fromfile_text_and_defaults(tmp_path):
    path = tmp_path / "t.txt"
    path.write_text("1.5 2.5 3.5")
    assert_matches(npx.fromfile(path, sep=" "), np.fromfile(path, sep=" "))
    assert_matches(npx.frombuffer(b"\x00" * 16), np.frombuffer(b"\x00" * 16))


def test_frombuffer_size_error():
    with pytest.raises(ValueError):
        np.frombuffer(b"abc", dtype=np.int16)
    with pytest.raises(ValueError):
        npx.frombuffer(b"abc", dtype=np.int16)


def test_fromstring():
    for text, kwargs in (("1,2,3", {"sep": ","}), ("1 2 3 4", {"sep": " ", "dtype": np.int64}),
                         ("1 2 3 4", {"sep": " ", "count": 2})):
        assert_matches(npx.fromstring(text, **kwargs), np.fromstring(text, **kwargs))
    with pytest.raises(ValueError):
        np.fromstring("1 2")
    with pytest.raises(ValueError, match="frombuffer"):
        npx.fromstring("1 2")


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_array_formatting_matches_numpy(rng, dtype):
    a = sample(rng, (3, 4), dtype)
    x = up(a)
    assert npx.array2string(x) == np.array2string(a)
    assert npx.array_repr(x) == np.array_repr(a)
    assert npx.array_str(x) == np.array_str(a)
    assert npx.array2string(x, separator=", ", prefix="x(", suffix=")", max_line_width=30) == \
        np.array2string(a, separator=", ", prefix="x(", suffix=")", max_line_width=30)


def test_formatting_keywords(rng):
    a = rng.standard_normal(300) * 1e-5
    x = up(a)
    for kwargs in ({"precision": 3}, {"suppress_small": True}, {"threshold": 10, "edgeitems": 2},
                   {"sign": "+"}, {"floatmode": "fixed"},
                   {"formatter": {"float_kind": lambda v: f"{v:.1e}"}}):
        assert npx.array2string(x, **kwargs) == np.array2string(a, **kwargs)
    assert npx.array_repr(x, precision=2, max_line_width=40) == \
        np.array_repr(a, precision=2, max_line_width=40)
    assert npx.array_str(x, precision=2, suppress_small=True) == \
        np.array_str(a, precision=2, suppress_small=True)


def test_printoptions_are_numpys_and_apply_to_npuarrays(rng):
    assert npx.set_printoptions is np.set_printoptions
    assert npx.get_printoptions is np.get_printoptions
    assert npx.printoptions is np.printoptions
    a = rng.standard_normal(5)
    with npx.printoptions(precision=2):
        assert npx.get_printoptions()["precision"] == 2
        assert npx.array_str(up(a)) == np.array_str(a)
        assert np.array_str(a) in str(up(a))


@pytest.mark.parametrize("value", [0.1, 1e-20, 123456.789, -2.5, np.float32(0.1), np.float16(3.3)])
def test_format_float(value):
    for kwargs in ({}, {"precision": 3}, {"unique": False, "precision": 5}, {"sign": True},
                   {"trim": "-"}, {"min_digits": 4}):
        assert npx.format_float_positional(value, **kwargs) == \
            np.format_float_positional(value, **kwargs)
        assert npx.format_float_scientific(value, **kwargs) == \
            np.format_float_scientific(value, **kwargs)
    device = up(np.asarray(value))
    assert npx.format_float_positional(device) == np.format_float_positional(value)
    assert npx.format_float_scientific(device, exp_digits=3) == \
        np.format_float_scientific(value, exp_digits=3)


def test_format_float_rejects_non_numbers():
    for name in ("format_float_positional", "format_float_scientific"):
        with pytest.raises(TypeError):
            getattr(np, name)("3")
        with pytest.raises(TypeError):
            getattr(npx, name)("3")
    assert npx.format_float_positional(up(np.asarray(3))) == np.format_float_positional(3)


@pytest.mark.parametrize("number,base,padding", [(10, 2, 0), (255, 16, 0), (-35, 36, 2),
                                                  (0, 5, 3), (np.int8(7), 3, 1)])
def test_base_repr(number, base, padding):
    assert npx.base_repr(number, base, padding) == np.base_repr(number, base, padding)
    assert npx.base_repr(up(np.asarray(number)), base) == np.base_repr(number, base)


def test_base_repr_bad_base():
    for base in (1, 37):
        with pytest.raises(ValueError):
            np.base_repr(5, base)
        with pytest.raises(ValueError):
            npx.base_repr(5, base)


@pytest.mark.parametrize("num,width", [(3, None), (-3, None), (-3, 8), (255, 8), (0, 4),
                                       (np.uint8(200), None)])
def test_binary_repr(num, width):
    assert npx.binary_repr(num, width) == np.binary_repr(num, width)
    assert npx.binary_repr(up(np.asarray(num)), width=width) == np.binary_repr(num, width)


def test_explicit_transfers_work_under_disallow(tmp_path, rng):
    a = rng.standard_normal((2, 3))
    x = up(a)
    with npx.transfer_guard("disallow"):
        npx.save(tmp_path / "g.npy", x)
        assert_matches(npx.load(tmp_path / "g.npy"), a)
        assert npx.array_str(x) == np.array_str(a)


def test_on_a_non_default_stream(tmp_path, rng):
    a = rng.standard_normal((3, 5))
    with npx.Stream() as stream:
        x = up(a) * 2
        npx.save(tmp_path / "s.npy", x)
        loaded = npx.load(tmp_path / "s.npy") + 1
        text = npx.array_str(x)
        stream.synchronize()
    assert_matches(loaded, a * 2 + 1)
    assert text == np.array_str(a * 2)


def test_numpy_functions_dispatch_here(rng):
    a = rng.standard_normal((2, 3))
    got, expected = io.StringIO(), io.StringIO()
    np.savetxt(got, up(a), fmt="%.6f")
    np.savetxt(expected, a, fmt="%.6f")
    assert got.getvalue() == expected.getvalue()
    assert np.array2string(up(a), precision=3) == np.array2string(a, precision=3)
    assert np.array_repr(up(a)) == np.array_repr(a)
