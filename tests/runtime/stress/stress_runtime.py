"""Stress run: threads x streams x sizes x random frees and synchronisations.

    python tests/runtime/stress/stress_runtime.py [--seconds 60] [--threads 4] [--streams 6] [--seed 0]

Each thread repeatedly uploads random int32 data on a random stream of a shared set,
computes on random streams (so arrays cross streams and threads: x on one stream, x * 3 + 1
on another, a sum of two arrays made by different streams), drops random arrays while
their work may still be queued, synchronises at random, and verifies every result it reads
back against NumPy. Shared arrays are published to the other threads, which read them on
their own streams before dropping them. At the end: operations, bytes verified, wrong bytes
(must be 0), hung threads (0), leaked device and pinned bytes once every array is gone (0).
Prints one JSON line; exits 1 when any of the last three is not 0. Not part of the default
test run (tests/runtime/test_adversarial_stress.py runs a short version).
"""
import argparse
import gc
import json
import random
import threading
import time

import numpy as np

import npuarray as npx

SIZES = (1, 7, 512, 4097, 65536, 300_001)  # elements: small launch-bound to staged copies


class Totals:
    def __init__(self):
        self.lock = threading.Lock()
        self.operations = self.verified = self.wrong = 0
        self.errors = []

    def add(self, operations=0, verified=0, wrong=0):
        with self.lock:
            self.operations += operations
            self.verified += verified
            self.wrong += wrong


def check(totals, device_array, expected):
    host = device_array.to_host()
    bad = int(np.count_nonzero(host.view(np.uint8) != expected.view(np.uint8)))
    totals.add(operations=1, verified=expected.nbytes, wrong=bad)


def worker(seed, streams, shared, shared_lock, deadline, totals):
    rng = random.Random(seed)
    nrng = np.random.default_rng(seed)
    live = []  # (device array, expected host values)
    try:
        while time.monotonic() < deadline:
            action = rng.random()
            stream = rng.choice(streams)
            with stream:
                if action < 0.3 or not live:
                    data = nrng.integers(-1000, 1000, rng.choice(SIZES), dtype=np.int32)
                    live.append((npx.asarray(data), data))
                elif action < 0.55:
                    x, data = rng.choice(live)
                    live.append((x * 3 + 1, data * 3 + 1))       # read on another stream
                elif action < 0.65:
                    (x, a), (y, b) = rng.choice(live), rng.choice(live)
                    if a.shape == b.shape:
                        live.append((x + y, a + b))
                elif action < 0.72:
                    x, data = rng.choice(live)
                    x[...] = x - 5                                # a write, in stream order
                    data -= 5
                elif action < 0.80:
                    x, data = live.pop(rng.randrange(len(live)))
                    check(totals, x, data)
                elif action < 0.86:
                    with shared_lock:  # handed over: its owner no longer writes it (a
                        # write racing another thread's read is the program's race, not ours)
                        shared.append(live.pop(rng.randrange(len(live))))
                        other = shared.pop(rng.randrange(len(shared))) if len(shared) > 8 else None
                    if other is not None:                         # made by another thread
                        x, data = other
                        y = x * 2
                        del x, other                              # dropped while y may queue
                        check(totals, y, data * 2)
                elif action < 0.93:
                    del live[rng.randrange(len(live))]            # free with work queued
                elif action < 0.97:
                    stream.synchronize()
                else:
                    npx.synchronize()
            totals.add(operations=1)
            if len(live) > 24:
                x, data = live.pop(0)
                check(totals, x, data)
        for x, data in live:
            check(totals, x, data)
    except Exception as exc:  # reported as an error, never swallowed
        with totals.lock:
            totals.errors.append(f"{type(exc).__name__}: {exc}")


def run(seconds, threads, nstreams, seed):
    pool, pinned = npx.get_default_memory_pool(), npx.get_default_pinned_memory_pool()
    npx.synchronize()
    base_device, base_pinned = pool.used_bytes(), pinned.used_bytes()
    streams = [npx.Stream() for _ in range(nstreams)]
    shared, shared_lock, totals = [], threading.Lock(), Totals()
    deadline = time.monotonic() + seconds
    workers = [threading.Thread(target=worker, daemon=True,
                                args=(seed + i, streams, shared, shared_lock, deadline, totals))
               for i in range(threads)]
    for thread in workers:
        thread.start()
    for thread in workers:
        thread.join(timeout=seconds + 120)
    hung = sum(thread.is_alive() for thread in workers)
    if not hung:
        while shared:
            check(totals, *shared.pop())
        for _ in range(2):  # the first synchronisation lets queued work drop what it held
            npx.synchronize()
            gc.collect()
    return {"seconds": seconds, "threads": threads, "streams": nstreams,
            "operations": totals.operations, "bytes_verified": totals.verified,
            "wrong_bytes": totals.wrong, "hangs": hung,
            "leaked_device_bytes": pool.used_bytes() - base_device,
            "leaked_pinned_bytes": pinned.used_bytes() - base_pinned,
            "errors": totals.errors[:5]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--streams", type=int, default=6)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    report = run(args.seconds, args.threads, args.streams, args.seed)
    print(json.dumps(report))
    failed = (report["wrong_bytes"] or report["hangs"] or report["leaked_device_bytes"]
              or report["leaked_pinned_bytes"] or report["errors"])
    raise SystemExit(1 if failed else 0)


if __name__ == "__main__":
    main()
