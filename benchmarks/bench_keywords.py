"""Host cost of NumPy's signatures on small arrays: the plain call against the same
call through the array API function it wraps, and the keyword paths.

``npuarray.add(x, y)`` (a ufunc object) against the element-wise function behind it,
``npuarray.sum(x)`` against the array API reduction, then ``out=``, ``where=``,
``ddof=`` and ``numpy.add(x, y)`` (``__array_ufunc__``) on 16 float32 elements:
host overhead dominates there, so these rows show what the keyword handling adds.
Each row is the time per call over 1000 calls; every run ends with a synchronisation of the stream.
"""
import numpy as np

import npuarray as npx
from npuarray._core import _elementwise, _statistical

CALLS = 1000


def _calls(stream, fn):
    def run():
        for _ in range(CALLS):
            fn()
        stream.synchronize()
    return run


def run(harness):
    harness.benchmark = "keywords"
    stream = npx.get_current_stream()
    a = np.arange(16, dtype=np.float32)
    x, y = npx.asarray(a), npx.asarray(a[::-1].copy())
    out, mask = npx.empty(16, dtype=npx.float32), x > 3
    cases = [
        ("npuarray.add(x, y)", lambda: npx.add(x, y)),
        ("array API add(x, y)", lambda: _elementwise.add(x, y)),
        ("npuarray.sum(x)", lambda: npx.sum(x)),
        ("array API sum(x)", lambda: _statistical.sum(x)),
        ("npuarray.exp(x)", lambda: npx.exp(x)),
        ("array API exp(x)", lambda: _elementwise.exp(x)),
        ("npuarray.add(x, y, out=)", lambda: npx.add(x, y, out=out)),
        ("npuarray.sum(x, where=)", lambda: npx.sum(x, where=mask)),
        ("npuarray.std(x, ddof=1)", lambda: npx.std(x, ddof=1)),
        ("numpy.add(x, y) (dispatch)", lambda: np.add(x, y)),
    ]
    for name, fn in cases:
        harness.measure("%s, 16 float32" % name, _calls(stream, fn), per_call=CALLS)
