"""NumPy's power-series polynomial routines (``numpy.poly``, ``polyval``,
``polyfit``, ``roots``, ``polyadd``, ``polysub``, ``polymul``, ``polydiv``,
``polyder``, ``polyint`` and the ``poly1d`` class), as CuPy provides them.

Coefficients are NPUArrays, highest power first, and the arithmetic runs on the
device on the current stream (aclnnMul, aclnnAdd, aclnnSub, aclnnCat, and the
convolution of ``npuarray.convolve``; ``polyfit`` solves its least-squares
problem with aclnnSvd and aclnnMatmul). Where NumPy's result has a shape that
depends on the values (leading zeros trimmed, the remainder of ``polydiv``, the
rank of ``polyfit``), the few values deciding it are copied to the host.
``roots`` and ``poly`` of a matrix take eigenvalues with
``npuarray.linalg.eigvals``, which computes on the host (CANN has no general
eigensolver).
"""
import numbers
import warnings

import numpy as np

from . import linalg
from ._core._creation import arange, eye, ones, zeros
from ._core._data_type import is_floating
from ._dtype_routines import mintypecode
from ._core._elementwise import (abs as _abs, add, conj, divide, equal, greater, imag, multiply,
                           negative, real, sqrt, subtract)
from ._core._elementwise import where as where_
from ._core._indexing import take
from ._core._linear_algebra import matmul
from ._core._manipulation import astype, concat, permute_dims, reshape
from ._operands import as_device, is_array
from ._creation import copy as _copy
from ._math import convolve
from ._core._searching import nonzero
from ._core._sorting import argsort
from ._core._statistical import sum as _sum
from ._core._transfer import asarray, asnumpy
from ._core._utility import all as _all

__all__ = ["poly", "polyval", "polyfit", "roots", "polyadd", "polysub", "polymul", "polydiv",
           "polyder", "polyint", "poly1d"]


def _coefficients(p, name):
    """``p`` (NPUArray, poly1d or scalar) as a 1-D NPUArray."""
    if isinstance(p, poly1d):
        return p.coeffs
    p = as_device(p, name)
    return reshape(p, (1,)) if p.ndim == 0 else p


def _inexact(x):
    """``x + 0.0`` as NumPy writes it: integers and bool become float64."""
    return x if is_floating(x.dtype) or x.dtype.kind == "c" else astype(x, np.float64)


def _read(x):
    """The value of a 0-d device array on the host (an explicit copy)."""
    return asnumpy(x)[()]


def _trim_leading_zeros(c):
    """``c`` without its leading zeros (NumPy's ``trim_zeros(c, 'f')``); the
    position of the first non-zero is read on the host."""
    (where,) = nonzero(c)
    if where.shape[0] == 0:
        return c[:0]
    return c[int(_read(where[0])):]


def poly(seq_of_zeros):
    """The coefficients of the monic polynomial with the given roots
    (``numpy.poly``).

    ``seq_of_zeros``: a 1-D NPUArray of roots, or a square 2-D NPUArray whose
    eigenvalues are the roots (``npuarray.linalg.eigvals``, on the host).
    Roots compute in float32, float64, complex64 or complex128 (NumPy's
    ``mintypecode``; integers in float64). Returns a 1-D NPUArray of
    ``len + 1`` coefficients (1.0, a Python float,
    for no roots, as NumPy); complex roots that pair into conjugates give real
    coefficients (a host read of one flag decides the dtype). ValueError for
    other shapes. Products by each ``(x - root)`` run on the device (aclnnMul,
    aclnnSub, aclnnCat).
    """
    zeros_ = _coefficients(seq_of_zeros, "poly")
    shape = zeros_.shape
    if len(shape) == 2 and shape[0] == shape[1] and shape[0] != 0:
        zeros_ = linalg.eigvals(zeros_)
    elif len(shape) == 1:
        zeros_ = astype(zeros_, np.dtype(mintypecode(zeros_.dtype.char)), copy=False)
    else:
        raise ValueError("input must be 1d or non-empty square 2d array.")
    if zeros_.shape[0] == 0:
        return 1.0
    a = ones((1,), dtype=zeros_.dtype, device=zeros_.device)
    for k in range(zeros_.shape[0]):
        pad = zeros((1,), dtype=a.dtype, device=a.device)
        a = subtract(concat([a, pad]), multiply(concat([pad, a]), zeros_[k]))
    if a.dtype.kind == "c" and _read(_all(equal(_sort_complex(zeros_),
                                                 _sort_complex(conj(zeros_))))):
        a = _copy(real(a))
    return a


