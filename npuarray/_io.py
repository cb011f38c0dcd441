"""NumPy's input and output chapter for NPUArrays: NumPy binary files
(``numpy.save``, ``load``, ``savez``, ``savez_compressed``), text files
(``savetxt``, ``loadtxt``, ``genfromtxt``), raw data (``fromfile``,
``frombuffer``, ``fromstring``), string formatting (``array2string``,
``array_repr``, ``array_str``, ``format_float_positional``,
``format_float_scientific``, ``base_repr``, ``binary_repr``) and NumPy's
printing options, as CuPy provides them.

Files and strings live on the host, so these functions do their work there and
say so: arrays to write are downloaded explicitly (``npuarray.asnumpy``, a
blocking copy on the current stream of the array's device), NumPy reads or
formats them, and arrays read are uploaded explicitly (``npuarray.asarray``,
to the current device on its current stream). Being explicit transfers, they
work under every ``transfer_guard`` setting. The printing options are NumPy's
own functions: NPUArray's ``repr`` and ``str`` format through NumPy and follow
them.
"""
from collections.abc import Mapping

import numpy as np

from ._operands import is_array
from ._core._transfer import asarray, asnumpy

__all__ = ["save", "load", "savez", "savez_compressed", "savetxt", "loadtxt", "genfromtxt",
           "fromfile", "frombuffer", "fromstring", "set_printoptions", "get_printoptions",
           "printoptions", "array2string", "array_repr", "array_str",
           "format_float_positional", "format_float_scientific", "base_repr", "binary_repr"]

set_printoptions, get_printoptions, printoptions = (np.set_printoptions, np.get_printoptions,
                                                    np.printoptions)


def _host(x):
    """``x`` on the host: NPUArrays downloaded (an explicit copy), anything
    else as it is (NumPy takes it)."""
    return asnumpy(x) if is_array(x) else x


def _device(result):
    """A NumPy result uploaded to the current device (explicitly); a tuple of
    them for a tuple. TypeError for dtypes npuarray has no device type for."""
    if isinstance(result, tuple):
        return tuple(_device(r) for r in result)
    if isinstance(result, np.ma.MaskedArray):
        raise TypeError("npuarray has no masked arrays: call numpy.genfromtxt for usemask=True")
    return asarray(result)


def save(file, arr, allow_pickle=True):
    """Write ``arr`` to a NumPy ``.npy`` file (``numpy.save``). ``arr`` (an
    NPUArray, or anything NumPy takes) is downloaded to the host first, then
    NumPy writes it; ``file``: a path (``.npy`` appended) or a binary file."""
    np.save(file, _host(arr), allow_pickle=allow_pickle)


def savez(file, *args, allow_pickle=True, **kwds):
    """Write several arrays to an uncompressed ``.npz`` archive
    (``numpy.savez``): positional ones as ``arr_0``, ``arr_1``, ..., keyword
    ones under their names. NPUArrays are downloaded to the host first."""
    np.savez(file, *map(_host, args), allow_pickle=allow_pickle,
             **{name: _host(a) for name, a in kwds.items()})


def savez_compressed(file, *args, allow_pickle=True, **kwds):
    """Write several arrays to a compressed ``.npz`` archive
    (``numpy.savez_compressed``), as :func:`savez`. NPUArrays are downloaded
    to the host first."""
    np.savez_compressed(file, *map(_host, args), allow_pickle=allow_pickle,
                        **{name: _host(a) for name, a in kwds.items()})


class NpzFile(Mapping):
    """The arrays of a ``.npz`` archive, each read and uploaded to the current
    device when accessed (``numpy.lib.npyio.NpzFile`` with NPUArray values, as
    CuPy's). ``files`` lists the names; use as a context manager or call
    :meth:`close` to release the file."""

    def __init__(self, npz):
        self.npz = npz

    @property
    def files(self):
        return self.npz.files

    def __getitem__(self, key):
        return asarray(self.npz[key])

    def __iter__(self):
        return iter(self.npz)

    def __len__(self):
        return len(self.npz)

    def __contains__(self, key):
        return key in self.npz

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    def close(self):
        self.npz.close()

    def __repr__(self):
        return f"npuarray.NpzFile(files={self.files!r})"


