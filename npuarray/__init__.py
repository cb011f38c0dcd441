"""npuarray: NumPy-compatible device arrays for Huawei Ascend NPUs.

Runs on the vendor's CANN toolkit when an NPU is present and on npusim, the
embedded CPU implementation of the same AscendCL ABI, everywhere else.
"""
__array_api_version__ = "2025.12"  # the array API standard this namespace follows

from ._acl import (AclError, CaptureError, InvalidValueError, NotSupportedError,
                   OutOfMemoryError, backend)
from .runtime import *  # noqa: F401,F403  Device, Stream, Event, pinned memory, DeviceMemory
from .runtime import __all__ as _runtime_all

__all__ = ["AclError", "CaptureError", "InvalidValueError", "NotSupportedError",
           "OutOfMemoryError", "backend", *_runtime_all]

# Array layer (NPUArray, creation, transfers, memory pool) and operators are
# added below by their modules, each with its own __all__.
from ._data_type import *  # noqa: F401,F403  dtypes, result_type, can_cast, finfo, iinfo, isdtype
from ._data_type import __all__ as _dtypes_all
from ._array import NPUArray  # noqa: E402
from ._transfer import *  # noqa: F401,F403  asarray, asnumpy, transfer_guard, ImplicitTransferError
from ._transfer import __all__ as _transfer_all
from ._creation import *  # noqa: F401,F403  empty, zeros, ones, full, *_like, arange, eye, linspace
from ._creation import __all__ as _creation_all
from ._manipulation import *  # noqa: F401,F403  reshape, permute_dims, expand_dims, squeeze, ...
from ._manipulation import __all__ as _manipulation_all
from .runtime._memory_pool import *  # noqa: F401,F403  MemoryPool, get_default_memory_pool, using_pool
from .runtime._memory_pool import __all__ as _memory_pool_all
__all__ += ["NPUArray", *_dtypes_all, *_transfer_all, *_creation_all, *_manipulation_all,
            *_memory_pool_all]
from ._elementwise import *  # noqa: F401,F403  add, ..., sin, bitwise_and, isnan (aclnn element-wise)
from ._elementwise import __all__ as _elementwise_all
from ._statistical import *  # noqa: F401,F403  sum, mean, max, min, prod, std, var, cumulative_sum
from ._statistical import __all__ as _statistical_all
from ._searching import *  # noqa: F401,F403  argmax, argmin, nonzero, count_nonzero, searchsorted
from ._searching import __all__ as _searching_all
from ._sorting import *  # noqa: F401,F403  sort, argsort
from ._sorting import __all__ as _sorting_all
from ._set import *  # noqa: F401,F403  unique_all, unique_counts, unique_inverse, unique_values, isin
from ._set import __all__ as _set_all
from ._utility import *  # noqa: F401,F403  all, any, diff
from ._utility import __all__ as _utility_all
from ._indexing import *  # noqa: F401,F403  take, take_along_axis
from ._indexing import __all__ as _indexing_all
from ._linear_algebra import *  # noqa: F401,F403  matmul, matrix_transpose, tensordot, vecdot
from ._linear_algebra import __all__ as _linear_algebra_all
from ._inspection import *  # noqa: F401,F403  __array_namespace_info__
from ._inspection import __all__ as _inspection_all
from ._constants import *  # noqa: F401,F403  e, inf, nan, newaxis, pi
from ._constants import __all__ as _constants_all
__all__ += [*_elementwise_all, *_statistical_all, *_searching_all, *_sorting_all, *_set_all,
            *_utility_all, *_indexing_all, *_linear_algebra_all, *_inspection_all,
            *_constants_all]
from ._numpy_names import *  # noqa: F401,F403  NumPy's names (concatenate, median, einsum, ...)
from ._numpy_names import __all__ as _numpy_names_all
__all__ += _numpy_names_all
from . import testing  # noqa: E402,F401  npuarray.testing: assert_allclose, assert_array_equal
from . import fft, linalg  # noqa: E402  the array API extensions
from . import random  # noqa: E402  numpy.random on CANN's random operators
from .profiler import profile  # noqa: E402,F401  npuarray.profile(): timeline of launches, copies, events
from ._device_pointer import *  # noqa: F401,F403  from_device_pointer, UnownedMemory (pyACL interop)
from ._device_pointer import __all__ as _device_pointer_all
__all__ += _device_pointer_all
from . import _dask_hook  # noqa: E402  Dask's dispatches for NPUArray, once dask.array is loaded
_dask_hook.install()
