"""aclnn operators through npuarray against NumPy and PyTorch CPU.

* ``a + b`` on float32, 1 K ... 16 M elements, each synchronised (targets:
  1 K takes <= 8x NumPy's time, 16 M >= 2.0x NumPy's speed, and 16 M at >= 90 %
  of the machine's copy bandwidth: 12 bytes read + written per element);
* host overhead per operation: a chain of 1000 dependent ``+`` on 16-element
  arrays, synchronised at the end (<= 5x NumPy's per-op time), with the
  host CPU time of the launching thread per operation (``time.thread_time``: what
  the launch path costs, unaffected by other processes on a shared machine);
* the same chains for ``y * 1.001`` (array and Python float) and ``y += one``
  (in place);
* ``sum`` over 16 M float32 (target >= 1.8x NumPy, and >= 90 % of the copy
  bandwidth: 4 bytes read per element);
* ``matmul`` 1024 x 1024 float32 (target >= 1.0x NumPy);
* ``sort``, ``cumulative_sum``, ``std`` over 16 M float32 (no target yet);
* ``unique_values`` over 16 M float32 with repeats (aclnnUnique2).

Every npuarray timing ends with a synchronisation of the stream, so it covers
the work, not only its submission.
"""

import numpy as np

import npuarray as npx

from . import _targets
from ._harness import synchronized, torch_or_none

ADD_SIZES = [1 << 10, 1 << 14, 1 << 18, 1 << 20, 1 << 22, 1 << 24]
QUICK_ADD_SIZES = [1 << 10, 1 << 24]  # the two the issues set targets for
ADD_TARGETS = {1 << 10: _targets.ADD_1K_SYNC, 1 << 24: _targets.ADD_16M}
CHAIN = 1000
BANDWIDTH_BOUND_ADDS = {1 << 24}  # set against the machine's copy bandwidth (reads + writes)


def _label(n):
    return "%d M" % (n >> 20) if n >= 1 << 20 else "%d K" % (n >> 10)


def _add(harness, stream, torch):
    rng = np.random.default_rng(0)
    for n in QUICK_ADD_SIZES if harness.quick else ADD_SIZES:
        a = rng.standard_normal(n, dtype=np.float32)
        b = rng.standard_normal(n, dtype=np.float32)
        x, y = npx.asarray(a), npx.asarray(b)
        out = np.empty_like(a)
        impls = {"npuarray": synchronized(stream, lambda: x + y),
                 "numpy": lambda: np.add(a, b, out=out)}
        if torch is not None:
            ta, tb = torch.from_numpy(a), torch.from_numpy(b)
            impls["torch"] = lambda: ta + tb
        harness.compare("add float32 %s" % _label(n), impls, nbytes=3 * 4 * n,
                        repeat=15 if n <= 1 << 20 else 7, target=ADD_TARGETS.get(n),
                        traffic=3 * 4 * n if n in BANDWIDTH_BOUND_ADDS else None)


def _overhead(harness, stream, torch):
    x = npx.asarray(np.ones(16, np.float32))
    one = npx.asarray(np.full(16, 1e-3, np.float32))

    def chain():
        y = x
        for _ in range(CHAIN):
            y = y + one
        stream.synchronize()
        return y

    result = chain()
    np.testing.assert_allclose(result.to_host(), 1 + CHAIN * 1e-3, rtol=1e-4)
    a, b = np.ones(16, np.float32), np.full(16, 1e-3, np.float32)

    def numpy_chain():
        y = a
        for _ in range(CHAIN):
            y = y + b

    impls = {"npuarray": chain, "numpy": numpy_chain}
    if torch is not None:
        ta, tb = torch.from_numpy(a), torch.from_numpy(b)

        def torch_chain():
            y = ta
            for _ in range(CHAIN):
                y = y + tb
        impls["torch"] = torch_chain
    times = harness.compare("per-op overhead: 1000 x (16-elt +)", impls, repeat=7,
                            target=_targets.DEPENDENT_ADD)
    per_op = times["npuarray"] / CHAIN * 1e6
    numpy_per_op = times["numpy"] / CHAIN * 1e6
    print("    per dependent operation: %.2f us, %.1fx NumPy's %.2f us (target <= 5x)"
          % (per_op, per_op / numpy_per_op, numpy_per_op))
    _host_cpu(harness, chain)
    _phase_share(harness, x, one)
    _scalar_and_in_place_chains(harness, stream, torch)


