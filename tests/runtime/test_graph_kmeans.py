"""One k-means iteration of the main example (examples/digits_kmeans.py), captured into a
graph and replayed, gives the same labels and centroids as the eager loop and NumPy."""
import importlib.util
import pathlib

import numpy as np
import pytest

import npuarray as npx
from npuarray import _acl

pytest.importorskip("sklearn", reason="the example's data set needs scikit-learn")
pytestmark = [
    pytest.mark.skipif(not _acl.available("aclmdlRICaptureBegin"),
                       reason="the loaded provider has no aclmdlRICaptureBegin (graph capture)"),
    pytest.mark.timeout(240),
]

EXAMPLE = pathlib.Path(__file__).resolve().parents[2] / "examples" / "digits_kmeans.py"
ITERATIONS = 8


@pytest.fixture(scope="module")
def example():
    spec = importlib.util.spec_from_file_location("digits_kmeans", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def digits():
    from sklearn.datasets import load_digits
    data = load_digits().data.astype(np.float32)
    initial = data[np.random.default_rng(7).choice(len(data), 10, replace=False)]
    return data, initial


def eager_iterations(example, data, initial, stream):
    """Labels and centroids after each eager iteration, on the host."""
    history = []
    with stream:
        x, centroids = npx.asarray(data), npx.asarray(initial)
        for _ in range(ITERATIONS):
            centroids, labels, _shift = example.kmeans_step(x, centroids)
            history.append((labels.to_host(), centroids.to_host()))
    return history


def test_replayed_kmeans_iteration_matches_the_eager_loop(example, digits):
    data, initial = digits
    stream = npx.Stream()
    expected = eager_iterations(example, data, initial, stream)
    with stream:
        x, centroids = npx.asarray(data), npx.asarray(initial)
        graph = npx.Graph()
        with graph.capture():
            new_centroids, labels, shift = example.kmeans_step(x, centroids)
            centroids[...] = new_centroids          # the next replay starts from here
        for iteration in range(ITERATIONS):
            graph.replay()
            eager_labels, eager_centroids = expected[iteration]
            np.testing.assert_array_equal(labels.to_host(), eager_labels)
            np.testing.assert_allclose(centroids.to_host(), eager_centroids, rtol=1e-5,
                                       atol=1e-4)
            assert float(shift.to_host()) >= 0.0
    graph.destroy()


def test_replayed_kmeans_converges_like_the_eager_run_and_numpy(example, digits):
    data, initial = digits
    stream = npx.Stream()
    with stream:
        x, centroids = npx.asarray(data), npx.asarray(initial)
        graph = npx.Graph()
        with graph.capture():
            new_centroids, labels, shift = example.kmeans_step(x, centroids)
            centroids[...] = new_centroids
        for iteration in range(1, 101):
            graph.replay()
            if float(shift.to_host()) == 0.0:
                break
        final = npx.argmin(example.squared_distances(x, centroids), axis=1).to_host()
    graph.destroy()
    eager_labels, _inertia, eager_iterations_run = example.kmeans_npu(data, initial, 100, 0.0)
    assert iteration == eager_iterations_run
    np.testing.assert_array_equal(final, eager_labels)
    numpy_labels = example.kmeans_numpy(data, initial, 100, 0.0)[0]
    assert np.mean(final == numpy_labels) >= 0.999
