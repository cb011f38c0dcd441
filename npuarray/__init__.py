"""npuarray: NumPy-compatible device arrays for Huawei Ascend NPUs.

Runs on the vendor's CANN toolkit when an NPU is present and on npusim, the
embedded CPU implementation of the same AscendCL ABI, everywhere else.
"""
import sys

__array_api_version__ = "2025.12"  # the array API standard this namespace follows

from ._acl import (AclError, CaptureError, InvalidValueError, NotSupportedError,
                   OutOfMemoryError, backend)
from .runtime import *  # noqa: F401,F403  Device, Stream, Event, pinned memory, DeviceMemory
from .runtime import __all__ as _runtime_all

__all__ = ["AclError", "CaptureError", "InvalidValueError", "NotSupportedError",
           "OutOfMemoryError", "backend", *_runtime_all]

# The array object, dtypes and transfers come from the core; every other name from the
# namespace module of its NumPy reference chapter, which re-exports the core's array API
# functions of that chapter beside NumPy's own names.
from ._core._array import NPUArray
from ._core._data_type import *  # noqa: F401,F403  dtypes, result_type, can_cast, finfo, iinfo, isdtype
from ._core._data_type import __all__ as _dtypes_all
from ._core._transfer import ImplicitTransferError, asnumpy, transfer_guard
from .runtime._memory_pool import *  # noqa: F401,F403  MemoryPool, get_default_memory_pool, using_pool
from .runtime._memory_pool import __all__ as _memory_pool_all
__all__ += ["NPUArray", *_dtypes_all, "ImplicitTransferError", "asnumpy", "transfer_guard",
            *_memory_pool_all]
from ._creation import *  # noqa: F401,F403  asarray, empty, zeros, arange, linspace, eye, diag, ...
from ._creation import __all__ as _creation_all
from ._manipulation import *  # noqa: F401,F403  reshape, permute_dims, concatenate, stack, split, ...
from ._manipulation import __all__ as _manipulation_all
from ._math import *  # noqa: F401,F403  add, sin, exp, sum, cumsum, maximum, clip, convolve, ...
from ._math import __all__ as _math_all
from ._logic import *  # noqa: F401,F403  all, any, isnan, equal, logical_and, isclose, ...
from ._logic import __all__ as _logic_all
from ._bitwise import *  # noqa: F401,F403  bitwise_and, bitwise_left_shift, ...
from ._bitwise import __all__ as _bitwise_all
from ._sorting import *  # noqa: F401,F403  sort, argsort, argmax, nonzero, where, searchsorted, ...
from ._sorting import __all__ as _sorting_all
from ._statistics import *  # noqa: F401,F403  max, mean, std, median, percentile, histogram, cov, ...
from ._statistics import __all__ as _statistics_all
from ._set import *  # noqa: F401,F403  unique, unique_values, isin, ...
from ._set import __all__ as _set_all
from ._indexing import *  # noqa: F401,F403  take, take_along_axis, put, choose, diagonal, ...
from ._indexing import __all__ as _indexing_all
from ._linear_algebra import *  # noqa: F401,F403  matmul, tensordot, vecdot, dot, einsum, ...
from ._linear_algebra import __all__ as _linear_algebra_all
from ._inspection import *  # noqa: F401,F403  __array_namespace_info__
from ._inspection import __all__ as _inspection_all
from ._constants import *  # noqa: F401,F403  e, inf, nan, newaxis, pi
from ._constants import __all__ as _constants_all
from ._ufunc import *  # noqa: F401,F403  ufunc; the element-wise functions as ufunc objects
__all__ += [*_creation_all, *_manipulation_all, *_math_all, *_logic_all, *_bitwise_all,
            *_sorting_all, *_statistics_all, *_set_all, *_indexing_all, *_linear_algebra_all,
            *_inspection_all, *_constants_all, "ufunc"]
from ._io import *  # noqa: F401,F403  save, load, savetxt, loadtxt, printing options (host I/O)
from ._io import __all__ as _io_all
from ._polynomial import *  # noqa: F401,F403  poly, polyval, polyfit, roots, poly1d, ...
from ._polynomial import __all__ as _polynomial_all
from ._window import *  # noqa: F401,F403  bartlett, blackman, hamming, hanning, kaiser, i0
from ._window import __all__ as _window_all
from ._functional import *  # noqa: F401,F403  vectorize, apply_along_axis, piecewise
from ._functional import __all__ as _functional_all
from ._dtype_routines import *  # noqa: F401,F403  dtype, promote_types, issubdtype, scalar types
from ._dtype_routines import __all__ as _dtype_routines_all
from ._floating_point_errors import *  # noqa: F401,F403  errstate, seterr, geterr (NumPy's)
from ._floating_point_errors import __all__ as _floating_point_errors_all
from ._memory_ranges import *  # noqa: F401,F403  shares_memory, may_share_memory (metadata only)
from ._memory_ranges import __all__ as _memory_ranges_all
__all__ += [*_io_all, *_polynomial_all, *_window_all, *_functional_all,
            *_dtype_routines_all, *_floating_point_errors_all, *_memory_ranges_all]
from . import testing  # noqa: E402,F401  npuarray.testing: assert_allclose, assert_array_equal
from . import fft, linalg  # noqa: E402  the array API extensions
from . import random  # noqa: E402  numpy.random on CANN's random operators
from .profiler import profile  # noqa: E402,F401  npuarray.profile(): timeline of launches, copies, events
from ._device_pointer import *  # noqa: F401,F403  from_device_pointer, UnownedMemory (pyACL interop)
from ._device_pointer import __all__ as _device_pointer_all
__all__ += _device_pointer_all
from . import _numpy_dispatch  # noqa: E402  NumPy's protocols on NPUArrays
from ._core import _namespace  # noqa: E402
_namespace.install(sys.modules[__name__], _numpy_dispatch.array_ufunc,
                   _numpy_dispatch.array_function)
from . import _dask_hook  # noqa: E402  Dask's dispatches for NPUArray, once dask.array is loaded
_dask_hook.install()
