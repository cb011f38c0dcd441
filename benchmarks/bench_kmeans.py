"""The main example, k-means on scikit-learn's digits (examples/digits_kmeans.py):
wall time of the device run (upload from pinned memory, every iteration, one
read-back per iteration) against the same algorithm in NumPy."""
import importlib.util
import pathlib

import numpy as np

EXAMPLE = pathlib.Path(__file__).resolve().parents[1] / "examples" / "digits_kmeans.py"


def _example():
    spec = importlib.util.spec_from_file_location("digits_kmeans", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run(harness):
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
    }, repeat=5)
    print("    per iteration: npuarray %.2f ms, numpy %.2f ms" % (
        times["npuarray"] / iterations * 1e3, times["numpy"] / iterations * 1e3))
