"""Graph capture and replay (aclmdlRI) against eager launches.

* A chain of 100 dependent elementwise operations on small arrays: eager (one
  aclnn launch per operation) vs one replay of the captured chain, per operation.
  Targets (issue 4): replay <= 1 us per operation and >= 5x faster than eager.
* One k-means iteration of the main example (examples/digits_kmeans.py) on the
  digits: eager vs replayed, per iteration.
NumPy (and PyTorch CPU when installed) run the same work in the same run.
"""
import importlib.util
import pathlib

import numpy as np

import npuarray as npx
from npuarray import _acl

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
    replay_time = harness.compare(case + ", graph replay",
                                  {"npuarray": replay, **others})["npuarray"]
    print("    per operation: eager %.2f us, replay %.3f us; replay is %.1fx faster "
          "(targets: <= 1 us, >= 5x)" % (eager_time / CHAIN_LENGTH * 1e6,
                                          replay_time / CHAIN_LENGTH * 1e6,
                                          eager_time / replay_time))
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


def kmeans_graph(example, data, initial, max_iter, tol):
    """examples/digits_kmeans.kmeans_npu with its iteration captured once and replayed:
    (labels, inertia, iterations), one read-back of the shift per iteration as there."""
    stream = npx.Stream()
    pinned = npx.empty_pinned(data.shape, data.dtype)
    pinned[...] = data
    with stream:
        x, centroids = npx.asarray(pinned), npx.asarray(initial)
        with npx.Graph() as graph:
            with graph.capture():
                new_centroids, _labels, shift = example.kmeans_step(x, centroids)
                centroids[...] = new_centroids
            for iteration in range(1, max_iter + 1):
                graph.replay()
                if float(shift.to_host()) <= tol:
                    break
        labels = npx.argmin(example.squared_distances(x, centroids), axis=1)
        total = float(example.inertia(x, centroids).to_host())
        return labels.to_host(), total, iteration


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
    eager_labels, _, iterations = example.kmeans_npu(data, initial, 100, 0.0)
    graph_labels, _, graph_iterations = kmeans_graph(example, data, initial, 100, 0.0)
    assert graph_iterations == iterations and np.array_equal(graph_labels, eager_labels)
    case = "k-means digits, k=10, %d iters" % iterations
    eager = harness.compare(case + ", eager", {
        "npuarray": lambda: example.kmeans_npu(data, initial, 100, 0.0),
        "numpy": lambda: example.kmeans_numpy(data, initial, 100, 0.0)}, repeat=5)
    replayed = harness.compare(case + ", graph", {
        "npuarray": lambda: kmeans_graph(example, data, initial, 100, 0.0),
        "numpy": lambda: example.kmeans_numpy(data, initial, 100, 0.0)}, repeat=5)
    print("    whole run: eager %.1f ms, with the iteration replayed %.1f ms (%.1fx)" % (
        eager["npuarray"] * 1e3, replayed["npuarray"] * 1e3,
        eager["npuarray"] / replayed["npuarray"]))


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

    case = "k-means iteration, digits 1797x64, k=10"
    eager_time = harness.compare(case + ", eager", {"npuarray": eager, "numpy": numpy_step})
    replay_time = harness.compare(case + ", graph replay",
                                  {"npuarray": replay, "numpy": numpy_step})
    print("    per iteration: eager %.3f ms, replay %.3f ms (%.1fx)" % (
        eager_time["npuarray"] * 1e3, replay_time["npuarray"] * 1e3,
        eager_time["npuarray"] / replay_time["npuarray"]))
    graph.destroy()
