"""Timing harness shared by the benchmarks: settling, warm-up, repetitions, a table, JSON.

A benchmark file calls ``harness.compare(case, {"npuarray": fn, "numpy": fn, "torch": fn})``
(implementations it cannot run are simply left out) and ``harness.measure(case, fn,
per_call=n)`` for single host-side costs. Rows that measure an issue's target say so with
``target=`` (a ``benchmarks._targets.Target``); the run ends with a summary of those targets.

How each library is measured, so that the ratios do not depend on the order of the runs:

* Blocks, not interleaving: each implementation of a case runs as one block, untimed
  warm-up calls then `repeat` timed ones, before the next implementation's block starts.
  The warm-up is at least `warmup` calls and at least ``WARMUP_SECONDS`` of calls: after
  an idle pause every library's first calls are slow (caches, page tables, threads asleep),
  and some code paths take several calls to reach their steady speed (a staged 1 MiB copy
  needs about seven), so a fixed count of two would time the recovery, not the library.
* Settling before each block: the harness waits (``settle``) until the process's other
  threads are idle, that is until the whole process uses less than ``SETTLE_BUSY`` of a CPU
  over a ``SETTLE_WINDOW`` of sleep, at most ``SETTLE_LIMIT`` seconds. After a NumPy matmul,
  OpenBLAS's worker threads spin for about 0.1 s before they park; on a machine with few cores
  they take the CPU from npusim's stream worker, and the same eager k-means measured right
  after NumPy's took twice as long as measured first. Settling lets the previous library's
  thread pools (OpenBLAS, OpenMP, npusim's kernel pool) go idle, whoever ran before.
* Nothing is switched off: each library keeps its default threads while it is measured, and
  its own threads' spinning or parking between its calls is part of its time.

Bandwidth-bound rows (``compare(..., traffic=bytes)``: the bytes the operation reads plus the
bytes it writes per call) are set against the machine's own copy bandwidth, measured once per
run (``copy_bandwidth``): two threads each ``numpy.copyto`` one half of a
``BANDWIDTH_BYTES`` buffer into another (NumPy releases the GIL while it copies), the best of
``BANDWIDTH_RUNS`` runs, counted as bytes read + bytes written (2 x ``BANDWIDTH_BYTES``) per
second. Such a row shows npuarray's rate as a fraction of that (best / median) and the run
ends with a summary of those fractions against ``BANDWIDTH_TARGET``.

A row keeps the median ("seconds") and the best ("best") of the timed runs, in seconds. The
median says what a user typically sees; the best is what the code costs when the machine
(shared with other processes) does not interfere. Ratios are "NumPy time / npuarray time" for
both: above 1 means npuarray is faster, 0.9 means it reaches 90 % of NumPy's speed. ``quick``
asks benchmarks for a short run (fewer repetitions, smaller cases).
"""
import json
import os
import platform
import statistics
import threading
import time

import numpy as np

from . import _targets

# Settling (see above): sleep in windows of SETTLE_WINDOW seconds until the process used less
# than SETTLE_BUSY of a CPU in one, for at most SETTLE_LIMIT seconds.
SETTLE_WINDOW = 0.01
SETTLE_BUSY = 0.05
SETTLE_LIMIT = 1.0
WARMUP_SECONDS = 0.02  # the least time of untimed calls per block (when warmup > 0)
# The machine's copy bandwidth (see above): a 2-thread copy of BANDWIDTH_BYTES, as large as the
# 16 M rows' operands (a 16 M float32 add reads and writes 192 MiB), best of BANDWIDTH_RUNS.
BANDWIDTH_BYTES = 128 << 20
BANDWIDTH_THREADS = 2
BANDWIDTH_RUNS = 7
BANDWIDTH_TARGET = 0.9  # bandwidth-bound rows reach at least this fraction of it

# PyTorch's OpenMP threads must sleep when idle: spinning after each torch call would steal
# the CPUs from the npuarray and NumPy runs measured next. Set before any benchmark imports torch.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