def _sort_complex(z):
    """``z`` sorted by real part, then imaginary part (NumPy's order for
    complex numbers), by two stable sorts on the device."""
    z = take(z, argsort(imag(z), stable=True))
    return take(z, argsort(real(z), stable=True))


def polyval(p, x):
    """The polynomial ``p`` (coefficients, highest power first, or a poly1d)
    at ``x`` (``numpy.polyval``), by Horner's scheme on the device (aclnnMul,
    aclnnAdd per coefficient, on the current stream).

    ``x``: an NPUArray or scalar (a 0-d result), or a poly1d (the composition,
    a poly1d). The dtype is NumPy's: the promotion of ``p``'s and ``x``'s.
    """
    p = _coefficients(p, "polyval")
    if isinstance(x, poly1d):
        y = poly1d(zeros((1,), dtype=p.dtype, device=p.device))
        for k in range(p.shape[0]):
            y = y * x + p[k]
        return y
    x = as_device(x, "polyval")
    y = zeros(x.shape, dtype=x.dtype, device=x.device)
    for k in range(p.shape[0]):
        y = add(multiply(y, x), p[k])
    return y


def _pad_front(c, length):
    """``c`` with zeros in front up to ``length`` coefficients."""
    missing = length - c.shape[0]
    if missing <= 0:
        return c
    return concat([zeros((missing,), dtype=c.dtype, device=c.device), c])


def _sum_or_difference(a1, a2, combine, name):
    truepoly = isinstance(a1, poly1d) or isinstance(a2, poly1d)
    a1, a2 = _coefficients(a1, name), _coefficients(a2, name)
    length = max(a1.shape[0], a2.shape[0])
    value = combine(_pad_front(a1, length), _pad_front(a2, length))
    return poly1d(value) if truepoly else value


def polyadd(a1, a2):
    """The sum of two polynomials (``numpy.polyadd``): coefficient arrays
    (NPUArrays or scalars, highest power first) aligned at the constant term
    and added on the device (aclnnCat, aclnnAdd); a poly1d if either is one."""
    return _sum_or_difference(a1, a2, add, "polyadd")


def polysub(a1, a2):
    """The difference ``a1 - a2`` of two polynomials (``numpy.polysub``), as
    :func:`polyadd` (aclnnSub)."""
    return _sum_or_difference(a1, a2, subtract, "polysub")


def polymul(a1, a2):
    """The product of two polynomials (``numpy.polymul``): the convolution of
    their coefficients (leading zeros trimmed first, as NumPy's poly1d does)
    on the device; a poly1d if either input is one."""
    truepoly = isinstance(a1, poly1d) or isinstance(a2, poly1d)
    a1, a2 = poly1d(_coefficients(a1, "polymul")), poly1d(_coefficients(a2, "polymul"))
    value = convolve(a1.coeffs, a2.coeffs)
    return poly1d(value) if truepoly else value


def polydiv(u, v):
    """Quotient and remainder of ``u / v`` (``numpy.polydiv``), both float
    (or complex) NPUArrays, or poly1d if either input is one.

    Long division runs on the device (one aclnnMul/aclnnSub per quotient
    term); the remainder's leading terms that are ``allclose`` to 0
    (rtol=1e-14) are dropped, each test reading one value on the host, as
    NumPy's loop does. Division by a zero leading coefficient gives inf/nan,
    as NumPy's.
    """
    truepoly = isinstance(u, poly1d) or isinstance(v, poly1d)
    u = _inexact(_coefficients(u, "polydiv"))
    v = _inexact(_coefficients(v, "polydiv"))
    dtype = np.result_type(u.dtype, v.dtype)
    m, n = u.shape[0] - 1, v.shape[0] - 1
    scale = divide(1.0, astype(v[0], dtype))
    q = zeros((max(m - n + 1, 1),), dtype=dtype, device=u.device)
    r = astype(u, dtype)
    for k in range(m - n + 1):
        d = multiply(scale, r[k])
        q[k] = d
        r[k:k + n + 1] = subtract(r[k:k + n + 1], multiply(d, v))
    while r.shape[0] > 1 and _read(_close_to_zero(r[0])):
        r = r[1:]
    return (poly1d(q), poly1d(r)) if truepoly else (q, r)


def _close_to_zero(value):
    """NumPy's ``allclose(value, 0, rtol=1e-14)``: ``|value| <= 1e-8``."""
    return _all(_abs(value) <= 1e-8)


