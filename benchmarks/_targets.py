"""The performance targets the benchmarks check, and the summary of a run against them.

Each target is one row of an issue's "Measure" table. A benchmark tags the rows that measure
a target (``harness.compare(case, impls, target=targets.ADD_16M)``); a target may have several
rows (pinned 1 MiB copies: H2D and D2H, synchronous and asynchronous), and it is met only
when every one of them is. ``summarize`` computes the summary from a run's rows alone, so a
target whose rows did not run (another benchmark, ``--quick``) is left out.

Two kinds of target, each stated the way the issue states it:

* ``speedup``: NumPy's time / npuarray's time must be at least ``bound`` (the row's ratio);
* ``slowdown``: npuarray's time / NumPy's time must be at most ``bound`` (the inverse).

A row's status compares its median and its best run with the bound: ``met`` when the median
meets it, ``best only`` when only the best run does (the code can, the shared machine did
not let it in a typical run), ``not met`` otherwise.
"""
from collections import namedtuple

LABEL_WIDTH = 40
ROW_WIDTH = 54  # "benchmark: case"

# group: the set of targets set together (small ops, float64, speed, random), shown in the summary
Target = namedtuple("Target", "key group label kind bound")

MET, BEST_ONLY, NOT_MET = "met", "best only", "not met"
_RANK = {MET: 0, BEST_ONLY: 1, NOT_MET: 2}

# Labels at most LABEL_WIDTH characters; the bound says which ratio (bound_text).
ADD_1K_SYNC = Target("add-1k-sync", "small ops", "1 K add + synchronise", "slowdown", 8.0)
DEPENDENT_ADD = Target("dependent-add", "small ops", "dependent 16-element add, per op", "slowdown", 5.0)
KMEANS_EAGER = Target("kmeans-eager", "small ops", "digits k-means, eager", "speedup", 1.0)
KMEANS_GRAPH = Target("kmeans-graph", "small ops", "digits k-means, graph-replayed", "speedup", 1.5)
ADD_16M = Target("add-16m", "small ops", "16 M float32 add", "speedup", 2.0)
SUM_16M = Target("sum-16m", "small ops", "16 M float32 sum", "speedup", 1.8)
MATMUL_1024 = Target("matmul-1024", "small ops", "matmul 1024^2 float32", "speedup", 1.0)
PINNED_1MIB = Target("pinned-1mib", "small ops", "pinned H2D / D2H 1 MiB vs numpy.copyto", "speedup", 0.8)
STAGED_64MIB = Target("staged-64mib", "small ops", "staged pageable async 64 MiB vs copyto", "speedup",
                      0.8)
REPLAY_PER_OP = Target("replay-per-op", "small ops", "graph replay, per op", "slowdown", 0.6)

# float64 on the integer matrix unit, device linalg and fft (bench_float64.py)
F64_MATMUL_512 = Target("f64-matmul-512", "float64", "matmul 512^2 float64", "speedup", 0.25)
F64_MATMUL_1024 = Target("f64-matmul-1024", "float64", "matmul 1024^2 float64", "speedup", 0.25)
F64_SOLVE_512 = Target("f64-solve-512", "float64", "solve 512^2 float64", "speedup", 0.5)
F64_CHOLESKY_512 = Target("f64-cholesky-512", "float64", "cholesky 512^2 float64", "speedup", 0.5)
EIGH_512 = Target("eigh-512", "float64", "eigh 512^2 float32 / float64", "speedup", 0.1)
C128_FFT_2_20 = Target("c128-fft-2-20", "float64", "fft 2^20 complex128", "speedup", 0.5)

# In the order of the table.
ALL = [ADD_1K_SYNC, DEPENDENT_ADD, KMEANS_EAGER, KMEANS_GRAPH, ADD_16M, SUM_16M, MATMUL_1024,
       PINNED_1MIB, STAGED_64MIB, REPLAY_PER_OP]
