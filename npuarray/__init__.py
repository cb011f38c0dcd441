"""npuarray: NumPy-compatible device arrays for Huawei Ascend NPUs.

Runs on the vendor's CANN toolkit when an NPU is present and on npusim, the
embedded CPU implementation of the same AscendCL ABI, everywhere else.
"""
from ._acl import (AclError, CaptureError, InvalidValueError, NotSupportedError,
                   OutOfMemoryError, backend)
from .runtime import *  # noqa: F401,F403  Device, Stream, Event, pinned memory, DeviceMemory
from .runtime import __all__ as _runtime_all

__all__ = ["AclError", "CaptureError", "InvalidValueError", "NotSupportedError",
           "OutOfMemoryError", "backend", *_runtime_all]

# Array layer (NPUArray, creation, transfers, memory pool) and operators are
# added below by their modules, each with its own __all__.
from ._dtypes import *  # noqa: F401,F403  dtypes, result_type, can_cast, finfo, iinfo, isdtype
from ._dtypes import __all__ as _dtypes_all
from ._array import NPUArray  # noqa: E402
from ._transfer import *  # noqa: F401,F403  asarray, asnumpy, transfer_guard, ImplicitTransferError
from ._transfer import __all__ as _transfer_all
from ._creation import *  # noqa: F401,F403  empty, zeros, ones, full, *_like, arange, eye, linspace
from ._creation import __all__ as _creation_all
from ._manipulation import *  # noqa: F401,F403  reshape, permute_dims, expand_dims, squeeze, ...
from ._manipulation import __all__ as _manipulation_all
from ._memory_pool import *  # noqa: F401,F403  MemoryPool, get_default_memory_pool, using_pool
from ._memory_pool import __all__ as _memory_pool_all
__all__ += ["NPUArray", *_dtypes_all, *_transfer_all, *_creation_all, *_manipulation_all,
            *_memory_pool_all]
from ._elementwise import *  # noqa: F401,F403  add, subtract, ..., where (aclnn element-wise)
from ._elementwise import __all__ as _elementwise_all
from ._statistical import *  # noqa: F401,F403  sum, mean, max, min (aclnn reductions)
from ._statistical import __all__ as _statistical_all
from ._searching import *  # noqa: F401,F403  argmax, argmin
from ._searching import __all__ as _searching_all
from ._linalg_funcs import *  # noqa: F401,F403  matmul
from ._linalg_funcs import __all__ as _linalg_funcs_all
__all__ += [*_elementwise_all, *_statistical_all, *_searching_all, *_linalg_funcs_all]
