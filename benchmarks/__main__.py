"""python -m benchmarks [name ...] [--repeat N] [--warmup N] [--quick] [--output PATH]

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
    args = parser.parse_args(argv)
    output = args.output or os.path.join(
        HERE, "results-quick.json" if args.quick else "results.json")
    unknown = sorted(set(args.names) - set(available))
    if unknown:
        parser.error("unknown benchmark(s) %s; available: %s"
                     % (", ".join(unknown), ", ".join(available)))
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