# numpy.random on the device: each row at least as fast as NumPy (and PyTorch CPU).
RANDOM_NORMAL_16M = Target("random-normal-16m", "random", "standard_normal 16 M float32", "speedup", 1.0)
RANDOM_RANDOM_16M = Target("random-random-16m", "random", "random 16 M float32", "speedup", 1.0)
RANDOM_INTEGERS_16M = Target("random-integers-16m", "random", "integers 16 M int64", "speedup", 1.0)
RANDOM_PERMUTATION_1M = Target("random-permutation-1m", "random", "permutation 1 M", "speedup", 1.0)
ALL += [RANDOM_NORMAL_16M, RANDOM_RANDOM_16M, RANDOM_INTEGERS_16M, RANDOM_PERMUTATION_1M]
ALL += [F64_MATMUL_512, F64_MATMUL_1024, F64_SOLVE_512, F64_CHOLESKY_512, EIGH_512, C128_FFT_2_20]
# Single-precision FFTs (bench_fft.py): at least NumPy's speed (PyTorch's MKL: >= 0.5, read
# from the row's PyTorch column).
FFT_C64_2_20 = Target("fft-c64-2-20", "speed", "fft 2^20 complex64", "speedup", 1.0)
FFT_C64_ROWS = Target("fft-c64-rows", "speed", "fft 1024x1024 complex64 rows", "speedup", 1.0)
ALL += [FFT_C64_2_20, FFT_C64_ROWS]
# mid-size element-wise and reductions (bench_ops.py, bench_kmeans.py): at least NumPy's speed
# (the table's torch column shows PyTorch's, the other bound).
TANH_16M_OUT = Target("tanh-16m-out", "speed", "tanh 16 M float32 into out=", "speedup", 1.0)
SCALE_1797X64 = Target("scale-1797x64", "speed", "x * 2.5 (1797,64) float32", "speedup", 1.0)
ASTYPE_1797X64 = Target("astype-1797x64", "speed", "astype float32 -> float64 (1797,64)", "speedup",
                        1.0)
MATMUL_SKINNY = Target("matmul-1797x64-64x10", "speed", "x @ c.T (1797,64) @ (64,10)", "speedup", 1.0)
SUM_SQUARES_10X64 = Target("sum-squares-10x64", "speed", "sum(c * c, axis=1) (10,64)", "speedup", 1.0)
ALL += [TANH_16M_OUT, SCALE_1797X64, ASTYPE_1797X64, MATMUL_SKINNY, SUM_SQUARES_10X64]
# float32 factorisations (bench_linalg.py): at least NumPy's speed (and 0.8x PyTorch's MKL,
# read from the row's torch/npx column).
CHOLESKY_512 = Target("cholesky-512", "speed", "cholesky 512^2 float32", "speedup", 1.0)
SOLVE_512 = Target("solve-512", "speed", "solve 512^2 float32", "speedup", 1.0)
QR_512 = Target("qr-512", "speed", "qr 512^2 float32", "speedup", 1.0)
ALL += [CHOLESKY_512, SOLVE_512, QR_512]
# Order statistics on 16 M float32 (bench_numpy.py): at least as fast as NumPy (and PyTorch CPU).
MEDIAN_16M = Target("median-16m", "speed", "median 16 M float32", "speedup", 1.0)
PERCENTILE_16M = Target("percentile-16m", "speed", "percentile [5, 50, 95] 16 M float32", "speedup",
                        1.0)
HISTOGRAM_16M = Target("histogram-16m", "speed", "histogram 100 bins 16 M float32", "speedup", 1.0)
UNIQUE_COUNTS_16M = Target("unique-counts-16m", "speed", "unique counts 16 M float32", "speedup", 1.0)
ALL += [MEDIAN_16M, PERCENTILE_16M, HISTOGRAM_16M, UNIQUE_COUNTS_16M]
# Staged pageable async copies of 1 MiB (bench_transfer.py): they move the bytes twice unless
# the stream is idle, so the staging must overlap or be nearly free.
STAGED_1MIB = Target("staged-1mib", "speed", "staged pageable async 1 MiB vs copyto", "speedup",
                     0.8)
