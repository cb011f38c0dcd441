"""python -m benchmarks [name ...] [--repeat N] [--warmup N] [--output PATH]

Runs every ``benchmarks/bench_<name>.py`` (or only the named ones), each exposing
``run(harness)``, prints one table of npuarray against NumPy and PyTorch CPU (when
installed) measured in the same run, and writes the results to
``benchmarks/results.json`` (keeping there the results of the benchmarks not run).
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
    parser.add_argument("--output", default=os.path.join(HERE, "results.json"))
    args = parser.parse_args(argv)
    unknown = sorted(set(args.names) - set(available))
    if unknown:
        parser.error("unknown benchmark(s) %s; available: %s"
                     % (", ".join(unknown), ", ".join(available)))
    harness = Harness(repeat=args.repeat, warmup=args.warmup)
    print(Harness.header())
    for name in args.names or available:
        module = importlib.import_module("benchmarks.bench_" + name)
        harness.benchmark = name
        print("-- %s" % name, flush=True)
        module.run(harness)
    harness.write_json(args.output)
    print("results written to %s" % args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