def load(file, mmap_mode=None, allow_pickle=False, fix_imports=True, encoding="ASCII", *,
         max_header_size=10000):
    """Read a ``.npy`` or ``.npz`` file, or a pickle (``numpy.load``), and
    upload the arrays to the current device.

    NumPy reads the file on the host with the same arguments (``allow_pickle``
    False by default: object arrays and pickles raise ValueError, as NumPy's);
    a ``.npy`` array is uploaded and returned as an NPUArray, a ``.npz``
    archive returned as an :class:`NpzFile` whose values are uploaded when
    read, and a pickled object other than an array returned as NumPy loads it.
    TypeError for arrays of dtypes npuarray has no device type for (object,
    strings, structured). ``mmap_mode`` maps the file for reading; the upload
    then reads it whole.
    """
    obj = np.load(file, mmap_mode=mmap_mode, allow_pickle=allow_pickle,
                  fix_imports=fix_imports, encoding=encoding, max_header_size=max_header_size)
    if isinstance(obj, np.lib.npyio.NpzFile):
        return NpzFile(obj)
    if isinstance(obj, np.ndarray):
        return asarray(np.asarray(obj))
    return obj


def savetxt(fname, X, fmt="%.18e", delimiter=" ", newline="\n", header="", footer="",
            comments="# ", encoding=None):
    """Write a 1-D or 2-D array to a text file (``numpy.savetxt``), with
    NumPy's arguments; ``X`` is downloaded to the host first and NumPy writes
    it (ValueError for other dimensions or a bad ``fmt``, as NumPy's)."""
    np.savetxt(fname, _host(X), fmt=fmt, delimiter=delimiter, newline=newline, header=header,
               footer=footer, comments=comments, encoding=encoding)


def loadtxt(fname, dtype=float, comments="#", delimiter=None, converters=None, skiprows=0,
            usecols=None, unpack=False, ndmin=0, encoding=None, max_rows=None, *,
            quotechar=None, like=None):
    """Read a text file of numbers (``numpy.loadtxt``) on the host with
    NumPy's arguments and upload the result to the current device: an
    NPUArray (its transpose for ``unpack=True``, which unpacks into columns
    as NumPy's does). ``dtype`` must be one npuarray supports (TypeError
    otherwise); ValueError for malformed text, as NumPy's. ``like`` is
    accepted for NumPy's signature; the result is an NPUArray regardless."""
    return _device(np.loadtxt(fname, dtype=dtype, comments=comments, delimiter=delimiter,
                              converters=converters, skiprows=skiprows, usecols=usecols,
                              unpack=unpack, ndmin=ndmin, encoding=encoding,
                              max_rows=max_rows, quotechar=quotechar))


def genfromtxt(fname, dtype=float, comments="#", delimiter=None, skip_header=0, skip_footer=0,
               converters=None, missing_values=None, filling_values=None, usecols=None,
               names=None, excludelist=None, deletechars=" !#$%&'()*+,-./:;<=>?@[\\]^{|}~",
               replace_space="_", autostrip=False, case_sensitive=True, defaultfmt="f%i",
               unpack=None, usemask=False, loose=True, invalid_raise=True, max_rows=None,
               encoding=None, *, ndmin=0, like=None):
    """Read a text file with missing values (``numpy.genfromtxt``) on the host
    with NumPy's arguments (missing entries become ``filling_values``, NaN by
    default for floats) and upload the result to the current device. Named
    fields (``names=``, structured ``dtype``) and ``usemask=True`` have no
    device type: TypeError. ``like`` is accepted for NumPy's signature."""
    return _device(np.genfromtxt(
        fname, dtype=dtype, comments=comments, delimiter=delimiter, skip_header=skip_header,
        skip_footer=skip_footer, converters=converters, missing_values=missing_values,
        filling_values=filling_values, usecols=usecols, names=names, excludelist=excludelist,
        deletechars=deletechars, replace_space=replace_space, autostrip=autostrip,
        case_sensitive=case_sensitive, defaultfmt=defaultfmt, unpack=unpack, usemask=usemask,
        loose=loose, invalid_raise=invalid_raise, max_rows=max_rows, encoding=encoding,
        ndmin=ndmin))


def fromfile(file, dtype=None, count=-1, sep="", offset=0, *, like=None):
    """Read raw binary (``sep=''``) or text data from a file
    (``numpy.fromfile``) on the host and upload it to the current device as a
    1-D NPUArray of ``dtype`` (one npuarray supports; TypeError otherwise).
    Write such files with ``numpy.ndarray.tofile`` of ``npuarray.asnumpy(x)``."""
    return _device(np.fromfile(file, dtype=dtype, count=count, sep=sep, offset=offset))


