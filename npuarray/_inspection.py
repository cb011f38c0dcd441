"""Inspection API of the array API standard (2025.12 "Inspection" chapter):
``__array_namespace_info__()`` and its ``capabilities``, ``default_device``,
``default_dtypes``, ``devices`` and ``dtypes``.

Answers come from the host (the runtime's device list and the dtype tables of
``npuarray._core._data_type``); nothing runs on a device.
"""
import numpy as np

from . import runtime
from ._core._data_type import default_complex, default_float, default_index, default_int, isdtype
from .runtime._device import as_device_id

__all__ = ["__array_namespace_info__"]

# The standard's data types, in its order: float16 and bfloat16, which npuarray also
# supports, are not array API dtypes and must not be listed by dtypes().
_ARRAY_API_DTYPES = tuple(np.dtype(name) for name in (
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float32", "float64", "complex64", "complex128"))

# An aclTensor has at most 8 dimensions: CANN's operator documents state "at most 8
# dimensions" and npusim's aclCreateTensor refuses more (161002).
MAX_DIMENSIONS = 8


def _check_device(device):
    """InvalidValueError for an id that is not a visible device, TypeError for
    anything that is not a Device, an id or None."""
    if device is not None:
        as_device_id(device)


class _NamespaceInfo:
    """The object returned by ``npuarray.__array_namespace_info__()``."""

    __slots__ = ()

    def capabilities(self):
        """``{"boolean indexing": True, "data-dependent shapes": True, "max dimensions": 8}``.

        Boolean masks index and assign on the device (aclnnMaskedSelect, whose
        output length is read back), and the standard's other data-dependent
        functions (``nonzero``, ``unique_*``) exist; an aclTensor holds at most
        8 dimensions in CANN and npusim."""
        return {"boolean indexing": True, "data-dependent shapes": True,
                "max dimensions": MAX_DIMENSIONS}

    def default_device(self):
        """The calling thread's current ``npuarray.Device`` (``with Device(i):``
        changes it), where creation functions put arrays by default."""
        return runtime.get_device()

    def devices(self):
        """Tuple of every visible ``npuarray.Device`` (``ASCEND_RT_VISIBLE_DEVICES``
        is honoured), each valid as ``device=`` of the creation functions."""
        return tuple(runtime.Device(i) for i in range(runtime.device_count()))

    def default_dtypes(self, *, device=None):
        """The default dtypes, the same on every device, as NumPy 2's: float64 for
        "real floating", complex128 for "complex floating", int64 for "integral"
        and "indexing". ``device``: a Device, an id or None (the current
        device); InvalidValueError for an id that is not visible, TypeError for
        anything else."""
        _check_device(device)
        return {"real floating": default_float, "complex floating": default_complex,
                "integral": default_int, "indexing": default_index}

    def dtypes(self, *, device=None, kind=None):
        """``{name: dtype}`` of the array API dtypes npuarray supports (all of
        them, on every device), optionally only those of ``kind``: "bool",
        "signed integer", "unsigned integer", "integral", "real floating",
        "complex floating", "numeric", or a tuple of those (their union).
        float16 and bfloat16 are supported too but are not array API dtypes,
        so they are not listed. ``device`` as in ``default_dtypes``. ValueError
        for an unknown kind."""
        _check_device(device)
        return {dtype.name: dtype for dtype in _ARRAY_API_DTYPES
                if kind is None or isdtype(dtype, kind)}


_INFO = _NamespaceInfo()


def __array_namespace_info__():
    """The array API inspection namespace of npuarray (array API
    ``__array_namespace_info__``, new in 2023.12)."""
    return _INFO
