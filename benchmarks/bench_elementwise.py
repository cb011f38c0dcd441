"""Casts and mixed-dtype element-wise operations (npusim's aclnnCast, aclnnSub, aclnnAdd)
through npuarray against NumPy and PyTorch CPU.

* ``astype`` between int32, float32 and float64 (every ordered pair), 512 x 512 and
  16 M elements: a new array each call, as ``numpy.ndarray.astype`` and
  ``torch.Tensor.to`` make (targets: >= NumPy's speed; the 16 M rows are also set
  against the machine's copy bandwidth: source and result bytes per element);
* ``a - b`` with a float64 and b int32, 512 x 512 (one aclnnSub on the mixed dtypes;
  target >= NumPy's speed);
* ``add(a, b, out=o)`` on 16 M float32, written straight into ``o`` (target >= NumPy's
  speed, and the copy bandwidth: 12 bytes read + written per element).

``--quick``: the 512 x 512 rows and the ``out=`` row. Every npuarray timing ends with a
synchronisation of the stream, so it covers the work, not only its submission.
"""
import numpy as np

import npuarray as npx

from . import _targets
from ._harness import synchronized, torch_or_none

CAST_DTYPES = ["int32", "float32", "float64"]
SIZES = {"512^2": 512 * 512, "16 M": 1 << 24}
CAST_TARGETS = {"512^2": _targets.CAST_512, "16 M": _targets.CAST_16M}
BANDWIDTH_BOUND = {"16 M"}  # rows set against the machine's copy bandwidth


def _host(rng, dtype, n):
    if dtype == "int32":
        return rng.integers(-(1 << 30), 1 << 30, n, dtype=np.int32)
    return (rng.standard_normal(n) * 1e4).astype(dtype)


def _casts(harness, stream, torch, sizes):
    rng = np.random.default_rng(0)
    for label in sizes:
        n = SIZES[label]
        hosts = {d: _host(rng, d, n) for d in CAST_DTYPES}
        for source in CAST_DTYPES:
            host, x = hosts[source], npx.asarray(hosts[source])
            for target in CAST_DTYPES:
                if target == source:
                    continue
                dtype = np.dtype(target)
                impls = {"npuarray": synchronized(stream, lambda x=x, d=dtype: x.astype(d)),
                         "numpy": lambda h=host, d=dtype: h.astype(d)}
                if torch is not None:
                    t, td = torch.from_numpy(host), getattr(torch, target)
                    impls["torch"] = lambda t=t, td=td: t.to(td)
                traffic = n * (host.itemsize + dtype.itemsize)
                harness.compare("astype %s -> %s %s" % (source, target, label), impls, nbytes=traffic,
                                repeat=15 if n < 1 << 20 else 7, target=CAST_TARGETS[label],
                                traffic=traffic if label in BANDWIDTH_BOUND else None)


def _mixed(harness, stream, torch):
    rng = np.random.default_rng(1)
    n = SIZES["512^2"]
    a, b = rng.standard_normal(n).reshape(512, 512), _host(rng, "int32", n).reshape(512, 512)
    x, y = npx.asarray(a), npx.asarray(b)
    impls = {"npuarray": synchronized(stream, lambda: x - y), "numpy": lambda: a - b}
    if torch is not None:
        ta, tb = torch.from_numpy(a), torch.from_numpy(b)
        impls["torch"] = lambda: ta - tb
    harness.compare("float64 - int32 512^2", impls, nbytes=20 * n, repeat=15,
                    target=_targets.SUB_F64_I32_512)


def _add_out(harness, stream, torch):
    rng = np.random.default_rng(2)
    n = SIZES["16 M"]
    a, b = rng.standard_normal(n, dtype=np.float32), rng.standard_normal(n, dtype=np.float32)
    out = np.empty_like(a)
    x, y, o = npx.asarray(a), npx.asarray(b), npx.empty(n, dtype=np.float32)
    impls = {"npuarray": synchronized(stream, lambda: npx.add(x, y, out=o)),
             "numpy": lambda: np.add(a, b, out=out)}
    if torch is not None:
        ta, tb, to = torch.from_numpy(a), torch.from_numpy(b), torch.from_numpy(out)
        impls["torch"] = lambda: torch.add(ta, tb, out=to)
    harness.compare("add(a, b, out=) float32 16 M", impls, nbytes=12 * n, repeat=7,
                    target=_targets.ADD_OUT_16M, traffic=12 * n)


def run(harness):
    stream = npx.get_current_stream()
    torch = torch_or_none()
    _casts(harness, stream, torch, ["512^2"] if harness.quick else list(SIZES))
    _mixed(harness, stream, torch)
    _add_out(harness, stream, torch)
