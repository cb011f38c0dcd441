"""python -m benchmarks [name ...] [--repeat N] [--warmup N] [--quick] [--output PATH]
                        [--plot [PNG]] [--from-json [JSON]]

Runs every ``benchmarks/bench_<name>.py`` (or only the named ones), each exposing
``run(harness)``, prints one table of npuarray against NumPy and PyTorch CPU (when
installed) measured in the same run, and writes the results to
``benchmarks/results.json`` (keeping there the results of the benchmarks not run).
Each row gives the best and the median of the timed runs. Each library's runs of a case
are one block (warm-up, then timed runs), started once the process's threads are idle
(see ``_harness``), so that no library is timed while another's thread pool still spins.
Rows that measure an issue's target show its bound, and the run ends with a summary of
those targets (``_targets``): each row's best and median ratio and whether it meets the
bound. ``--quick`` runs every benchmark in under a minute: at most 3 timed runs per
case, and the benchmarks skip or shrink their largest cases; its results go to
``benchmarks/results-quick.json`` unless ``--output`` says otherwise, so they never
replace a full run's.

Bandwidth-bound rows (16 M add and sum, copies of >= 64 MiB) are also set against the
machine's copy bandwidth, measured once per run as a 2-thread ``numpy.copyto`` (bytes read +
written per second): the table's "%bw" column and a summary at the end (target >= 90 %).

``--plot [PNG]`` draws every row's time ratio against NumPy and PyTorch (log scale, each
target's bound marked; ``benchmarks/_plot.py``) into PNG (default ``benchmarks/results.png``,
or ``results-quick.png`` with ``--quick``), from the rows of the run just done. With
``--from-json [JSON]`` no benchmark runs: the chart is drawn from the rows of the results file
JSON (default: the file ``--output`` names, i.e. ``benchmarks/results.json``). Plotting needs
matplotlib (the ``bench`` extra).
"""
import argparse
import glob
import importlib
import os
import sys

from ._harness import Harness

HERE = os.path.dirname(os.path.abspath(__file__))


def discover():
    return sorted(os.path.basename(p)[len("bench_"):-len(".py")]
                  for p in glob.glob(os.path.join(HERE, "bench_*.py")))


def main(argv=None):
    available = discover()
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("names", nargs="*", help="benchmarks to run (default: all of %s)"
                        % ", ".join(available))
    parser.add_argument("--repeat", type=int, default=7, help="timed runs per case (median)")
    parser.add_argument("--warmup", type=int, default=2, help="untimed runs per case first")
    parser.add_argument("--quick", action="store_true",
                        help="a short run (under a minute): fewer runs, smaller cases")
    parser.add_argument("--output", default=None,
                        help="JSON file (default: benchmarks/results.json, or "
                        "benchmarks/results-quick.json with --quick)")
    parser.add_argument("--plot", nargs="?", const=True, default=None, metavar="PNG",
                        help="draw every row's ratio against NumPy and PyTorch into PNG "
                        "(default: benchmarks/results.png, results-quick.png with --quick)")
    parser.add_argument("--from-json", nargs="?", const=True, default=None, metavar="JSON",
                        help="with --plot: run no benchmark, plot the rows of JSON "
                        "(default: the --output file)")
    args = parser.parse_args(argv)
    output = args.output or os.path.join(
        HERE, "results-quick.json" if args.quick else "results.json")
    unknown = sorted(set(args.names) - set(available))
    if unknown:
        parser.error("unknown benchmark(s) %s; available: %s"
                     % (", ".join(unknown), ", ".join(available)))
    plotter = _plotter(parser) if args.plot is not None else None  # before a long run
    if args.from_json is not None:
        if args.plot is None:
            parser.error("--from-json only selects the rows --plot draws; add --plot")
        if args.names:
            parser.error("--from-json runs no benchmark; drop the names %s"
                         % ", ".join(args.names))
        source = output if args.from_json is True else args.from_json
        try:
            rows = plotter.load_rows(source)
        except (OSError, ValueError) as error:
            parser.error("cannot plot from %s: %s" % (source, error))
        return _draw(parser, plotter, rows, _png_path(args))
    harness = Harness(repeat=args.repeat, warmup=args.warmup, quick=args.quick)
    print(Harness.header())
    for name in args.names or available:
        module = importlib.import_module("benchmarks.bench_" + name)
        harness.benchmark = name
        print("-- %s" % name, flush=True)
        module.run(harness)
    summary = harness.summary()
    if summary:
        print(summary)
    harness.write_json(output)
    print("results written to %s" % output)
    if plotter is not None:
        return _draw(parser, plotter, harness.rows, _png_path(args))
    return 0


def _png_path(args):
    if args.plot is not True:
        return args.plot
    return os.path.join(HERE, "results-quick.png" if args.quick else "results.png")


def _plotter(parser):
    """benchmarks._plot, imported only when a chart is asked for: matplotlib is optional
    (the bench extra), and a run without --plot must not need it."""
    try:
        return importlib.import_module("benchmarks._plot")
    except ImportError as error:
        parser.error("--plot needs matplotlib (pip install matplotlib, or the bench extra): %s"
                     % error)


def _draw(parser, plotter, rows, path):
    try:
        count = plotter.plot(rows, path)
    except ValueError as error:
        parser.error(str(error))
    print("plot of %d rows written to %s" % (count, path))
    return 0


if __name__ == "__main__":
    sys.exit(main())
