"""Linear algebra at the top level (NumPy's chapter; ``numpy.linalg`` is
``npuarray.linalg``): ``matmul``, ``tensordot``, ``vecdot``, ``matrix_transpose``,
``dot``, ``vdot``, ``inner``, ``outer``, ``kron``, ``einsum``, ``trace``, ``matvec``,
``vecmat``: views, and
contractions reduced to aclnnMatmul on the current stream of the operands' device.
"""
import builtins

import numpy as np

from ._core import _elementwise as ew
from ._core import _manipulation
from ._core import _statistical as st
from ._core._data_type import result_type
from ._core._linear_algebra import tensordot, vecdot
from ._core._manipulation import matrix_transpose
from ._indexing import diagonal
from ._operands import as_device, into
from ._core import _linear_algebra
from ._core._data_type import normalize_dtype
from ._operands import ordered, out_array, store

__all__ = ["matmul", "tensordot", "vecdot", "matrix_transpose", "dot", "vdot", "inner",
           "outer", "kron", "trace", "einsum"]


def _same_dtype(a, b, name):
    a, b = as_device(a, name), as_device(b, name)
    dtype = result_type(a.dtype, b.dtype)
    return (_manipulation.astype(a, dtype, copy=False),
            _manipulation.astype(b, dtype, copy=False))


def dot(a, b, out=None):
    """Dot product (``numpy.dot``): a product with a 0-d operand, ``matmul`` for
    1-D and 2-D operands, else a sum over the last axis of ``a`` and the
    second-to-last of ``b`` (``tensordot``; aclnnMatmul). ValueError when the
    contracted lengths differ."""
    a, b = _same_dtype(a, b, "dot")
    if a.ndim == 0 or b.ndim == 0:
        result = ew.multiply(a, b)
    elif a.ndim <= 2 and b.ndim <= 2:
        if a.shape[-1] != b.shape[0]:
            raise ValueError(f"shapes {a.shape} and {b.shape} not aligned: "
                             f"{a.shape[-1]} (dim {a.ndim - 1}) != {b.shape[0]} (dim 0)")
        result = matmul(a, b)
    else:
        result = tensordot(a, b, axes=((a.ndim - 1,), (builtins.max(b.ndim - 2, 0),)))
    return into(result, out)


def vdot(a, b):
    """Dot product of the flattened arrays, the first conjugated (``numpy.vdot``);
    a 0-d array. ValueError for different sizes."""
    a, b = _same_dtype(a, b, "vdot")
    if a.size != b.size:
        raise ValueError("cannot reshape array: vdot needs arrays of the same size")
    return matmul(ew.conj(_manipulation.reshape(a, (-1,))), _manipulation.reshape(b, (-1,)))


def inner(a, b):
    """Sum product over the last axes (``numpy.inner``); a product for 0-d operands."""
    a, b = _same_dtype(a, b, "inner")
    if a.ndim == 0 or b.ndim == 0:
        return ew.multiply(a, b)
    if a.shape[-1] != b.shape[-1]:
        raise ValueError(f"shapes {a.shape} and {b.shape} not aligned in their last axes")
    return tensordot(a, b, axes=((a.ndim - 1,), (b.ndim - 1,)))


def outer(a, b, out=None):
    """Outer product of the flattened arrays: (a.size, b.size) (``numpy.outer``)."""
    a, b = _same_dtype(a, b, "outer")
    return into(ew.multiply(_manipulation.reshape(a, (-1, 1)),
                            _manipulation.reshape(b, (1, -1))), out)


def kron(a, b):
    """Kronecker product: blocks ``a[i, j] * b`` (``numpy.kron``), as a broadcast
    product of interleaved reshapes."""
    a, b = _same_dtype(a, b, "kron")
    ndim = builtins.max(a.ndim, b.ndim)
    a_shape = (1,) * (ndim - a.ndim) + a.shape
    b_shape = (1,) * (ndim - b.ndim) + b.shape
    a = _manipulation.reshape(a, tuple(v for n in a_shape for v in (n, 1)))
    b = _manipulation.reshape(b, tuple(v for n in b_shape for v in (1, n)))
    product = ew.multiply(a, b)
    return _manipulation.reshape(product, tuple(m * n for m, n in zip(a_shape, b_shape)))


