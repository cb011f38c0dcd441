"""The main example, k-means on scikit-learn's digits (examples/digits_kmeans.py):
wall time of the device run (upload from pinned memory, every iteration, one
read-back per iteration) against the same algorithm in NumPy, then each operation
of one iteration (``kmeans_step`` and the distances) on its own, each npuarray
timing ending with a synchronisation of the stream, so that the table shows which
operations the iteration's time goes to."""
import importlib.util
import pathlib

import numpy as np

import npuarray as npx
from npuarray._core import _ops, _statistical

from . import _targets
from ._harness import torch_or_none

EXAMPLE = pathlib.Path(__file__).resolve().parents[1] / "examples" / "digits_kmeans.py"
OPS_PER_CALL = 50  # operations per timed call: a single one is too short to time


def _example():
    spec = importlib.util.spec_from_file_location("digits_kmeans", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _repeated(fn, stream=None):
    def run():
        for _ in range(OPS_PER_CALL):
            fn()
        if stream is not None:
            stream.synchronize()
    return run


def _operations(data, initial, torch):
    """(name, npuarray op, NumPy op[, PyTorch op, target]) for each operation of one
    iteration, on the iteration's real operands (labels and one-hot from the initial
    centroids); the PyTorch op of a row with one runs only when ``torch`` is installed."""
    x, c = npx.asarray(data), npx.asarray(initial)
    tx, tc = (torch.from_numpy(data), torch.from_numpy(initial)) if torch is not None else (None, None)
    d = npx.asarray(((data[:, None, :] - initial[None]) ** 2).sum(-1))
    labels = npx.argmin(d, axis=1)
    clusters = npx.arange(10, dtype=labels.dtype)
    one_hot = (npx.reshape(labels, (-1, 1)) == clusters).astype(x.dtype)
    xx = x * x
    x_sq, c_sq = npx.sum(xx, axis=1, keepdims=True), npx.sum(c * c, axis=1)
    dn, hn, ln = d.to_host(), one_hot.to_host(), labels.to_host()
    xxn = data * data
    x_sqn, c_sqn = x_sq.to_host(), c_sq.to_host()
    return [
        ("x * x (1797,64)", lambda: x * x, lambda: data * data),
        ("sum(x*x, axis=1, keepdims)", lambda: npx.sum(xx, axis=1, keepdims=True),
         lambda: xxn.sum(axis=1, keepdims=True)),
        ("matmul(x, c.T) (1797,64)@(64,10)", lambda: npx.matmul(x, c.T), lambda: data @ initial.T,
         lambda: tx @ tc.T, _targets.MATMUL_SKINNY),
        ("x_sq - d (1797,1)-(1797,10)", lambda: x_sq - d, lambda: x_sqn - dn),
        ("d + c_sq (1797,10)+(10,)", lambda: d + c_sq, lambda: dn + c_sqn),
        ("argmin(d, axis=1) (1797,10)", lambda: npx.argmin(d, axis=1), lambda: dn.argmin(axis=1)),
        ("min(d, axis=1) (1797,10)", lambda: npx.min(d, axis=1), lambda: dn.min(axis=1)),
        ("labels == arange(k) -> float32", lambda: (npx.reshape(labels, (-1, 1)) == clusters).astype(x.dtype),
         lambda: (ln[:, None] == np.arange(10)).astype(np.float32)),
        ("sum(one_hot, axis=0) (1797,10)", lambda: npx.sum(one_hot, axis=0), lambda: hn.sum(axis=0)),
        ("matmul(one_hot.T, x) (10,1797)@(1797,64)", lambda: npx.matmul(one_hot.T, x), lambda: hn.T @ data),
        ("sum(c * c, axis=1) (10,64)", lambda: npx.sum(c * c, axis=1), lambda: (initial * initial).sum(axis=1),
         lambda: (tc * tc).sum(dim=1), _targets.SUM_SQUARES_10X64),
    ]


def _sum_squares_breakdown(harness, initial, stream):
    """Where ``sum(c * c, axis=1)``'s time goes, per pair of operations: the launching
    thread's CPU time (its host path and the two kernels, which a stream this idle runs on
    the launching thread), and of it at most the provider's share: aclnnMul's and
    aclnnReduceSum's two phases alone on the same operands through npuarray's C launch
    helpers called from Python (no result arrays made; the two cffi calls' argument
    conversions are counted too, which the C fast path does not pay); and the two result
    arrays alone (``_ops.empty``, called from Python: pool blocks, descriptors, the array and
    buffer objects made and released). Both are measured through Python calls the fast path
    does not make, so they bound its shares from above; the rest of the host path is
    _fastpath.c's argument checks, plan look-ups and the current stream and device."""
    if _ops._launch_helper is None:
        return
    c = npx.asarray(initial)

    def pairs():
        for _ in range(OPS_PER_CALL):
            npx.sum(c * c, axis=1)
        stream.synchronize()
    pairs()
    best, median = harness.host_cpu("    host CPU of the launching thread", pairs, per_call=OPS_PER_CALL)
    squares = c * c
    out = npx.sum(squares, axis=1)
    plan = _statistical._plans[_statistical._plan_key("aclnnReduceSum", squares, 1, False, None)]
    first, second, count = _ops._pointer_entry_points_of("aclnnMul")
    multiply = (first, second, count, c._acl_tensor, c._acl_tensor, squares._acl_tensor,
                _ops._NULL, stream.handle)
    reduce = _ops._exact_launchers.get("aclnnReduceSum") or _ops._exact_launcher("aclnnReduceSum")
    launch = _ops._launch_helper

    def phases():
        for _ in range(OPS_PER_CALL):
            launch(*multiply)
            reduce(squares._acl_tensor, *plan[1], out._acl_tensor, stream.handle)
        stream.synchronize()
    provider = harness.measure("    of which the two operators' phases (from Python)", phases,
                               per_call=OPS_PER_CALL)

    def results():
        for _ in range(OPS_PER_CALL):
            _ops.empty(squares._shape, squares._dtype, squares.device, stream)
            _ops.empty(out._shape, out._dtype, out.device, stream)
        stream.synchronize()
    arrays = harness.host_cpu("    of which the two result arrays (from Python)", results,
                              per_call=OPS_PER_CALL)[0]
    print("    per sum(c * c, axis=1): host CPU best %.2f us, median %.2f us; the provider's "
          "two launches called from Python %.2f us" % (best * 1e6, median * 1e6, provider * 1e6))
    print("    per pair: the two result arrays alone, called from Python, %.2f us of host CPU"
          % (arrays * 1e6))


def run(harness):
    harness.benchmark = "kmeans"
    torch = torch_or_none()
    try:
        from sklearn.datasets import load_digits
    except ImportError:
        print("    skipped: scikit-learn is not installed (the examples extra)")
        return
    example = _example()
    data = load_digits().data.astype(np.float32)
    initial = data[np.random.default_rng(0).choice(len(data), 10, replace=False)]
    iterations = example.kmeans_npu(data, initial, 100, 0.0)[2]
    times = harness.compare("k-means digits 1797x64, k=10 (%d iters)" % iterations, {
        "npuarray": lambda: example.kmeans_npu(data, initial, 100, 0.0),
        "numpy": lambda: example.kmeans_numpy(data, initial, 100, 0.0),
    }, repeat=5, target=_targets.KMEANS_EAGER)
    print("    per iteration: npuarray %.2f ms, numpy %.2f ms" % (
        times["npuarray"] / iterations * 1e3, times["numpy"] / iterations * 1e3))
    print("    one iteration's operations, %d per timed call (per-operation time = shown / %d):"
          % (OPS_PER_CALL, OPS_PER_CALL))
    stream = npx.Stream()
    with stream:
        for name, device, host, *more in _operations(data, initial, torch):
            impls = {"npuarray": _repeated(device, stream), "numpy": _repeated(host)}
            if more and torch is not None:
                impls["torch"] = _repeated(more[0])
            harness.compare("  " + name, impls, target=more[1] if more else None)
        _sum_squares_breakdown(harness, initial, stream)
