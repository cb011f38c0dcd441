"""How pyACL calls the binding: pointers and handles are ints, every call returns the ACL
status ``ret`` (0 on success), outputs come first: ``(value, ret)``. Failures are never
raised as exceptions (as in pyACL); only Python-level misuse (a pointer that is not an
int, a negative size) raises TypeError / ValueError."""
import operator
import os
import warnings

from .._acl import ffi, lib

_NOTES_BYTES = 1 << 16
# npusim reads NPUSIM_STRICT at aclInit, which the binding ran when npuarray was imported.
_STRICT = os.environ.get("NPUSIM_STRICT") == "1"


class StrictModeWarning(RuntimeWarning):
    """npusim performed something CANN performs too but a careful program would not rely
    on (NPUSIM_STRICT=1; e.g. a copy whose kind names the wrong direction)."""


def pointer(value, what="pointer"):
    """A ``void *`` for the int `value` (0 is NULL)."""
    if isinstance(value, bool) or not isinstance(value, int):
        try:
            value = operator.index(value)
        except TypeError:
            raise TypeError("%s must be an int address, got %s" % (what, type(value).__name__)) from None
    if value < 0 or value >= 1 << 64:
        raise ValueError("%s %d is not an address" % (what, value))
    return ffi.cast("void *", value)


def address(cdata):
    """The int address of a ``void *`` (0 for NULL)."""
    return int(ffi.cast("uintptr_t", cdata))


def size(value, what):
    value = operator.index(value)
    if value < 0:
        raise ValueError("%s must be >= 0, got %d" % (what, value))
    return value


def status(function, *args):
    """``ret`` of an ACL call."""
    return int(function(*args))


def output(function, ctype, *args, convert=None):
    """``(value, ret)`` of an ACL call writing one value through its first parameter."""
    box = ffi.new(ctype + " *")
    ret = int(function(box, *args))
    value = box[0]
    if convert is not None:
        value = convert(value)
    elif ctype.endswith("*") or ctype in ("aclrtStream", "aclrtEvent", "aclrtContext", "aclmdlRI"):
        value = address(value)
    else:
        value = int(value)
    return (value if ret == 0 else type(value)()), ret


def warn_strict_notes():
    """Turns npusim's pending strict-mode notes (NPUSIM_STRICT=1) into StrictModeWarnings."""
    take = getattr(lib, "npusim_take_notes", None) if _STRICT else None
    if take is None:     # not strict, or CANN: no such log
        return
    buf = ffi.new("char[]", _NOTES_BYTES)
    while take(buf, _NOTES_BYTES):
        for note in ffi.string(buf).decode("utf-8", "replace").splitlines():
            warnings.warn(note, StrictModeWarning, stacklevel=3)