def polyder(p, m=1):
    """The ``m``-th derivative of a polynomial (``numpy.polyder``):
    coefficients times their powers on the device (aclnnArange, aclnnMul);
    a poly1d for a poly1d. ValueError for ``m < 0``."""
    m = int(m)
    if m < 0:
        raise ValueError("Order of derivative must be positive (see polyint)")
    truepoly = isinstance(p, poly1d)
    p = _coefficients(p, "polyder")
    for _ in range(m):
        n = p.shape[0] - 1
        p = multiply(p[:-1], arange(n, 0, -1, dtype=np.int64, device=p.device))
    return poly1d(p) if truepoly else p


def polyint(p, m=1, k=None):
    """The ``m``-th antiderivative of a polynomial (``numpy.polyint``):
    coefficients divided by their new powers on the device (aclnnArange,
    aclnnDiv, aclnnCat), the integration constants ``k`` (a scalar, or a
    sequence or NPUArray of ``m`` values, the first for the first integration;
    default 0) appended. A poly1d for a poly1d. ValueError for ``m < 0`` or a
    ``k`` of the wrong length."""
    m = int(m)
    if m < 0:
        raise ValueError("Order of integral must be positive (see polyder)")
    constants = _constants(k, m)
    truepoly = isinstance(p, poly1d)
    p = _coefficients(p, "polyint")
    for j in range(m):
        quotient = divide(p, arange(p.shape[0], 0, -1, dtype=np.int64, device=p.device))
        constant = reshape(astype(constants[j], quotient.dtype), (1,))
        p = concat([quotient, constant])
    return poly1d(p) if truepoly else p


def _constants(k, m):
    """The ``m`` integration constants of polyint as 0-d NPUArrays or floats."""
    if k is None:
        k = [0.0] * m
    elif isinstance(k, numbers.Number) or (is_array(k) and k.ndim == 0):
        k = [k]
    k = [as_device(c, "polyint") for c in (list(k) if not is_array(k) else k)]
    if len(k) == 1 and m > 1:
        k = k * m
    if len(k) < m:
        raise ValueError("k must be a scalar or a rank-1 array of length 1 or >m.")
    return k


def roots(p):
    """The roots of the polynomial with coefficients ``p`` (``numpy.roots``):
    the eigenvalues of its companion matrix.

    ``p``: a 1-D NPUArray (ValueError otherwise), highest power first. Leading
    and trailing zeros are found on the host (their count decides the shape);
    the companion matrix is built on the device and its eigenvalues taken by
    ``npuarray.linalg.eigvals`` (on the host: CANN has no general
    eigensolver). The roots are float64 when all are real, else complex128,
    as NumPy's; empty (float64) for a constant polynomial.
    """
    p = _coefficients(p, "roots")
    if p.ndim != 1:
        raise ValueError("Input must be a rank-1 array.")
    (where,) = nonzero(p)
    if where.shape[0] == 0:
        return zeros((0,), dtype=np.float64, device=p.device)
    first, last = (int(i) for i in asnumpy(concat([where[:1], where[-1:]])))
    trailing = p.shape[0] - last - 1
    p = _inexact(p[first:last + 1])
    n = p.shape[0]
    found = zeros((0,), dtype=np.float64, device=p.device)
    if n > 1:
        companion = zeros((n - 1, n - 1), dtype=p.dtype, device=p.device)
        if n > 2:
            companion[1:, :-1] = eye(n - 2, dtype=p.dtype, device=p.device)
        companion[0, :] = divide(-p[1:], p[0])
        found = linalg.eigvals(companion)
        if found.dtype.kind == "c" and p.dtype.kind != "c" \
                and _read(_all(equal(imag(found), 0.0))):
            found = _copy(real(found))
    if trailing:
        found = concat([found, zeros((trailing,), dtype=found.dtype, device=p.device)])
    return found


def _vander(x, order):
    """The columns ``x**(order-1), ..., x, 1`` (NumPy's ``vander(x, order)``)."""
    powers = arange(order - 1, -1, -1, dtype=np.int64, device=x.device)
    return reshape(x, (-1, 1)) ** powers


def _lstsq(a, b, rcond):
    """Least squares ``a @ c ~ b`` by the SVD (LAPACK's gelsd, NumPy's
    ``lstsq``): singular values below ``rcond * max`` are dropped. Returns
    ``c``, the squared residual norms (empty unless full rank with more rows
    than columns), the rank (read on the host) and the singular values."""
    u, s, vh = linalg.svd(a, full_matrices=False)
    kept = greater(s, multiply(s[0], rcond))
    inverse = where_(kept, divide(1.0, where_(kept, s, 1.0)), 0.0)
    ub = matmul(conj(_transpose(u)), b if b.ndim == 2 else reshape(b, (-1, 1)))
    c = matmul(_transpose(conj(vh)), multiply(reshape(inverse, (-1, 1)), ub))
    rank = int(_read(_sum(astype(kept, np.int64))))
    m, n = a.shape
    if rank == n and m > n:
        residual = subtract(matmul(a, c), b if b.ndim == 2 else reshape(b, (-1, 1)))
        residuals = _sum(real(multiply(residual, conj(residual))), axis=0)
    else:
        residuals = zeros((0,), dtype=s.dtype, device=a.device)
    return (c if b.ndim == 2 else reshape(c, (-1,))), residuals, rank, s


