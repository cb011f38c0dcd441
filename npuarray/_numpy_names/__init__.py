"""NumPy's names on top of the array API namespace (issue 12), as CuPy
provides them: same functions, NumPy's signatures and defaults, array API type
promotion. One module per NumPy area; everything runs on the device.
"""
from ._creation import *  # noqa: F401,F403  array, copy, ascontiguousarray, logspace, ...
from ._creation import __all__ as _creation_all
from ._indexing import *  # noqa: F401,F403  argwhere, put, choose, unique, interp, ...
from ._indexing import __all__ as _indexing_all
from ._linalg import *  # noqa: F401,F403  dot, vdot, inner, outer, kron, einsum, trace, diag
from ._linalg import __all__ as _linalg_all
from ._manipulation import *  # noqa: F401,F403  concatenate, transpose, hstack, split, pad
from ._manipulation import __all__ as _manipulation_all
from ._math import *  # noqa: F401,F403  arcsin, absolute, power, around, isclose, convolve
from ._math import __all__ as _math_all
from ._statistics import *  # noqa: F401,F403  amax, cumsum, nansum, median, histogram, cov
from ._statistics import __all__ as _statistics_all

__all__ = [*_creation_all, *_indexing_all, *_linalg_all, *_manipulation_all, *_math_all,
           *_statistics_all]
