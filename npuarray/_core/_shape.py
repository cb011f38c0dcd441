"""Shapes, strides and axes: the host-side arithmetic every array function shares.

Pure functions of tuples (no device work, no NPUArray), so every module of the core
can use them without importing another: NumPy's broadcasting rule, axis
normalisation with NumPy's exceptions, and C-order strides and contiguity, in
elements.
"""
import functools

import numpy as np

__all__ = ["AxisError", "broadcast_shapes", "normalize_axis_index", "normalize_axis_tuple",
           "c_strides", "is_c_contiguous"]

AxisError = np.exceptions.AxisError  # a ValueError and an IndexError, as in NumPy


def broadcast_shapes(*shapes):
    """The broadcast of ``shapes`` (sequences of ints) by NumPy's rule, as a tuple
    (``numpy.broadcast_shapes``; array API ``broadcast_shapes``). ValueError when
    they do not broadcast."""
    if not all(type(shape) is tuple for shape in shapes):
        shapes = tuple(tuple(shape) for shape in shapes)
    return _broadcast_tuples(*shapes)


@functools.lru_cache(maxsize=4096)
def _broadcast_tuples(*shapes):
    ndim = max((len(s) for s in shapes), default=0)
    result = [1] * ndim
    for shape in shapes:
        for i, n in enumerate(shape, ndim - len(shape)):
            if n != 1:
                if result[i] not in (1, n):
                    raise ValueError("operands could not be broadcast together with shapes "
                                     + " ".join(str(s) for s in shapes))
                result[i] = n
    return tuple(result)


def normalize_axis_index(axis, ndim):
    """``axis`` as an index in ``[0, ndim)`` (``numpy.lib.array_utils.normalize_axis_index``):
    TypeError for a non-integer, AxisError (a ValueError and IndexError) out of range."""
    try:
        axis = axis.__index__()
    except AttributeError:
        raise TypeError(f"axis must be an integer, got {type(axis).__name__}") from None
    if not -ndim <= axis < ndim:
        raise AxisError(axis, ndim)
    return axis % ndim


def normalize_axis_tuple(axes, ndim):
    """``axes`` (an int or a sequence of ints) as a tuple of non-negative axes, in
    the given order (``numpy.lib.array_utils.normalize_axis_tuple``). AxisError
    for an axis out of range, ValueError for a repeated axis."""
    if not isinstance(axes, (tuple, list)):
        axes = (axes,)
    normalized = tuple(normalize_axis_index(a, ndim) for a in axes)
    if len(set(normalized)) != len(normalized):
        raise ValueError(f"repeated axis in {tuple(axes)}")
    return normalized


@functools.lru_cache(maxsize=4096)
def c_strides(shape):
    """C-order strides, in elements, of an array of ``shape`` (a tuple)."""
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


def is_c_contiguous(shape, strides):
    """Whether a view of ``shape`` and ``strides`` (elements) has its elements adjacent in
    C order; strides of length-1 axes do not matter, and an empty view is contiguous
    (as NumPy's ``flags.c_contiguous``)."""
    if 0 in shape:
        return True
    expected = 1
    for n, s in zip(reversed(shape), reversed(strides)):
        if n != 1 and s != expected:
            return False
        expected *= n
    return True