def synchronized(stream, fn):
    """``fn`` followed by ``stream.synchronize()``: an npuarray timing that ends when the
    device work it queued has finished."""
    def run():
        fn()
        stream.synchronize()
    return run


def torch_or_none():
    """The torch module when PyTorch is installed (the `bench` extra), else None."""
    try:
        import torch
    except ImportError:
        return None
    return torch


class Harness:
    def __init__(self, repeat=7, warmup=2, quick=False):
        self.repeat = repeat
        self.warmup = warmup
        self.quick = quick
        self.rows = []
        self.benchmark = None
        self.unsettled = 0  # blocks started while the process was still busy (SETTLE_LIMIT)
        self.bandwidth = None  # the machine's copy bandwidth in bytes/s (copy_bandwidth)

    def settle(self, limit=SETTLE_LIMIT):
        """Waits until the process's threads are idle (see the module docstring); returns the
        seconds waited. Counts in `unsettled` the waits that ended at `limit` instead."""
        start = time.perf_counter()
        while True:
            cpu, wall = time.process_time(), time.perf_counter()
            time.sleep(SETTLE_WINDOW)
            busy = (time.process_time() - cpu) / (time.perf_counter() - wall)
            now = time.perf_counter()
            if busy < SETTLE_BUSY:
                return now - start
            if now - start >= limit:
                self.unsettled += 1
                return now - start

    def samples(self, fn, repeat=None, warmup=None):
        """Wall times of `repeat` timed calls of fn() (after settling, then untimed calls:
        at least `warmup` and at least WARMUP_SECONDS of them, none for warmup=0), in
        seconds."""
        if self.quick:
            repeat = min(repeat or self.repeat, 3)
            warmup = min(1, self.warmup if warmup is None else warmup)
        self.settle()
        self._warm_up(fn, self.warmup if warmup is None else warmup)
        samples = []
        for _ in range(self.repeat if repeat is None else repeat):
            start = time.perf_counter()
            fn()
            samples.append(time.perf_counter() - start)
        return samples

    @staticmethod
    def _warm_up(fn, calls):
        if calls <= 0:
            return
        start = time.perf_counter()
        done = 0
        while done < calls or time.perf_counter() - start < WARMUP_SECONDS:
            fn()
            done += 1

    def copy_bandwidth(self):
        """The machine's copy bandwidth in bytes per second (read + written), measured on the
        first call (see the module docstring) after settling."""
        if self.bandwidth is None:
            self.settle()
            self.bandwidth = measure_copy_bandwidth(BANDWIDTH_BYTES, BANDWIDTH_THREADS,
                                                    3 if self.quick else BANDWIDTH_RUNS)
            print("    machine copy bandwidth: %.1f GB/s (%d threads, numpy.copyto of %d MiB, "
                  "bytes read + written)" % (self.bandwidth / 1e9, BANDWIDTH_THREADS,
                                             BANDWIDTH_BYTES >> 20), flush=True)
        return self.bandwidth

    def time(self, fn, repeat=None, warmup=None):
        """Median wall time of fn() in seconds."""
        return statistics.median(self.samples(fn, repeat, warmup))

    def compare(self, case, implementations, nbytes=None, repeat=None, target=None,
                traffic=None):
        """Times each implementation (name -> callable) of `case`, one block after the other;
        `nbytes` adds GB/s; `target` (a _targets.Target) marks the row as measuring it;
        `traffic` (bytes read + written per call) marks it bandwidth-bound: npuarray's rate
        is set against the machine's copy bandwidth. Returns the medians (name -> seconds)."""
        bandwidth = self.copy_bandwidth() if traffic else None
        samples = {name: self.samples(fn, repeat) for name, fn in implementations.items()}
        times = {name: statistics.median(s) for name, s in samples.items()}
        self._add(case, times, {name: min(s) for name, s in samples.items()}, nbytes, target,
                  traffic and (traffic, bandwidth))
        return times

    def measure(self, case, fn, per_call=1, repeat=None):
        """Times fn(), which performs `per_call` operations; records seconds per operation
        and returns the median."""
        samples = self.samples(fn, repeat)
        seconds = statistics.median(samples) / per_call
        self._add(case, {"npuarray": seconds}, {"npuarray": min(samples) / per_call}, None)
        return seconds

    def host_cpu(self, case, fn, per_call=1):
        """The calling thread's CPU time per operation of fn(), which performs `per_call`
        operations (its own work: Python layers, the aclnn phases, waking the stream; not
        the worker's kernels, not the time the machine gives to other processes); records
        the median and returns (best, median) in seconds."""
        samples = []
        self.settle()
        for _ in range(3 if self.quick else 7):
            start = time.thread_time()
            fn()
            samples.append((time.thread_time() - start) / per_call)
        best, median = min(samples), statistics.median(samples)
        self._add(case, {"npuarray": median}, {"npuarray": best}, None)
        return best, median

    def _add(self, case, times, best, nbytes, target=None, bound=None):
        row = {"benchmark": self.benchmark, "case": case, "seconds": times, "best": best}
        if target is not None:
            row["target"] = target.key
        if bound and times.get("npuarray", 0) > 0:
            traffic, bandwidth = bound
            row["traffic"] = traffic
            row["of_copy_bandwidth"] = {"best": traffic / best["npuarray"] / bandwidth,
                                        "median": traffic / times["npuarray"] / bandwidth}
        if nbytes:
            row["nbytes"] = nbytes
            row["GB/s"] = {name: nbytes / t / 1e9 for name, t in times.items() if t > 0}
        for other in ("numpy", "torch"):
            if other in times and times.get("npuarray", 0) > 0:
                row["ratio_vs_" + other] = times[other] / times["npuarray"]
                row["best_ratio_vs_" + other] = best[other] / best["npuarray"]
        self.rows.append(row)
        print(self._format(row), flush=True)

    def summary(self):
        """The targets measured by this run's rows, as text (empty when none was)."""
        text = "\n".join(t for t in (_targets.format_summary(_targets.summarize(self.rows)),
                                      self.bandwidth_summary()) if t)
        if text and self.unsettled:
            text += ("\n%d blocks started before the process was idle (after %.1f s of "
                     "settling): their rows are less reliable" % (self.unsettled, SETTLE_LIMIT))
        return text

    def bandwidth_summary(self):
        """The bandwidth-bound rows of this run against the machine's copy bandwidth, as
        text (empty when the run had none)."""
        rows = [row for row in self.rows if "of_copy_bandwidth" in row]
        if not rows:
            return ""
        out = ["bandwidth-bound rows: npuarray's bytes read + written per second as a fraction "
               "of the machine's %d-thread copy bandwidth, %.1f GB/s (target >= %d %%)"
               % (BANDWIDTH_THREADS, self.bandwidth / 1e9, BANDWIDTH_TARGET * 100),
               "%-54s %7s %7s  %s" % ("row", "best", "median", "status")]
        for row in rows:
            share = row["of_copy_bandwidth"]
            status = _targets.MET if share["median"] >= BANDWIDTH_TARGET else \
                _targets.BEST_ONLY if share["best"] >= BANDWIDTH_TARGET else _targets.NOT_MET
            out.append("%-54s %6.0f%% %6.0f%%  %s" % (
                ("%s: %s" % (row["benchmark"], row["case"].strip()))[:54],
                share["best"] * 100, share["median"] * 100, status))
        return "\n".join(out)

    @staticmethod
    def header():
        return "%-44s %21s %21s %12s %13s %10s %8s %9s  %s" % (
            "case", "npuarray best/median", "numpy best/median", "torch", "np/npx b/m",
            "torch/npx", "npx GB/s", "%bw b/m", "target")

    @staticmethod
    def _format(row):
        def duration(t):
            return "%.3fms" % (t * 1e3) if t >= 1e-4 else "%.2fus" % (t * 1e6)

        def cell(name):
            t = row["seconds"].get(name)
            return "-" if t is None else "%s/%s" % (duration(row["best"][name]), duration(t))

        ratio_np = row.get("ratio_vs_numpy")
        ratio_torch = row.get("ratio_vs_torch")
        rate = row.get("GB/s", {}).get("npuarray")
        target = _targets.BY_KEY.get(row.get("target"))
        share = row.get("of_copy_bandwidth")
        line = "%-44s %21s %21s %12s %13s %10s %8s %9s  %s" % (
            row["case"][:44], cell("npuarray"), cell("numpy"),
            duration(row["seconds"]["torch"]) if "torch" in row["seconds"] else "-",
            "%.2f/%.2fx" % (row["best_ratio_vs_numpy"], ratio_np) if ratio_np else "-",
            "%.2fx" % ratio_torch if ratio_torch else "-",
            "%.2f" % rate if rate else "-",
            "%.0f/%.0f%%" % (share["best"] * 100, share["median"] * 100) if share else "-",
            _targets.bound_text(target) if target else "")
        return line.rstrip()

    def write_json(self, path):
        """Writes the rows to `path`, keeping the rows of benchmarks this run did not repeat."""
        import npuarray
        info = npuarray.backend()
        rows = self._previous_rows(path) + self.rows
        payload = {
            "backend": {"name": info.name, "version": list(info.version)},
            "machine": {"cpus": os.cpu_count(), "platform": platform.platform(),
                        "python": platform.python_version()},
            "repeat": self.repeat, "warmup": self.warmup, "quick": self.quick,
            "warmup_seconds": WARMUP_SECONDS,
            "settle": {"window": SETTLE_WINDOW, "busy": SETTLE_BUSY, "limit": SETTLE_LIMIT,
                       "unsettled_blocks": self.unsettled},
            "copy_bandwidth": None if self.bandwidth is None else {
                "GB/s": self.bandwidth / 1e9, "threads": BANDWIDTH_THREADS,
                "bytes": BANDWIDTH_BYTES, "target_fraction": BANDWIDTH_TARGET,
                "method": "numpy.copyto of one half per thread, best run, "
                          "(bytes read + bytes written) / seconds"},
            "rows": rows,
        }
        with open(path, "w") as f:
            json.dump(payload, f, indent=1)

    def _previous_rows(self, path):
        try:
            with open(path) as f:
                previous = json.load(f).get("rows", [])
        except (OSError, ValueError):
            return []
        measured = {row["benchmark"] for row in self.rows}
        return [row for row in previous if row.get("benchmark") not in measured]


def measure_copy_bandwidth(nbytes, threads, runs):
    """Bytes read + written per second by `threads` threads each copying (numpy.copyto) its
    share of an `nbytes` buffer into another: the best of `runs` runs after one untimed run
    (which also faults the pages in). The threads start once and wait at a barrier, so a
    run times the copies, not thread creation."""
    src = np.ones(nbytes, np.uint8)
    dst = np.zeros(nbytes, np.uint8)
    bounds = np.linspace(0, nbytes, threads + 1).astype(int)
    start, finish = threading.Barrier(threads + 1), threading.Barrier(threads + 1)

    def work(index):
        lo, hi = bounds[index], bounds[index + 1]
        for _ in range(runs + 1):
            start.wait()
            np.copyto(dst[lo:hi], src[lo:hi])
            finish.wait()

    workers = [threading.Thread(target=work, args=(i,), daemon=True) for i in range(threads)]
    for worker in workers:
        worker.start()
    best = float("inf")
    for run in range(runs + 1):
        begin = time.perf_counter()
        start.wait()
        finish.wait()
        if run:
            best = min(best, time.perf_counter() - begin)
    for worker in workers:
        worker.join()
    return 2 * nbytes / best