def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    """Sum along the diagonal (``numpy.trace``; aclnnReduceSum of the
    ``diagonal`` view)."""
    return into(st.sum(diagonal(a, offset, axis1, axis2), axis=-1, dtype=dtype), out)


# -- einsum --------------------------------------------------------------------------------

def _parse_einsum(subscripts, operands):
    """(input label strings, output label string), ellipses replaced by capital
    letters, implicit output made explicit (sorted labels seen once)."""
    if not isinstance(subscripts, str):
        raise TypeError("einsum: subscripts must be a string (the sublist form is not "
                        "supported by npuarray)")
    subscripts = subscripts.replace(" ", "")
    inputs, arrow, output = subscripts.partition("->")
    terms = inputs.split(",")
    if len(terms) != len(operands):
        raise ValueError("more operands provided to einstein sum function than specified "
                         "in the subscripts string" if len(operands) > len(terms) else
                         "fewer operands provided to einstein sum function than specified "
                         "in the subscripts string")
    broadcast = 0
    for term, x in zip(terms, operands):
        if "..." in term:
            broadcast = builtins.max(broadcast, x.ndim - len(term.replace("...", "")))
    spare = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[:broadcast]
    labels = []
    for term, x in zip(terms, operands):
        if "..." in term:
            count = x.ndim - len(term.replace("...", ""))
            term = term.replace("...", spare[broadcast - count:] if count else "")
        if not builtins.all(c.isalpha() and c.islower() for c in term
                            if c not in spare):
            raise ValueError(f"einsum: invalid subscript in {subscripts!r}")
        if len(term) != x.ndim:
            raise ValueError(f"operand has more dimensions than subscripts given in "
                             f"einstein sum, but no '...' ellipsis provided to broadcast "
                             f"the extra dimensions." if x.ndim > len(term) else
                             f"einstein sum subscripts string contains too many subscripts "
                             f"for operand")
        labels.append(term)
    if arrow:
        output = output.replace("...", spare)
        for c in output:
            if not builtins.any(c in term for term in labels):
                raise ValueError(f"einstein sum subscripts string included output subscript "
                                 f"'{c}' which never appeared in an input")
    else:
        counts = {}
        for term in labels:
            for c in term:
                counts[c] = counts.get(c, 0) + 1
        output = spare + "".join(sorted(c for c, n in counts.items()
                                        if n == 1 and c not in spare))
    return labels, output


def _take_diagonals(x, labels):
    """``x`` with repeated labels reduced to one axis (their diagonal view)."""
    while len(set(labels)) != len(labels):
        for i, c in enumerate(labels):
            j = labels.find(c, i + 1)
            if j >= 0:
                if x.shape[i] != x.shape[j]:
                    raise ValueError(f"dimensions in operand for collapsing index '{c}' "
                                     f"don't match ({x.shape[i]} != {x.shape[j]})")
                x = diagonal(x, 0, i, j)
                labels = "".join(l for k, l in enumerate(labels) if k not in (i, j)) + c
                break
    return x, labels


def _sum_labels(x, labels, drop):
    axes = tuple(i for i, c in enumerate(labels) if c in drop)
    if not axes:
        return x, labels
    return st.sum(x, axis=axes), "".join(c for c in labels if c not in drop)


