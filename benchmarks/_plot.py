"""One picture of a benchmark run: every row's time ratio against NumPy and PyTorch CPU.

Each row with a NumPy or PyTorch time is one line of the chart, labelled "benchmark: case";
its median ratio (the other library's time / npuarray's time: right of 1 means npuarray is
faster) is a filled marker, its best-run ratio a hollow one of the same shape, on a log scale.
A row that measures a target (``benchmarks._targets``) has the target's bound drawn as a red
bar in the same units (a "slowdown" bound of at most b times NumPy's time is a ratio of 1/b).
Rows come from a run (``Harness.rows``) or from a results file (``load_rows``). Needs
matplotlib (the `bench` extra); the image is drawn off-screen (the Agg backend).
"""
import json

import matplotlib

matplotlib.use("Agg")  # off-screen: no display is needed or used
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)

from . import _targets  # noqa: E402

LIBRARIES = (("numpy", "NumPy", "o", "tab:blue"), ("torch", "PyTorch CPU", "s", "tab:orange"))
ROW_INCHES = 0.24  # height of one row of the chart
MIN_RATIO, MAX_RATIO = 0.1, 10.0  # the axis covers at least this range


def load_rows(path):
    """The rows of a results file written by ``Harness.write_json``. ValueError when the
    file is not such a file (OSError when it cannot be read)."""
    with open(path) as f:
        try:
            payload = json.load(f)
        except ValueError as error:
            raise ValueError("%s is not a benchmark results file (JSON): %s" % (path, error))
    rows = payload.get("rows") if isinstance(payload, dict) else None
    if not isinstance(rows, list):
        raise ValueError("%s has no list of rows: not a benchmark results file" % path)
    return rows


def plotted_rows(rows):
    """The rows that have a ratio against NumPy or PyTorch, in their order."""
    return [row for row in rows
            if any("ratio_vs_" + name in row for name, *_ in LIBRARIES)]


def bound_ratio(target):
    """The target's bound as a ratio other / npuarray (what the chart's axis shows)."""
    return target.bound if target.kind == "speedup" else 1.0 / target.bound


def plot(rows, path, title="npuarray: time ratios (other library / npuarray; > 1: faster)"):
    """Writes a PNG chart of `rows` (see the module docstring) to `path`; returns the number
    of rows drawn. ValueError when no row has a ratio to draw."""
    rows = plotted_rows(rows)
    if not rows:
        raise ValueError("no row has a ratio against NumPy or PyTorch: nothing to plot")
    height = max(3.0, 1.5 + ROW_INCHES * len(rows))
    figure, axes = plt.subplots(figsize=(11, height))
    try:
        positions = range(len(rows))[::-1]  # the first row at the top
        values = []
        for name, label, marker, colour in LIBRARIES:
            ys, medians, bests = [], [], []
            for y, row in zip(positions, rows):
                if "ratio_vs_" + name in row:
                    ys.append(y)
                    medians.append(row["ratio_vs_" + name])
                    bests.append(row["best_ratio_vs_" + name])
            axes.scatter(medians, ys, marker=marker, color=colour, s=22, zorder=3,
                         label=label + " (median)")
            axes.scatter(bests, ys, marker=marker, facecolors="none", edgecolors=colour, s=22,
                         zorder=3, label=label + " (best run)")
            values += medians + bests
        bounds = [(y, bound_ratio(_targets.BY_KEY[row["target"]]))
                  for y, row in zip(positions, rows) if row.get("target") in _targets.BY_KEY]
        if bounds:
            axes.scatter([b for _, b in bounds], [y for y, _ in bounds], marker="|", s=160,
                         color="tab:red", linewidths=2, zorder=2, label="target's bound")
            values += [b for _, b in bounds]
        axes.axvline(1.0, color="black", linewidth=0.8)
        positive = [v for v in values if v > 0]
        axes.set_xscale("log")
        axes.set_xlim(min([MIN_RATIO] + positive) / 1.5, max([MAX_RATIO] + positive) * 1.5)
        axes.set_yticks(list(positions))
        axes.set_yticklabels(["%s: %s" % (row.get("benchmark"), row["case"].strip())
                              for row in rows], fontsize=7)
        axes.set_ylim(-1, len(rows))
        axes.grid(axis="x", which="both", alpha=0.3)
        axes.set_xlabel("time ratio, other library / npuarray (log scale)")
        axes.set_title(title, fontsize=10)
        axes.legend(loc="lower right", fontsize=7)
        figure.tight_layout()
        figure.savefig(path, format="png", dpi=100)
    finally:
        plt.close(figure)
    return len(rows)