ALL += [STAGED_1MIB]
# More single-precision FFT rows (bench_fft.py): at least NumPy's speed (PyTorch's MKL: >= 0.5,
# read from the row's torch/npx column).
RFFT_F32_ROWS = Target("rfft-f32-rows", "speed", "rfft 1024x1024 float32 rows", "speedup", 1.0)
IRFFT_C64_ROWS = Target("irfft-c64-rows", "speed", "irfft 1024x513 complex64 rows", "speedup", 1.0)
FFT2_C64_2048 = Target("fft2-c64-2048", "speed", "fft2 2048x2048 complex64", "speedup", 1.0)
ALL += [RFFT_F32_ROWS, IRFFT_C64_ROWS, FFT2_C64_2048]
# Casts and mixed-dtype element-wise (bench_elementwise.py): at least NumPy's speed (the table's
# torch column shows PyTorch's).
CAST_512 = Target("cast-512", "speed", "astype int32/float32/float64 512^2", "speedup", 1.0)
CAST_16M = Target("cast-16m", "speed", "astype int32/float32/float64 16 M", "speedup", 1.0)
SUB_F64_I32_512 = Target("sub-f64-i32-512", "speed", "float64 - int32 512^2", "speedup", 1.0)
ADD_OUT_16M = Target("add-out-16m", "speed", "add(a, b, out=) 16 M float32", "speedup", 1.0)
ALL += [CAST_512, CAST_16M, SUB_F64_I32_512, ADD_OUT_16M]
BY_KEY = {target.key: target for target in ALL}


def bound_text(target):
    """The bound in the units of the table's ratio column (np/npx) or its inverse."""
    if target.kind == "speedup":
        return "np/npx >= %g" % target.bound
    return "npx/np <= %g" % target.bound


def measured(target, row):
    """(best, median) of `row` in the target's units, or None when the row has no NumPy
    ratio (NumPy was not measured, or a time was zero)."""
    if "ratio_vs_numpy" not in row:
        return None
    best, median = row["best_ratio_vs_numpy"], row["ratio_vs_numpy"]
    if target.kind == "slowdown":
        best, median = 1.0 / best, 1.0 / median
    return best, median


def status(target, best, median):
    def meets(value):
        return value >= target.bound if target.kind == "speedup" else value <= target.bound
    if meets(median):
        return MET
    return BEST_ONLY if meets(best) else NOT_MET


Line = namedtuple("Line", "target benchmark case best median status")


def summarize(rows, targets=ALL):
    """One Line per row tagged with a target (rows of unknown targets, and rows without a
    NumPy time, are left out), in the order of `targets`, then of the rows."""
    lines = []
    for target in targets:
        for row in rows:
            if row.get("target") != target.key:
                continue
            values = measured(target, row)
            if values is not None:
                lines.append(Line(target, row.get("benchmark"), row["case"], *values,
                                  status(target, *values)))
    return lines


def verdicts(lines):
    """target -> its worst row's status: a target is met only when all its rows are."""
    worst = {}
    for line in lines:
        if line.target not in worst or _RANK[line.status] > _RANK[worst[line.target]]:
            worst[line.target] = line.status
    return worst


def format_summary(lines):
    """The summary table as text (empty when no row measured a target)."""
    if not lines:
        return ""
    groups = sorted({line.target.group for line in lines})
    out = ["targets (%s) measured by this run (met: the median meets the bound; best "
           "only: only the best run does)" % ", ".join(groups),
           "%-*s %-14s %-*s %7s %7s  %s" % (LABEL_WIDTH, "target", "bound", ROW_WIDTH, "row",
                                            "best", "median", "status")]
    previous = None
    for line in lines:
        first = line.target is not previous
        previous = line.target
        out.append("%-*s %-14s %-*s %7.2f %7.2f  %s" % (
            LABEL_WIDTH, line.target.label if first else "",
            bound_text(line.target) if first else "",
            ROW_WIDTH, ("%s: %s" % (line.benchmark, line.case.strip()))[:ROW_WIDTH],
            line.best, line.median, line.status))
    counts = list(verdicts(lines).values())
    out.append("%d of %d targets met (every row's median), %d more by the best run only, "
               "%d not met" % (counts.count(MET), len(counts), counts.count(BEST_ONLY),
                               counts.count(NOT_MET)))
    return "\n".join(out)