def _contract_pair(a, la, b, lb, keep):
    """``a`` (labels ``la``) times ``b`` (``lb``) summed over the shared labels not
    in ``keep``, as one batched aclnnMatmul: (batch, free a, free b)."""
    a, la = _sum_labels(a, la, {c for c in la if c not in lb and c not in keep})
    b, lb = _sum_labels(b, lb, {c for c in lb if c not in la and c not in keep})
    batch = [c for c in la if c in lb and c in keep]
    summed = [c for c in la if c in lb and c not in keep]
    free_a = [c for c in la if c not in lb]
    free_b = [c for c in lb if c not in la]
    size = {}
    for x, labels in ((a, la), (b, lb)):
        for c, n in zip(labels, x.shape):
            if size.setdefault(c, n) != n:
                if 1 in (size[c], n):
                    size[c] = builtins.max(size[c], n)
                else:
                    raise ValueError(f"operands could not be broadcast together: label "
                                     f"'{c}' has lengths {size[c]} and {n}")

    def arranged(x, labels, order, shape):
        x = _manipulation.permute_dims(x, tuple(labels.index(c) for c in order))
        x = _manipulation.broadcast_to(x, tuple(size[c] for c in order))
        return _manipulation.reshape(x, shape)

    def count(group):
        n = 1
        for c in group:
            n *= size[c]
        return n

    nb, nm, nk, nn = count(batch), count(free_a), count(summed), count(free_b)
    left = arranged(a, la, batch + free_a + summed, (nb, nm, nk))
    right = arranged(b, lb, batch + summed + free_b, (nb, nk, nn))
    product = matmul(left, right)
    labels = batch + free_a + free_b
    return _manipulation.reshape(product, tuple(size[c] for c in labels)), "".join(labels)


def einsum(subscripts, *operands, out=None, dtype=None, order="K", casting="safe",
           optimize=False):
    """Einstein summation (``numpy.einsum``, string subscripts with ``->`` and
    ``...``): repeated labels of one operand take its diagonal (a view),
    labels absent from the rest are summed (aclnnReduceSum), and operands are
    contracted pairwise from the left as batched matrix products
    (aclnnMatmul). ``dtype`` casts the operands (checked by ``casting``).
    ValueError for malformed subscripts or mismatched lengths."""
    if not operands:
        raise ValueError("No input operands")
    arrays = [as_device(x, "einsum") for x in operands]
    compute = result_type(*[x.dtype for x in arrays]) if dtype is None else np.dtype(dtype)
    for x in arrays:
        if dtype is not None and not np.can_cast(x.dtype, compute, casting=casting):
            raise TypeError(f"einsum: cannot cast {x.dtype} to {compute} with casting "
                            f"{casting!r}")
    arrays = [_manipulation.astype(x, compute, copy=False) for x in arrays]
    terms, output = _parse_einsum(subscripts, arrays)
    result, labels = _take_diagonals(arrays[0], terms[0])
    for index in range(1, len(arrays)):
        other, other_labels = _take_diagonals(arrays[index], terms[index])
        keep = set(output).union(*terms[index + 1:])
        result, labels = _contract_pair(result, labels, other, other_labels, keep)
    result, labels = _sum_labels(result, labels, set(labels) - set(output))
    result = _manipulation.permute_dims(result, tuple(labels.index(c) for c in output))
    return into(_manipulation.copy_array(result) if len(arrays) == 1 else result, out)


# -- Matrix-vector products (NumPy 2.2) and einsum's contraction plan ------------------------

__all__ += ["matvec", "vecmat", "einsum_path"]


def _products(a, b):
    """``a @ b`` (aclnnMatmul); for bool operands the logical "or of ands" NumPy
    gives, as the int32 product compared with 0."""
    if a.dtype != np.bool_:
        return matmul(a, b)
    counts = matmul(_manipulation.astype(a, np.int32), _manipulation.astype(b, np.int32))
    return ew.not_equal(counts, 0)


def _check_core(name, signature, a, a_ndim, b, b_ndim, a_n, b_n):
    """NumPy's gufunc checks, with its messages: each operand has its core axes
    (``a_ndim``, ``b_ndim``) and the contracted lengths ``a_n``, ``b_n`` agree."""
    for index, (x, needed) in enumerate(((a, a_ndim), (b, b_ndim))):
        if x.ndim < needed:
            raise ValueError(f"{name}: Input operand {index} does not have enough dimensions "
                             f"(has {x.ndim}, gufunc core with signature {signature} requires "
                             f"{needed})")
    if a_n != b_n:
        raise ValueError(f"{name}: Input operand 1 has a mismatch in its core dimension 0, "
                         f"with gufunc signature {signature} (size {b_n[0]} is different "
                         f"from {a_n[0]})")