def frombuffer(buffer, dtype=None, count=-1, offset=0, *, like=None):
    """Interpret a host buffer (bytes, bytearray, memoryview, ...) as a 1-D
    array of ``dtype`` (``numpy.frombuffer``) on the host and upload it to the current
    device (a copy: the NPUArray does not share the buffer). ValueError when
    the buffer's size is not a multiple of the item size, as NumPy's."""
    return _device(np.frombuffer(buffer, dtype=dtype, count=count, offset=offset))


def fromstring(string, dtype=float, count=-1, *, sep="", like=None):
    """Parse numbers separated by ``sep`` from a string (``numpy.fromstring``)
    on the host and upload them to the current device as a 1-D NPUArray.
    ``sep`` must be given: NumPy 2 no longer reads binary strings (ValueError;
    use :func:`frombuffer`)."""
    return _device(np.fromstring(string, dtype=dtype, count=count, sep=sep))


def array2string(a, max_line_width=None, precision=None, suppress_small=None, separator=" ",
                 prefix="", *, formatter=None, threshold=None, edgeitems=None, sign=None,
                 floatmode=None, suffix="", legacy=None):
    """The values of ``a`` as a string (``numpy.array2string``, NumPy's
    arguments and printing options): ``a`` is downloaded to the host and
    NumPy formats it."""
    return np.array2string(_host(a), max_line_width=max_line_width, precision=precision,
                           suppress_small=suppress_small, separator=separator, prefix=prefix,
                           formatter=formatter, threshold=threshold, edgeitems=edgeitems,
                           sign=sign, floatmode=floatmode, suffix=suffix, legacy=legacy)


def array_repr(arr, max_line_width=None, precision=None, suppress_small=None):
    """``numpy.array_repr`` of ``arr`` downloaded to the host: the string
    ``array([...])`` NumPy gives (as CuPy's ``array_repr``); ``repr(x)`` of an
    NPUArray names NPUArray and its device instead."""
    return np.array_repr(_host(arr), max_line_width=max_line_width, precision=precision,
                         suppress_small=suppress_small)


def array_str(a, max_line_width=None, precision=None, suppress_small=None):
    """``numpy.array_str`` of ``a`` downloaded to the host: its values, as
    ``print`` shows a NumPy array."""
    return np.array_str(_host(a), max_line_width=max_line_width, precision=precision,
                        suppress_small=suppress_small)


def _host_scalar(x):
    """A 0-d NPUArray as its NumPy scalar (downloaded), else ``x``."""
    return asnumpy(x)[()] if is_array(x) and x.ndim == 0 else x


def format_float_positional(x, precision=None, unique=True, fractional=True, trim="k",
                            sign=False, pad_left=None, pad_right=None, min_digits=None):
    """A float in positional notation (``numpy.format_float_positional``);
    ``x``: a Python or NumPy float, or a 0-d NPUArray (downloaded). TypeError
    for other types, as NumPy's."""
    return np.format_float_positional(_host_scalar(x), precision=precision, unique=unique,
                                      fractional=fractional, trim=trim, sign=sign,
                                      pad_left=pad_left, pad_right=pad_right,
                                      min_digits=min_digits)


def format_float_scientific(x, precision=None, unique=True, trim="k", sign=False,
                            pad_left=None, exp_digits=None, min_digits=None):
    """A float in scientific notation (``numpy.format_float_scientific``);
    ``x``: a Python or NumPy float, or a 0-d NPUArray (downloaded)."""
    return np.format_float_scientific(_host_scalar(x), precision=precision, unique=unique,
                                      trim=trim, sign=sign, pad_left=pad_left,
                                      exp_digits=exp_digits, min_digits=min_digits)


def base_repr(number, base=2, padding=0):
    """The digits of an integer in ``base`` (2 to 36) (``numpy.base_repr``);
    ``number``: a Python or NumPy integer or a 0-d NPUArray (downloaded).
    ValueError for a base outside 2..36."""
    return np.base_repr(_host_scalar(number), base=base, padding=padding)


def binary_repr(num, width=None):
    """The binary digits of an integer, two's complement for negative ones
    when ``width`` is given (``numpy.binary_repr``); ``num``: a Python or
    NumPy integer or a 0-d NPUArray (downloaded)."""
    return np.binary_repr(_host_scalar(num), width=width)