def _transpose(x):
    return permute_dims(x, (1, 0))


def polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
    """Least-squares polynomial fit of degree ``deg`` (``numpy.polyfit``).

    ``x``: 1-D NPUArray of sample points; ``y``: 1-D or 2-D (one fit per
    column) with ``len(x)`` rows; ``w``: optional 1-D weights. Integer inputs
    compute in float64. Returns the coefficients (highest power first; shape
    ``(deg + 1,)`` or ``(deg + 1, k)``); with ``full=True`` also the residual
    sums of squares, the rank, the singular values and ``rcond``; with
    ``cov=True`` (or ``'unscaled'``) also the covariance matrix. As NumPy's,
    the Vandermonde columns are scaled to unit norm and solved by the SVD
    (aclnnSvd, aclnnMatmul on the device); the rank is read on the host and a
    ``numpy.exceptions.RankWarning`` issued when it is short. Raises
    ValueError for ``deg < 0`` and TypeError for bad shapes, as NumPy does.
    """
    order = int(deg) + 1
    x = _inexact(as_device(x, "polyfit"))
    y = _inexact(as_device(y, "polyfit"))
    if deg < 0:
        raise ValueError("expected deg >= 0")
    if x.ndim != 1:
        raise TypeError("expected 1D vector for x")
    if x.size == 0:
        raise TypeError("expected non-empty vector for x")
    if y.ndim < 1 or y.ndim > 2:
        raise TypeError("expected 1D or 2D array for y")
    if x.shape[0] != y.shape[0]:
        raise TypeError("expected x and y to have same length")
    if rcond is None:
        rcond = x.shape[0] * np.finfo(x.dtype).eps
    lhs, rhs = _vander(x, order), y
    if w is not None:
        w = _inexact(as_device(w, "polyfit"))
        if w.ndim != 1:
            raise TypeError("expected a 1-d array for weights")
        if w.shape[0] != y.shape[0]:
            raise TypeError("expected w and y to have the same length")
        lhs = multiply(lhs, reshape(w, (-1, 1)))
        rhs = multiply(rhs, reshape(w, (-1, 1)) if rhs.ndim == 2 else w)
    scale = sqrt(_sum(multiply(lhs, lhs), axis=0))
    lhs = divide(lhs, scale)
    c, residuals, rank, s = _lstsq(lhs, rhs, rcond)
    c = divide(c, reshape(scale, (-1, 1)) if c.ndim == 2 else scale)
    if rank != order and not full:
        warnings.warn("Polyfit may be poorly conditioned", np.exceptions.RankWarning,
                      stacklevel=2)
    if full:
        return c, residuals, rank, s, rcond
    if not cov:
        return c
    base = divide(linalg.inv(matmul(_transpose(lhs), lhs)), linalg.outer(scale, scale))
    if cov == "unscaled":
        factor = 1.0
    else:
        if x.shape[0] <= order:
            raise ValueError("the number of data points must exceed order to scale the "
                             "covariance matrix")
        factor = divide(residuals, x.shape[0] - order)
    if y.ndim == 1:
        return c, multiply(base, factor)
    return c, multiply(reshape(base, base.shape + (1,)), factor)


