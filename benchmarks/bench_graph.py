"""Graph capture and replay (aclmdlRI) against eager launches.

* A chain of 100 dependent elementwise operations on small arrays: eager (one
  aclnn launch per operation) vs one replay of the captured chain, per operation.
  Targets: replay <= 1 us per operation and >= 5x faster than eager,
  replay time <= 0.6x NumPy's time for the same chain.
* One k-means iteration of the main example (examples/digits_kmeans.py) on the
  digits: eager vs replayed, per iteration.
* The whole k-means run (15 iterations to convergence, one read-back of the shift
  per iteration) eager and with its device work replayed from graphs captured once
  (GraphKMeans; target >= 1.5x NumPy), then where a replayed run's time
  goes: upload, replay calls, read-backs against the device time of the replays,
  final results.
NumPy (and PyTorch CPU when installed) run the same work in the same run.
"""
import importlib.util
import pathlib
import time

import numpy as np

import npuarray as npx
from npuarray import _acl

from . import _targets
from ._harness import torch_or_none

CHAIN_LENGTH = 100
CHAIN_SIZE = 256
EXAMPLE = pathlib.Path(__file__).resolve().parents[1] / "examples" / "digits_kmeans.py"


def chain(y):
    """CHAIN_LENGTH dependent elementwise operations (any array module's operators)."""
    for _ in range(CHAIN_LENGTH // 2):
        y = y * 0.999
        y = y + 0.5
    return y


def run(harness):
    if not _acl.available("aclmdlRICaptureBegin"):
        print("    skipped: the loaded provider has no aclmdlRICaptureBegin (graph capture)")
        return
    _chain(harness)
    _kmeans(harness)


def _chain(harness):
    host = np.random.default_rng(0).standard_normal(CHAIN_SIZE).astype(np.float32)
    stream = npx.Stream()
    with stream:
        x = npx.asarray(host)
        graph = npx.Graph()
        with graph.capture():
            out = chain(x)
        graph.replay()
        np.testing.assert_allclose(out.to_host(), chain(host), rtol=1e-5)

    def eager():
        with stream:
            chain(x)
        stream.synchronize()

    def replay():
        graph.replay(stream)
        stream.synchronize()

    case = "%d dependent ops on %d f32" % (CHAIN_LENGTH, CHAIN_SIZE)
    others = {"numpy": lambda: chain(host)}
    torch = torch_or_none()
    if torch is not None:
        tensor = torch.from_numpy(host)
        others["torch"] = lambda: chain(tensor)
    eager_time = harness.compare(case + ", eager", {"npuarray": eager, **others})["npuarray"]
    replayed = harness.compare(case + ", graph replay", {"npuarray": replay, **others},
                               target=_targets.REPLAY_PER_OP)
    replay_time = replayed["npuarray"]
    print("    per operation: eager %.2f us, replay %.3f us; replay is %.1fx faster "
          "(targets: <= 1 us, >= 5x); replay / NumPy %.2f (target <= 0.6)" % (
              eager_time / CHAIN_LENGTH * 1e6, replay_time / CHAIN_LENGTH * 1e6,
              eager_time / replay_time, replay_time / replayed["numpy"]))
    graph.destroy()


def _example():
    spec = importlib.util.spec_from_file_location("digits_kmeans", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def numpy_kmeans_step(x, centroids):
    """The iteration of example.kmeans_step in NumPy."""
    k = centroids.shape[0]
    d2 = (x * x).sum(axis=1, keepdims=True) - 2.0 * (x @ centroids.T) \
        + (centroids * centroids).sum(axis=1)
    labels = d2.argmin(axis=1)
    one_hot = (labels[:, None] == np.arange(k)).astype(x.dtype)
    counts = one_hot.sum(axis=0)
    means = (one_hot.T @ x) / np.maximum(counts, 1.0)[:, None]
    new_centroids = np.where((counts > 0)[:, None], means, centroids)
    return new_centroids, labels, ((new_centroids - centroids) ** 2).sum()


class GraphKMeans:
    """examples/digits_kmeans.kmeans_npu with its device work captured once and replayed.

    Two graphs on one stream: the Lloyd iteration (example.kmeans_step, the new centroids
    written over the old), and the final labels and inertia (the squared distances computed
    once for both, as NumPy's version does). Capturing is a one-time cost, like compiling a
    function, paid here and measured on its own; each run() then does what kmeans_npu does:
    upload the data from pinned memory, set the initial centroids, one replay and one read-back
    of the shift per iteration, and the final labels and inertia read back."""

    def __init__(self, example, shape, k, dtype=np.float32):
        self.stream = npx.Stream()
        self.pinned = npx.empty_pinned(shape, dtype)
        self.host_shift = np.empty((), dtype)
        with self.stream:
            self.x = npx.zeros(shape, dtype=dtype)                 # inputs, rewritten by run()
            self.centroids = npx.zeros((k, shape[1]), dtype=dtype)
            self.iteration = npx.Graph()
            with self.iteration.capture():
                new_centroids, _labels, self.shift = example.kmeans_step(self.x, self.centroids)
                self.centroids[...] = new_centroids
            self.finish = npx.Graph()
            with self.finish.capture():
                distances = example.squared_distances(self.x, self.centroids)
                self.labels = npx.argmin(distances, axis=1)
                self.inertia = npx.sum(npx.min(distances, axis=1))

    def upload(self, data, initial):
        self.pinned[...] = data
        with self.stream:
            self.x[...] = self.pinned            # asynchronous: pinned source
            self.centroids[...] = initial

    def step(self, tol):
        """One replayed iteration and the read-back of its shift: whether it converged."""
        self.iteration.replay(self.stream)
        return self.converged(tol)

    def converged(self, tol):
        """Reads back the latest replay's shift (waiting for that replay): whether <= tol."""
        return float(self.shift.to_host(stream=self.stream, out=self.host_shift)) <= tol

    def results(self):
        self.finish.replay(self.stream)
        total = float(self.inertia.to_host(stream=self.stream))
        return self.labels.to_host(stream=self.stream), total

    def run(self, data, initial, max_iter, tol):
        """(labels, inertia, iterations), as example.kmeans_npu returns them."""
        self.upload(data, initial)
        for iteration in range(1, max_iter + 1):
            if self.step(tol):
                break
        return (*self.results(), iteration)

    def run_timed(self, data, initial, max_iter, tol):
        """run() with its phases timed on the host, in seconds: upload, the replay calls,
        the read-backs (which wait for the replays) and the final results."""
        clock = time.perf_counter
        phases = dict.fromkeys(("upload", "replay calls", "read-backs", "results"), 0.0)
        start = clock()
        self.upload(data, initial)
        phases["upload"] = clock() - start
        for iteration in range(1, max_iter + 1):
            start = clock()
            self.iteration.replay(self.stream)
            replayed = clock()
            converged = self.converged(tol)
            phases["replay calls"] += replayed - start
            phases["read-backs"] += clock() - replayed
            if converged:
                break
        start = clock()
        self.results()
        phases["results"] = clock() - start
        return phases, iteration

    def replay_device_time(self):
        """Seconds between events recorded before and after one replay: the device's time
        for an iteration, without the host's launch and read-back."""
        begin, end = npx.Event(timing=True), npx.Event(timing=True)
        self.stream.record(begin)
        self.iteration.replay(self.stream)
        self.stream.record(end)
        end.synchronize()
        return begin.elapsed_time(end) / 1e3

    def destroy(self):
        self.iteration.destroy()
        self.finish.destroy()


def _kmeans(harness):
    try:
        from sklearn.datasets import load_digits
    except ImportError:
        print("    skipped k-means: scikit-learn is not installed (the examples extra)")
        return
    example = _example()
    data = load_digits().data.astype(np.float32)
    initial = data[np.random.default_rng(0).choice(len(data), 10, replace=False)]
    _kmeans_iteration(harness, example, data, initial)
    start = time.perf_counter()
    graph = GraphKMeans(example, data.shape, len(initial))
    capture_time = time.perf_counter() - start
    eager_labels, eager_inertia, iterations = example.kmeans_npu(data, initial, 100, 0.0)
    graph_labels, graph_inertia, graph_iterations = graph.run(data, initial, 100, 0.0)
    assert graph_iterations == iterations and np.array_equal(graph_labels, eager_labels)
    np.testing.assert_allclose(graph_inertia, eager_inertia, rtol=1e-5)
    case = "k-means digits, k=10, %d iters" % iterations
    eager = harness.compare(case + ", eager", {
        "npuarray": lambda: example.kmeans_npu(data, initial, 100, 0.0),
        "numpy": lambda: example.kmeans_numpy(data, initial, 100, 0.0)}, repeat=5,
        target=_targets.KMEANS_EAGER)
    replayed = harness.compare(case + ", graph", {
        "npuarray": lambda: graph.run(data, initial, 100, 0.0),
        "numpy": lambda: example.kmeans_numpy(data, initial, 100, 0.0)}, repeat=5,
        target=_targets.KMEANS_GRAPH)
    print("    whole run: eager %.1f ms, with the iteration replayed %.1f ms (%.1fx); the two "
          "graphs were captured once in %.1f ms" % (
              eager["npuarray"] * 1e3, replayed["npuarray"] * 1e3,
              eager["npuarray"] / replayed["npuarray"], capture_time * 1e3))
    _kmeans_breakdown(harness, graph, data, initial, iterations)
    graph.destroy()


def _kmeans_breakdown(harness, graph, data, initial, iterations):
    """Where a graph run's time goes: host time of each phase (best of a few runs, per
    phase) against the device time of the replays (events around one replay)."""
    harness.settle()
    runs = [graph.run_timed(data, initial, 100, 0.0)[0] for _ in range(5)]
    best = {phase: min(run[phase] for run in runs) for phase in runs[0]}
    device = min(graph.replay_device_time() for _ in range(5))
    graph.stream.synchronize()
    print("    graph run, best of 5 per phase: upload %.3f ms, %d replay calls %.3f ms, "
          "%d read-backs %.3f ms (device time of the replays %.3f ms), results %.3f ms" % (
              best["upload"] * 1e3, iterations, best["replay calls"] * 1e3, iterations,
              best["read-backs"] * 1e3, iterations * device * 1e3, best["results"] * 1e3))


def _kmeans_iteration(harness, example, data, initial):
    stream = npx.Stream()
    with stream:
        x, centroids = npx.asarray(data), npx.asarray(initial)
        graph = npx.Graph()
        with graph.capture():
            new_centroids, _labels, _shift = example.kmeans_step(x, centroids)
            centroids[...] = new_centroids
        start = npx.asarray(initial)

    def eager():
        with stream:
            example.kmeans_step(x, start)
        stream.synchronize()

    def replay():
        graph.replay(stream)
        stream.synchronize()

    def numpy_step():
        numpy_kmeans_step(data, initial)

    case = "k-means one iteration (digits, k=10)"
    eager_time = harness.compare(case + ", eager", {"npuarray": eager, "numpy": numpy_step})
    replay_time = harness.compare(case + ", replay",
                                  {"npuarray": replay, "numpy": numpy_step})
    print("    per iteration: eager %.3f ms, replay %.3f ms (%.1fx)" % (
        eager_time["npuarray"] * 1e3, replay_time["npuarray"] * 1e3,
        eager_time["npuarray"] / replay_time["npuarray"]))
    graph.destroy()
