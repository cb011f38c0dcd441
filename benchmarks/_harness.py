"""Timing harness shared by the benchmarks: warm-up, repetitions, a side-by-side table, JSON.

A benchmark file calls ``harness.compare(case, {"npuarray": fn, "numpy": fn, "torch": fn})``
(implementations it cannot run are simply left out) and ``harness.measure(case, fn,
per_call=n)`` for single host-side costs. Every timing is the median of `repeat` runs
after `warmup` runs, in seconds. Ratios are "NumPy time / npuarray time": above 1 means
npuarray is faster, 0.9 means it reaches 90 % of NumPy's speed.
"""
import json
import os
import platform
import statistics
import time


# PyTorch's OpenMP threads must sleep when idle: spinning after each torch call would steal
# the CPUs from the npuarray and NumPy runs measured next. Set before any benchmark imports torch.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


def torch_or_none():
    """The torch module when PyTorch is installed (the `bench` extra), else None."""
    try:
        import torch
    except ImportError:
        return None
    return torch


class Harness:
    def __init__(self, repeat=7, warmup=2):
        self.repeat = repeat
        self.warmup = warmup
        self.rows = []
        self.benchmark = None

    def time(self, fn, repeat=None, warmup=None):
        """Median wall time of fn() in seconds."""
        for _ in range(self.warmup if warmup is None else warmup):
            fn()
        samples = []
        for _ in range(self.repeat if repeat is None else repeat):
            start = time.perf_counter()
            fn()
            samples.append(time.perf_counter() - start)
        return statistics.median(samples)

    def compare(self, case, implementations, nbytes=None, repeat=None):
        """Times each implementation (name -> callable) of `case`; `nbytes` adds GB/s."""
        times = {name: self.time(fn, repeat) for name, fn in implementations.items()}
        self._add(case, times, nbytes)
        return times

    def measure(self, case, fn, per_call=1, repeat=None):
        """Times fn(), which performs `per_call` operations; records seconds per operation."""
        seconds = self.time(fn, repeat) / per_call
        self._add(case, {"npuarray": seconds}, None)
        return seconds

    def _add(self, case, times, nbytes):
        row = {"benchmark": self.benchmark, "case": case, "seconds": times}
        if nbytes:
            row["nbytes"] = nbytes
            row["GB/s"] = {name: nbytes / t / 1e9 for name, t in times.items() if t > 0}
        if "numpy" in times and "npuarray" in times and times["npuarray"] > 0:
            row["ratio_vs_numpy"] = times["numpy"] / times["npuarray"]
        if "torch" in times and "npuarray" in times and times["npuarray"] > 0:
            row["ratio_vs_torch"] = times["torch"] / times["npuarray"]
        self.rows.append(row)
        print(self._format(row), flush=True)

    @staticmethod
    def header():
        return "%-44s %12s %12s %12s %10s %10s %9s" % (
            "case", "npuarray", "numpy", "torch", "np/npx", "torch/npx", "npx GB/s")

    @staticmethod
    def _format(row):
        def cell(name):
            t = row["seconds"].get(name)
            if t is None:
                return "-"
            return "%.3f ms" % (t * 1e3) if t >= 1e-4 else "%.2f us" % (t * 1e6)
        ratio_np = row.get("ratio_vs_numpy")
        ratio_torch = row.get("ratio_vs_torch")
        rate = row.get("GB/s", {}).get("npuarray")
        return "%-44s %12s %12s %12s %10s %10s %9s" % (
            row["case"][:44], cell("npuarray"), cell("numpy"), cell("torch"),
            "%.2fx" % ratio_np if ratio_np else "-",
            "%.2fx" % ratio_torch if ratio_torch else "-",
            "%.2f" % rate if rate else "-")

    def write_json(self, path):
        """Writes the rows to `path`, keeping the rows of benchmarks this run did not repeat."""
        import npuarray
        info = npuarray.backend()
        rows = self._previous_rows(path) + self.rows
        payload = {
            "backend": {"name": info.name, "version": list(info.version)},
            "machine": {"cpus": os.cpu_count(), "platform": platform.platform(),
                        "python": platform.python_version()},
            "repeat": self.repeat, "warmup": self.warmup,
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
