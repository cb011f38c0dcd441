"""npuarray.fft: the array API 2025.12 FFT extension on CANN's aclfft library.

Single-precision transforms run as aclfft plans (``aclfftExecC2C/R2C/C2R``,
cached by length, type, batch and device) on the current stream; double
precision and lengths aclfft refuses are composed on the device from aclnn
element-wise operators (Stockham stages, Bluestein's chirp transform) on the
same stream.
"""
from ._helpers import *  # noqa: F401,F403
from ._helpers import __all__ as _helpers_all
from ._multidim import *  # noqa: F401,F403  NumPy's fft2, ifft2, rfft2, irfft2
from ._multidim import __all__ as _multidim_all
from ._plan import FFTError, clear_plan_cache, plan_cache_info, set_plan_cache_size
from ._transforms import *  # noqa: F401,F403
from ._transforms import __all__ as _transforms_all

__all__ = [*_transforms_all, *_helpers_all, "FFTError", "plan_cache_info", "clear_plan_cache",
           "set_plan_cache_size", *_multidim_all]