def _scalar_and_in_place_chains(harness, stream, torch):
    """The two other launch fast paths: ``y * 1.001`` (aclnnMuls, an array and
    a Python float) and ``y += one`` (aclnnInplaceAdd, no result array), 1000 dependent
    operations on 16 float32 elements each."""
    x = npx.asarray(np.ones(16, np.float32))
    one = npx.asarray(np.full(16, 1e-3, np.float32))
    a, b = np.ones(16, np.float32), np.full(16, 1e-3, np.float32)

    def scalar_chain(y, sync):
        for _ in range(CHAIN):
            y = y * 1.001
        sync()
        return y

    def in_place_chain(y, other, sync):
        for _ in range(CHAIN):
            y += other
        sync()
        return y

    np.testing.assert_allclose(scalar_chain(x, stream.synchronize).to_host(),
                               1.001 ** CHAIN, rtol=1e-3)
    in_place = npx.asarray(np.ones(16, np.float32))
    np.testing.assert_allclose(in_place_chain(in_place, one, stream.synchronize).to_host(),
                               1 + CHAIN * 1e-3, rtol=1e-4)
    cases = [("per-op overhead: 1000 x (16-elt * 1.001)",
              lambda: scalar_chain(x, stream.synchronize), lambda: scalar_chain(a, _nothing),
              lambda t: (lambda: scalar_chain(t[0], _nothing))),
             ("per-op overhead: 1000 x (16-elt +=)",
              lambda: in_place_chain(in_place, one, stream.synchronize),
              lambda: in_place_chain(a.copy(), b, _nothing),
              lambda t: (lambda: in_place_chain(t[0].clone(), t[1], _nothing)))]
    for case, ours, numpy_fn, torch_fn in cases:
        impls = {"npuarray": ours, "numpy": numpy_fn}
        if torch is not None:
            impls["torch"] = torch_fn((torch.from_numpy(a), torch.from_numpy(b)))
        harness.compare(case, impls, repeat=7)


def _nothing():
    pass


def _host_cpu(harness, chain):
    """The launching thread's CPU time per operation of the chain."""
    best, median = harness.host_cpu("  host CPU of the launching thread", chain, per_call=CHAIN)
    print("    host CPU per operation: best %.2f us, median %.2f us" % (best * 1e6, median * 1e6))


def _phase_share(harness, x, one):
    """Diagnostic: aclnnAdd's two phases alone on the chain's operands, called 1000 times
    through npuarray's C launch helper (one cffi call each, with no result array made):
    what the provider costs per operation, the rest of the chain's time being npuarray's
    host path (npuarray/_core/_fastpath.c: pool block, result array, checks)."""
    from npuarray._core import _ops
    if _ops._launch_helper is None:
        return
    stream = _ops.current_stream(x.device)
    out = x + one
    first, second = _ops._entry_points.get("aclnnAdd") or _ops._entry_points_of("aclnnAdd")
    alpha = _ops.acl_scalar(1, x.dtype)
    args = (first, second, 4, x._acl_tensor, one._acl_tensor, alpha, out._acl_tensor,
            stream.handle)
    launch = _ops._launch_helper

    def phases():
        for _ in range(CHAIN):
            launch(*args)
        stream.synchronize()
    seconds = harness.measure("  of which aclnnAdd's two phases", phases, per_call=CHAIN)
    print("    the provider's share per operation: %.2f us (with a cffi call)" % (seconds * 1e6))


def _sum(harness, stream, torch):
    n = 1 << 24
    a = np.random.default_rng(1).standard_normal(n, dtype=np.float32)
    x = npx.asarray(a)
    impls = {"npuarray": synchronized(stream, lambda: npx.sum(x)), "numpy": lambda: a.sum()}
    if torch is not None:
        ta = torch.from_numpy(a)
        impls["torch"] = lambda: ta.sum()
    harness.compare("sum float32 16 M", impls, nbytes=4 * n, repeat=7,
                    target=_targets.SUM_16M, traffic=4 * n)


def _matmul(harness, stream, torch):
    n = 1024
    rng = np.random.default_rng(2)
    a = rng.standard_normal((n, n), dtype=np.float32)
    b = rng.standard_normal((n, n), dtype=np.float32)
    x, y = npx.asarray(a), npx.asarray(b)
    impls = {"npuarray": synchronized(stream, lambda: x @ y), "numpy": lambda: a @ b}
    if torch is not None:
        ta, tb = torch.from_numpy(a), torch.from_numpy(b)
        impls["torch"] = lambda: ta @ tb
    times = harness.compare("matmul float32 1024^2", impls, repeat=5,
                            target=_targets.MATMUL_1024)
    print("    npuarray matmul: %.1f GFLOP/s" % (2 * n ** 3 / times["npuarray"] / 1e9))


# sin, statistics and sorting: one 16 M float32 vector, NumPy and torch alike.
STATS_N = 1 << 24