class poly1d:
    """A one-dimensional polynomial with device coefficients
    (``numpy.poly1d``, as CuPy's ``cupy.poly1d``).

    ``poly1d(c_or_r, r=False, variable=None)``: ``c_or_r`` holds the
    coefficients, highest power first (an NPUArray, a poly1d, a scalar, or
    host data, which is uploaded as ``npuarray.asarray`` does), or the roots
    when ``r`` is true. Leading zeros are trimmed (reading the first non-zero's
    position on the host). ValueError for more than one dimension.

    Evaluation (``p(x)``), arithmetic with poly1d and scalars (``+ - * / **``),
    ``deriv``, ``integ``, indexing by power and iteration run on the device;
    ``roots`` uses ``npuarray.linalg.eigvals`` (host); ``str``, ``repr`` and
    ``numpy.asarray(p)`` copy the coefficients to the host.
    """

    __hash__ = None

    def __init__(self, c_or_r, r=False, variable=None):
        if isinstance(c_or_r, poly1d):
            self._coeffs, self._variable = c_or_r._coeffs, c_or_r._variable
            if variable is not None:
                self._variable = variable
            return
        if r:
            c_or_r = poly(as_device(c_or_r, "poly1d"))
        c = c_or_r if is_array(c_or_r) else asarray(c_or_r)
        c = reshape(c, (1,)) if c.ndim == 0 else c
        if c.ndim > 1:
            raise ValueError("Polynomial must be 1d only.")
        c = _trim_leading_zeros(c)
        if c.shape[0] == 0:
            c = zeros((1,), dtype=c.dtype, device=c.device)
        self._coeffs = c
        self._variable = "x" if variable is None else variable

    @property
    def coeffs(self):
        """The coefficients, highest power first (a 1-D NPUArray)."""
        return self._coeffs

    c = coef = coefficients = coeffs

    @property
    def variable(self):
        """The name of the variable in ``str(p)``."""
        return self._variable

    @property
    def order(self):
        """The degree of the polynomial."""
        return self._coeffs.shape[0] - 1

    o = order

    @property
    def roots(self):
        """The roots (``npuarray.roots`` of the coefficients; on the host)."""
        return roots(self._coeffs)

    r = roots

    def __array__(self, dtype=None, copy=None):
        return np.asarray(asnumpy(self._coeffs), dtype=dtype)

    def __repr__(self):
        values = repr(asnumpy(self._coeffs))[len("array("):-1]
        return f"poly1d({values})"

    def __str__(self):
        return str(np.poly1d(asnumpy(self._coeffs), variable=self._variable))

    def __len__(self):
        return self.order

    def __call__(self, val):
        return polyval(self._coeffs, val)

    def __neg__(self):
        return poly1d(negative(self._coeffs))

    def __pos__(self):
        return self

    def __mul__(self, other):
        if _is_scalar(other):
            return poly1d(multiply(self._coeffs, other))
        return poly1d(polymul(self._coeffs, poly1d(other)._coeffs))

    __rmul__ = __mul__

    def __add__(self, other):
        return poly1d(polyadd(self._coeffs, poly1d(other)._coeffs))

    __radd__ = __add__

    def __sub__(self, other):
        return poly1d(polysub(self._coeffs, poly1d(other)._coeffs))

    def __rsub__(self, other):
        return poly1d(polysub(poly1d(other)._coeffs, self._coeffs))

    def __pow__(self, val):
        if not _is_scalar(val) or int(val) != val or val < 0:
            raise ValueError("Power to non-negative integers only.")
        result = ones((1,), dtype=self._coeffs.dtype, device=self._coeffs.device)
        for _ in range(int(val)):
            result = polymul(self._coeffs, result)
        return poly1d(result)

    def __truediv__(self, other):
        if _is_scalar(other):
            return poly1d(divide(self._coeffs, other))
        return polydiv(self, poly1d(other))

    def __rtruediv__(self, other):
        return polydiv(poly1d(other), self)

    def __eq__(self, other):
        if not isinstance(other, poly1d):
            return NotImplemented
        if self._coeffs.shape != other._coeffs.shape:
            return False
        return bool(_read(_all(equal(self._coeffs, other._coeffs))))

    def __ne__(self, other):
        if not isinstance(other, poly1d):
            return NotImplemented
        return not self.__eq__(other)

    def __getitem__(self, power):
        """The coefficient of ``x**power`` (0 beyond the degree), 0-d NPUArray."""
        index = self.order - power
        if power > self.order or power < 0:
            return zeros((), dtype=self._coeffs.dtype, device=self._coeffs.device)
        return self._coeffs[index]

    def __setitem__(self, power, value):
        if power < 0:
            raise ValueError("Does not support negative powers.")
        if power > self.order:
            self._coeffs = _pad_front(self._coeffs, power + 1)
        coeffs = _copy(self._coeffs)
        coeffs[self.order - power] = value
        self._coeffs = coeffs

    def __iter__(self):
        """The coefficients, highest power first, as 0-d NPUArrays."""
        return (self._coeffs[i] for i in range(self._coeffs.shape[0]))

    def integ(self, m=1, k=0):
        """The ``m``-th antiderivative with constants ``k`` (:func:`polyint`)."""
        return poly1d(polyint(self._coeffs, m=m, k=k))

    def deriv(self, m=1):
        """The ``m``-th derivative (:func:`polyder`)."""
        return poly1d(polyder(self._coeffs, m=m))


def _is_scalar(value):
    return isinstance(value, (numbers.Number, np.generic)) or (is_array(value) and value.ndim == 0)
