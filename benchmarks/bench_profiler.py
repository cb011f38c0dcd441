"""The profiler's cost on the main example, k-means on scikit-learn's digits
(examples/digits_kmeans.py's ``kmeans_npu``): the same run without and inside
``npuarray.profile()``, each next to NumPy in the same row, so that the two
ratios compare on a machine whose load varies. The profiled run includes ending
the profile (synchronising the streams and recording an anchor event on each)
and dropping it unread (its log, its timing events back to the pool); the
timing events are read and the Records made when a profile is first read, timed
apart on one more run (reported beside the overhead). Each run's stream (the
example makes one per run) outlives it in the memory pool, which destroys it
during the next run, whichever that is: a profile kept until the next profiled
run would hold its stream that long instead, and that run would pay for two
stream destructions (joining a sleeping worker thread: milliseconds on a loaded
machine) against none for the unprofiled one. The overhead is then measured with
the two runs alternated, so that both see the same load of a shared machine.
Also the cost of the hooks when no profile runs: one module-attribute check per
hook site."""
import importlib.util
import pathlib
import statistics
import time

import numpy as np

EXAMPLE = pathlib.Path(__file__).resolve().parents[1] / "examples" / "digits_kmeans.py"


def _example():
    spec = importlib.util.spec_from_file_location("digits_kmeans", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _flag_checks(count):
    from npuarray.runtime import _profiler

    def run():
        for _ in range(count):
            span = _profiler.active and _profiler.begin_launch(None, (), None)
            if span:
                _profiler.end(span)
    return run


def _seconds(fn):
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def run(harness):
    import npuarray as npx
    checks = 10_000 if harness.quick else 100_000
    seconds = harness.measure("profiler hook, not profiling (per site)", _flag_checks(checks),
                              per_call=checks)
    print("    %.1f ns per hook site when no profile runs" % (seconds * 1e9))
    try:
        from sklearn.datasets import load_digits
    except ImportError:
        print("    k-means skipped: scikit-learn is not installed (the examples extra)")
        return
    example = _example()
    data = load_digits().data.astype(np.float32)
    initial = data[np.random.default_rng(0).choice(len(data), 10, replace=False)]
    iterations = example.kmeans_npu(data, initial, 100, 0.0)[2]

    def profiled():
        with npx.profile():
            example.kmeans_npu(data, initial, 100, 0.0)

    def numpy():
        example.kmeans_numpy(data, initial, 100, 0.0)

    plain = harness.compare("k-means digits (%d iters), not profiled" % iterations, {
        "npuarray": lambda: example.kmeans_npu(data, initial, 100, 0.0), "numpy": numpy},
        repeat=5)
    traced = harness.compare("k-means digits (%d iters), profiled" % iterations, {
        "npuarray": profiled, "numpy": numpy}, repeat=5)
    # The overhead itself: the two npuarray runs alternated, so that both see the same load
    # of a shared machine (the rows above are measured one after the other); back to back,
    # after one settling, so that neither pays for an idle pause before each run.
    without, inside = [], []
    harness.settle()
    for _ in range(3 if harness.quick else 15):
        without.append(_seconds(lambda: example.kmeans_npu(data, initial, 100, 0.0)))
        inside.append(_seconds(profiled))
    with npx.profile() as prof:
        example.kmeans_npu(data, initial, 100, 0.0)
    reading = _seconds(lambda: prof.records)
    print("    profiling overhead on k-means, runs alternated: best %.1f -> %.1f ms (%+.0f %%), "
          "median %.1f -> %.1f ms (%+.0f %%); %d records per run, read in %.0f us (rows "
          "above: median %.1f / %.1f ms)" % (
              min(without) * 1e3, min(inside) * 1e3, (min(inside) / min(without) - 1) * 100,
              statistics.median(without) * 1e3, statistics.median(inside) * 1e3,
              (statistics.median(inside) / statistics.median(without) - 1) * 100,
              len(prof.records), reading * 1e6, plain["npuarray"] * 1e3,
              traced["npuarray"] * 1e3))
