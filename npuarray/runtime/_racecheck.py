"""npusim's stream race detector from Python: ``npx.racecheck()`` and the warnings of its
warn mode.

npusim (``kernels/include/npusim_racecheck.h``) orders every access to device memory
by stream order, events, waits, synchronisations and graph replays, and reports two
conflicting accesses from different streams (or a stream and the host) with no order
between them. ``NPUSIM_RACECHECK=1`` or ``warn`` turns it on for the whole process;
``racecheck()`` for a block. npuarray tells npusim which Python line issued each
operation, so a report names the user's lines of both operations.
"""
import contextlib
import os
import sys
import threading
import warnings

from .. import _acl
from .._acl import backend, ffi, lib

__all__ = ["RaceWarning", "racecheck"]

_MODES = {"off": 0, "error": 1, "warn": 2}
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_lock = threading.Lock()
warning = False  # warn mode is on: Stream.synchronize turns kept reports into warnings


class RaceWarning(UserWarning):
    """A data race npusim's race detector found in warn mode (the operation ran)."""


@ffi.callback("void(char *, size_t)")
def _site(buf, size):
    """Writes "file:line" of the innermost frame outside npuarray (the user's call)."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame = frame.f_back
    if frame is None or size == 0:
        return
    text = ("%s:%d" % (frame.f_code.co_filename, frame.f_lineno)).encode("utf-8", "replace")
    text = text[-(size - 1):]
    ffi.memmove(buf, text + b"\0", len(text) + 1)


def _require_npusim():
    if backend().name != "npusim" or not _acl.available("npusim_racecheck_set_mode"):
        raise RuntimeError(
            "npuarray.racecheck() needs npusim, npuarray's simulated NPU: the race detector is "
            "part of npusim, and CANN (the loaded backend: %s) has none. Run the program with "
            "NPUARRAY_BACKEND=npusim to check it for races" % backend().name)


def _set_mode(code):
    """Sets npusim's mode (and the site provider with it); returns the previous code."""
    global warning
    previous = lib.npusim_racecheck_set_mode(code)
    lib.npusim_racecheck_set_site_provider(_site if code else ffi.NULL)
    warning = code == _MODES["warn"]
    return previous


def emit_warnings():
    """Turns the reports npusim kept in warn mode into RaceWarnings."""
    buf = ffi.new("char[1024]")
    while lib.npusim_racecheck_next_report(buf, len(buf)):
        warnings.warn(ffi.string(buf).decode("utf-8", "replace"), RaceWarning, stacklevel=3)


@contextlib.contextmanager
def racecheck(mode="error"):
    """Checks the block for stream races with npusim's race detector.

    ``mode="error"``: an operation racing an earlier one (different streams, or a stream
    and a blocking host copy, overlapping device memory, at least one writing, no event,
    wait or synchronisation between them) raises ``npuarray.AclError`` (code 107000,
    ACL_ERROR_RT_PARAM_INVALID; ``InvalidValueError``) naming both operations and the
    Python lines that issued them, and is not run. ``mode="warn"``: it runs, and a
    ``RaceWarning`` with the same report is issued at the next ``Stream.synchronize()``
    or when the block ends. Accesses before the block are not known to the detector.
    Restores the previous mode on exit. RuntimeError on CANN (npusim only); ValueError
    for another mode."""
    if mode not in ("error", "warn"):
        raise ValueError("racecheck mode must be 'error' or 'warn', got %r" % (mode,))
    _require_npusim()
    with _lock:
        previous = _set_mode(_MODES[mode])
    try:
        yield
    finally:
        with _lock:
            _set_mode(previous)
        emit_warnings()


def _from_environment():
    """NPUSIM_RACECHECK (read by npusim at aclInit) turns the site provider on too."""
    if backend().name == "npusim" and _acl.available("npusim_racecheck_get_mode"):
        code = lib.npusim_racecheck_get_mode()
        if code:
            _set_mode(code)


_from_environment()
