"""Adversarial: fork() after the parent used a device.

The child of fork() has the runtime's memory but not its threads: using npuarray
there raises a clear RuntimeError naming the "spawn" start method, and a child
that does not use it exits normally even when the parent had work queued.
Each scenario runs in a subprocess with a timeout, so a regression is a failure,
never a hung test run.
"""
import multiprocessing
import textwrap

import numpy as np

import npuarray as npx

PARENT = textwrap.dedent("""
    import os, sys
    import numpy as np
    import npuarray as npx
    x = npx.asarray(np.arange(10.0))
    big = npx.asarray(np.random.default_rng(0).random((384, 384)))
    with npx.Stream():
        for _ in range(20):
            big @ big                      # the parent has work queued at fork time
""")


def test_child_using_npuarray_after_fork_raises_runtime_error(run_python):
    result = run_python(PARENT + textwrap.dedent("""
        pid = os.fork()
        if pid == 0:
            try:
                float(npx.sum(x))
            except RuntimeError as exc:
                print("child:", exc)
                os._exit(3)
            os._exit(0)
        _, status = os.waitpid(pid, 0)
        print("exit", os.waitstatus_to_exitcode(status))
        print("parent", float(npx.sum(x)))  # the parent is unaffected
    """), timeout=60)
    assert result.returncode == 0, result.stderr
    assert "exit 3" in result.stdout
    assert "fork()" in result.stdout and "'spawn'" in result.stdout
    assert "parent 45.0" in result.stdout


def test_child_not_using_npuarray_exits_normally(run_python):
    result = run_python(PARENT + textwrap.dedent("""
        pid = os.fork()
        if pid == 0:
            print("child done", flush=True)
            sys.exit(0)                    # runs atexit handlers: they must not wait
        _, status = os.waitpid(pid, 0)
        print("exit", os.waitstatus_to_exitcode(status))
    """), timeout=60)
    assert result.returncode == 0, result.stderr
    assert "child done" in result.stdout and "exit 0" in result.stdout
    assert "Exception ignored" not in result.stderr


def test_child_dropping_parent_arrays_exits_normally(run_python):
    result = run_python(PARENT + textwrap.dedent("""
        pid = os.fork()
        if pid == 0:
            del x, big                      # finalizers of the parent's objects
            import gc; gc.collect()
            sys.exit(0)
        _, status = os.waitpid(pid, 0)
        print("exit", os.waitstatus_to_exitcode(status))
    """), timeout=60)
    assert result.returncode == 0, result.stderr
    assert "exit 0" in result.stdout
    assert "Exception ignored" not in result.stderr


def test_multiprocessing_fork_worker_gets_a_clear_error(run_python):
    result = run_python(PARENT + textwrap.dedent("""
        import multiprocessing

        def work(_):
            return float(npx.sum(x))

        with multiprocessing.get_context("fork").Pool(1) as pool:
            try:
                pool.map(work, [0])
            except RuntimeError as exc:
                print("worker:", exc)
    """), timeout=60)
    assert result.returncode == 0, result.stderr
    assert "worker: npuarray cannot be used in a process created by fork()" in result.stdout


def _spawned_sum(values):
    import npuarray as npx  # a fresh interpreter: its own runtime
    return float(npx.sum(npx.asarray(values) * 2))


def test_multiprocessing_spawn_works(rng):
    npx.sum(npx.asarray([1.0]))  # this process has used a device
    data = [rng.random(100) for _ in range(2)]
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        results = pool.map(_spawned_sum, data)
    np.testing.assert_allclose(results, [np.sum(d * 2) for d in data])
