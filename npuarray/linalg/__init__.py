"""npuarray.linalg: the array API 2025.12 linear-algebra extension on the device.

Factorisations run as CANN's aclnn operators (aclnnLinalgCholesky, aclnnLinalgQr,
aclnnSvd, aclnnInverse, aclnnSlogdet; npusim computes them with LAPACK) and ops-blas's
LU, float64 ones refined from float32 factors (``_refine``, ``_cholesky64``); eigh / eigvalsh come from
aclnnSvd (``_eigh``); the rest is composed of device operators. Functions CANN has no
device path for (eig, eigvals; complex cholesky; listed in ``npuarray.show_config()``)
compute on the host in stream order and raise ImplicitTransferError under
``transfer_guard("disallow")``.
"""
from .._core._linear_algebra import matmul, tensordot, vecdot
from .._core._manipulation import matrix_transpose
from ._common import LinAlgError
from ._compose import *  # noqa: F401,F403
from ._compose import __all__ as _compose_all
from ._factor import *  # noqa: F401,F403
from ._factor import __all__ as _factor_all
# NumPy's linalg names beyond the array API: norm, cond, multi_dot, tensorinv, tensorsolve,
# lstsq
from ._lstsq import lstsq
from ._norms import *  # noqa: F401,F403
from ._norms import __all__ as _norms_all
from ._products import *  # noqa: F401,F403
from ._products import __all__ as _products_all

__all__ = ["LinAlgError", "matmul", "matrix_transpose", "tensordot", "vecdot", *_factor_all,
           *_compose_all, "lstsq", *_norms_all, *_products_all]
