"""Shared pytest fixtures: fresh random data, raw-binding threads, subprocesses with env vars,
blocked streams."""
import os
import subprocess
import sys
import threading
import zlib

import numpy as np
import pytest

import npuarray
from npuarray._core import _ops, _ozaki


def pytest_report_header(config):
    info = npuarray.backend()
    return ["npuarray %s (backend %s %s)" % (os.path.dirname(npuarray.__file__), info.name,
                                             ".".join(map(str, info.version)))]


@pytest.fixture
def rng(request):
    """A NumPy Generator seeded from the test's name: fresh, non-trivial, reproducible data."""
    return np.random.default_rng(zlib.crc32(request.node.nodeid.encode()))


@pytest.fixture
def random_bytes(rng):
    """random_bytes(n): n random uint8 values with no zero byte (an unwritten buffer never matches)."""
    return lambda nbytes: rng.integers(1, 256, size=nbytes, dtype=np.uint8)


@pytest.fixture
def in_fresh_thread():
    """Runs fn(*args) in a new thread and returns its result, re-raising its exception.

    Raw ACL calls (aclrtSetDevice, contexts) change the calling thread's ACL state;
    doing them on a fresh thread keeps the test process's own threads consistent."""
    def run(fn, *args):
        outcome = {}

        def target():
            try:
                outcome["value"] = fn(*args)
            except BaseException as exc:  # handed back to the test thread
                outcome["error"] = exc
        thread = threading.Thread(target=target)
        thread.start()
        thread.join(timeout=120)
        assert not thread.is_alive(), "the thread did not finish in 120 s"
        if "error" in outcome:
            raise outcome["error"]
        return outcome.get("value")
    return run


def blocked_stream(stream):
    """Blocks `stream` with a host function until the returned threading.Event is set
    (the function gives up after 30 s, so a failing test cannot hang the stream)."""
    gate = threading.Event()
    stream.launch_host_func(lambda: gate.wait(30))
    return gate


def run_threads(target, args_list, timeout=120):
    """Runs target(*args) in one thread per tuple of `args_list`, all started before any is
    joined; asserts that every thread ended within `timeout` seconds."""
    threads = [threading.Thread(target=target, args=args) for args in args_list]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout)
    assert not any(thread.is_alive() for thread in threads)


def package_env(**overrides):
    """os.environ plus `overrides`, with PYTHONPATH reaching the npuarray under test."""
    env = dict(os.environ)
    root = os.path.dirname(os.path.dirname(os.path.abspath(npuarray.__file__)))
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [root, env.get("PYTHONPATH")]))
    for key, value in overrides.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = str(value)
    return env


@pytest.fixture
def run_python(tmp_path):
    """Runs Python `code` in a subprocess with environment `overrides` (None removes a
    variable) and the npuarray under test importable; returns the CompletedProcess."""
    def run(code, timeout=120, **overrides):
        return subprocess.run([sys.executable, "-c", code], env=package_env(**overrides),
                              cwd=tmp_path, capture_output=True, text=True, timeout=timeout)
    return run


@pytest.fixture
def forget_entry_points():
    """forget_entry_points(): empties the array layer's tables of the provider's entry
    points (in place: the C fast path holds the first one), so that the phases a test
    installs in ``_ops._phases`` (or its switching off of the C helper) take effect; the
    tables as they were before the first call are restored after the test."""
    tables = (_ops._entry_points, _ops._pointer_entry_points, _ops._exact_launchers)
    saved = []

    def forget():
        if not saved:
            saved.extend(dict(table) for table in tables)
        for table in tables:
            table.clear()
    yield forget
    for table, entries in zip(tables, saved):
        table.clear()
        table.update(entries)


@pytest.fixture
def int8_products_taken(monkeypatch):
    """The outcome of each float64 product made while the test runs (True: emulated on
    int8 digits, npuarray/_core/_ozaki.py), with the size thresholds lifted so that small
    products use the scheme too."""
    outcomes = []
    original = _ozaki.product

    def spy(*args, **kwargs):
        outcomes.append(original(*args, **kwargs))
        return outcomes[-1]
    monkeypatch.setattr(_ozaki, "product", spy)
    monkeypatch.setattr(_ozaki, "MIN_MULTIPLY_ADDS", 0)
    monkeypatch.setattr(_ozaki, "MIN_SIDE", 1)
    return outcomes