def _statistics_and_sorting(harness, stream, torch):
    a = np.random.default_rng(3).standard_normal(STATS_N, dtype=np.float32)
    x = npx.asarray(a)
    cases = [
        ("sin", lambda: npx.sin(x), lambda: np.sin(a), lambda t: t.sin()),
        ("sort", lambda: npx.sort(x), lambda: np.sort(a), lambda t: t.sort()),
        ("cumulative_sum", lambda: npx.cumulative_sum(x), lambda: np.cumulative_sum(a),
         lambda t: t.cumsum(0)),
        ("std", lambda: npx.std(x), lambda: a.std(), lambda t: t.std(correction=0)),
    ]
    for name, ours, numpy_fn, torch_fn in cases:
        impls = {"npuarray": synchronized(stream, ours), "numpy": numpy_fn}
        if torch is not None:
            ta = torch.from_numpy(a)
            impls["torch"] = lambda fn=torch_fn, t=ta: fn(t)
        harness.compare("%s float32 16 M" % name, impls, nbytes=4 * STATS_N, repeat=5)


def _unique_values(harness, stream, torch):
    n = 1 << 24
    a = np.random.default_rng(3).integers(0, 1 << 20, size=n).astype(np.float32)
    x = npx.asarray(a)
    impls = {"npuarray": synchronized(stream, lambda: npx.unique_values(x)),
             "numpy": lambda: np.unique(a)}
    if torch is not None:
        ta = torch.from_numpy(a)
        impls["torch"] = lambda: torch.unique(ta)
    harness.compare("unique_values float32 16 M", impls, nbytes=4 * n, repeat=3)


# Element-wise kernel paths: broadcasts on small shapes (the k-means one-hot and
# centring), a contiguous medium op, casts, a scalar operand and the float32 transcendentals.
EW_ROWS, EW_COLS = 1797, 64  # the digits data set of examples/digits_kmeans.py
TRANSCENDENTALS = ["sin", "cos", "exp", "log", "tanh"]


def _elementwise_paths(harness, stream, torch):
    rng = np.random.default_rng(4)
    labels = rng.integers(0, 10, EW_ROWS)
    data = rng.standard_normal((EW_ROWS, EW_COLS), dtype=np.float32)
    col = rng.standard_normal((EW_ROWS, 1), dtype=np.float32)
    L, X, C, classes = npx.asarray(labels), npx.asarray(data), npx.asarray(col), npx.arange(10)
    tx = torch.from_numpy(data) if torch is not None else None
    cases = [
        ("one-hot (1797,1)==(10,) int64", lambda: npx.reshape(L, (-1, 1)) == classes,
         lambda: labels.reshape(-1, 1) == np.arange(10), None, None),
        ("x*x (1797,64) float32", lambda: X * X, lambda: data * data, None, None),
        ("x-c (1797,64)-(1797,1) float32", lambda: X - C, lambda: data - col, None, None),
        ("x*2.5 (1797,64) float32", lambda: X * 2.5, lambda: data * np.float32(2.5),
         lambda: tx * 2.5, _targets.SCALE_1797X64),
        ("astype f32->f64 (1797,64)", lambda: X.astype(npx.float64),
         lambda: data.astype(np.float64), lambda: tx.double(), _targets.ASTYPE_1797X64),
        # the repeated operand first (kernels reading input 0 as one element)
        ("2.5-x (1797,64) float32", lambda: 2.5 - X, lambda: np.float32(2.5) - data, None, None),
        ("c<x (1797,1)<(1797,64) float32", lambda: C < X, lambda: col < data, None, None),
    ]
    for name, ours, numpy_fn, torch_fn, target in cases:
        impls = {"npuarray": synchronized(stream, ours), "numpy": numpy_fn}
        if torch_fn is not None and tx is not None:
            impls["torch"] = torch_fn
        harness.compare(name, impls, repeat=50, target=target)
    n = 1 << 24
    a = (rng.standard_normal(n, dtype=np.float32) * 10).astype(np.float32)
    positive = np.abs(a) + np.float32(0.1)
    out = np.empty_like(a)
    y = npx.empty(n, dtype=npx.float32)
    for name in [] if harness.quick else TRANSCENDENTALS:
        src = positive if name == "log" else a
        x = npx.asarray(src)
        impls = {"npuarray": synchronized(stream, lambda f=getattr(npx, name), x=x: f(x, out=y)),
                 "numpy": lambda f=getattr(np, name), src=src: f(src, out=out)}
        if torch is not None:
            t_src, t_out = torch.from_numpy(src), torch.from_numpy(out)
            impls["torch"] = lambda f=getattr(torch, name), s=t_src, o=t_out: f(s, out=o)
        harness.compare("%s float32 16 M, into out=" % name, impls, nbytes=8 * n, repeat=5,
                        target=_targets.TANH_16M_OUT if name == "tanh" else None)


def run(harness):
    torch = torch_or_none()
    stream = npx.get_current_stream()
    _add(harness, stream, torch)
    _overhead(harness, stream, torch)
    _sum(harness, stream, torch)
    _matmul(harness, stream, torch)
    _elementwise_paths(harness, stream, torch)
    if harness.quick:  # seconds per run, and no target yet
        return
    _statistics_and_sorting(harness, stream, torch)
    _unique_values(harness, stream, torch)