def matvec(x1, x2, /, out=None):
    """Matrix-vector products ``x1 @ x2`` of the stacks of matrices (..., m, n)
    and vectors (..., n), broadcast over the leading axes: (..., m)
    (``numpy.matvec``; aclnnMatmul of ``x2`` as a column). The promoted dtype
    (bool: whether any product is true);
    ValueError for missing core axes or mismatched n."""
    a, b = _same_dtype(x1, x2, "matvec")
    _check_core("matvec", "(m,n),(n)->(m)", a, 2, b, 1, a.shape[-1:], b.shape[-1:])
    return into(_products(a, _manipulation.expand_dims(b, axis=-1))[..., 0], out)


def vecmat(x1, x2, /, out=None):
    """Vector-matrix products ``conj(x1) @ x2`` of the stacks of vectors (..., n)
    and matrices (..., n, m), broadcast over the leading axes: (..., m)
    (``numpy.vecmat``; aclnnMatmul of the conjugated ``x1`` as a row). The
    promoted dtype; ValueError for missing core axes or mismatched n."""
    a, b = _same_dtype(x1, x2, "vecmat")
    _check_core("vecmat", "(n),(n,m)->(m)", a, 1, b, 2, a.shape[-1:], b.shape[-2:-1])
    if a.dtype.kind == "c":
        a = ew.conj(a)
    return into(_products(_manipulation.expand_dims(a, axis=-2), b)[..., 0, :], out)


def einsum_path(subscripts, *operands, optimize="greedy", einsum_call=False):
    """NumPy's contraction order for ``einsum(subscripts, *operands)``
    (``numpy.einsum_path``): the plan depends only on the operands' shapes,
    so it is computed by NumPy on the host from zero-stride placeholders of
    those shapes and dtypes — no data moves. Returns (path list, report)."""
    placeholders = [np.lib.stride_tricks.as_strided(np.zeros(1, x.dtype), x.shape,
                                                    (0,) * x.ndim, writeable=False)
                    if hasattr(x, "shape") and hasattr(x, "dtype") else x for x in operands]
    return np.einsum_path(subscripts, *placeholders, optimize=optimize,
                          einsum_call=einsum_call)


# -- NumPy's signature and the standard's, in one function (NumPy 2's): the call without
# NumPy's extra keywords is the array API function's own ------------------------------

@_linear_algebra.matmul_in_c
def matmul(x1, x2, /, out=None, *, dtype=None, casting="same_kind", order="K", subok=True,
           **unknown):
    """Matrix product (``numpy.matmul``, array API ``matmul``): aclnnMatmul /
    aclnnBatchMatMul. ``dtype`` the operands' (and result's) dtype, cast as ``casting``
    allows; ``out`` an NPUArray of the result's shape. TypeError for the gufunc's
    ``axes`` / ``axis`` keywords."""
    if unknown:
        raise TypeError(f"matmul: the arguments {sorted(unknown)} are not supported by npuarray")
    a, b = as_device(x1, "matmul"), as_device(x2, "matmul")
    if dtype is not None:
        dtype = normalize_dtype(dtype)
        for operand in (a, b):
            if not np.can_cast(operand.dtype, dtype, casting=casting):
                raise TypeError(f"Cannot cast ufunc 'matmul' input from {operand.dtype!r} to "
                                f"{dtype!r} with casting rule {casting!r}")
        a, b = (_manipulation.astype(v, dtype, copy=False) for v in (a, b))
    result = _linear_algebra.matmul(a, b)
    out = out_array(out)
    if out is None:
        return ordered(result, order, [a, b])
    return store("matmul", result, out, True, casting)
