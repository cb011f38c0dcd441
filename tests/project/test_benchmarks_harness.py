"""The benchmark harness's own logic (benchmarks/_harness.py, benchmarks/_targets.py): the
target summary computed from rows, the rows a comparison records, one block per library
after settling, and settling itself. Correctness only: nothing here times npuarray."""
import json
import pathlib
import re
import sys
import threading
import time

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # benchmarks/ is not installed: reach the checkout's, appended
    sys.path.append(str(ROOT))  # so that npuarray stays the package under test
from benchmarks import _harness, _targets  # noqa: E402
from benchmarks._harness import Harness  # noqa: E402

BENCHMARKS = ROOT / "benchmarks"


def row(case, npuarray, numpy, best_npuarray=None, best_numpy=None, target=None,
        benchmark="ops"):
    """A row as Harness._add writes it: medians, bests and NumPy / npuarray ratios."""
    best_npuarray = npuarray if best_npuarray is None else best_npuarray
    best_numpy = numpy if best_numpy is None else best_numpy
    r = {"benchmark": benchmark, "case": case,
         "seconds": {"npuarray": npuarray, "numpy": numpy},
         "best": {"npuarray": best_npuarray, "numpy": best_numpy},
         "ratio_vs_numpy": numpy / npuarray,
         "best_ratio_vs_numpy": best_numpy / best_npuarray}
    if target is not None:
        r["target"] = target.key
    return r


# -- measured values and status -------------------------------------------------------------

def test_speedup_target_uses_the_rows_ratios():
    # add 16 M: NumPy 10 ms, npuarray 4 ms median (2.5x), 5 ms best... best is the min time
    r = row("add float32 16 M", npuarray=4e-3, numpy=10e-3, best_npuarray=3e-3,
            best_numpy=9e-3, target=_targets.ADD_16M)
    best, median = _targets.measured(_targets.ADD_16M, r)
    assert best == pytest.approx(3.0)
    assert median == pytest.approx(2.5)


def test_slowdown_target_inverts_the_ratios():
    # 1 K add: npuarray 6 us, NumPy 1 us -> npuarray takes 6x NumPy's time
    r = row("add float32 1 K", npuarray=6e-6, numpy=1e-6, best_npuarray=4e-6,
            best_numpy=1e-6, target=_targets.ADD_1K_SYNC)
    best, median = _targets.measured(_targets.ADD_1K_SYNC, r)
    assert best == pytest.approx(4.0)
    assert median == pytest.approx(6.0)


@pytest.mark.parametrize("target, best, median, expected", [
    (_targets.ADD_16M, 2.5, 2.1, _targets.MET),          # speedup >= 2.0
    (_targets.ADD_16M, 2.0, 2.0, _targets.MET),          # the bound itself meets it
    (_targets.ADD_16M, 2.2, 1.9, _targets.BEST_ONLY),
    (_targets.ADD_16M, 1.9, 1.5, _targets.NOT_MET),
    (_targets.ADD_1K_SYNC, 5.0, 7.9, _targets.MET),      # slowdown <= 8
    (_targets.ADD_1K_SYNC, 8.0, 8.0, _targets.MET),
    (_targets.ADD_1K_SYNC, 7.0, 9.0, _targets.BEST_ONLY),
    (_targets.ADD_1K_SYNC, 8.5, 12.0, _targets.NOT_MET),
    (_targets.REPLAY_PER_OP, 0.3, 0.61, _targets.BEST_ONLY),  # slowdown <= 0.6
])
def test_status(target, best, median, expected):
    assert _targets.status(target, best, median) == expected


def test_bound_text_names_the_ratio_direction():
    assert _targets.bound_text(_targets.ADD_16M) == "np/npx >= 2"
    assert _targets.bound_text(_targets.KMEANS_GRAPH) == "np/npx >= 1.5"
    assert _targets.bound_text(_targets.DEPENDENT_ADD) == "npx/np <= 5"
    assert _targets.bound_text(_targets.REPLAY_PER_OP) == "npx/np <= 0.6"


def test_labels_fit_their_column():
    assert all(len(t.label) <= _targets.LABEL_WIDTH for t in _targets.ALL)


def test_the_issue_table_is_complete():
    """The ten rows of the small-operation targets table (the kinds and bounds it states)."""
    expected = {
        "add-1k-sync": ("slowdown", 8.0), "dependent-add": ("slowdown", 5.0),
        "kmeans-eager": ("speedup", 1.0), "kmeans-graph": ("speedup", 1.5),
        "add-16m": ("speedup", 2.0), "sum-16m": ("speedup", 1.8),
        "matmul-1024": ("speedup", 1.0), "pinned-1mib": ("speedup", 0.8),
        "staged-64mib": ("speedup", 0.8), "replay-per-op": ("slowdown", 0.6)}
    assert {t.key: (t.kind, t.bound) for t in _targets.ALL if t.group == "small ops"} == expected
    assert len(_targets.BY_KEY) == len(_targets.ALL)


def test_every_target_is_measured_by_a_benchmark():
    """Each target's constant is used by some benchmarks/bench_*.py, so a full run prints
    a row for every target of the table."""
    sources = "".join(p.read_text() for p in BENCHMARKS.glob("bench_*.py"))
    names = {name for name, value in vars(_targets).items() if isinstance(value, _targets.Target)}
    assert {_targets.BY_KEY[t.key] for t in _targets.ALL} == {vars(_targets)[n] for n in names}
    for name in names:
        assert re.search(r"_targets\.%s\b" % name, sources), name


# -- the summary ----------------------------------------------------------------------------

def test_summarize_follows_the_table_order_and_skips_untagged_rows():
    rows = [row("sum float32 16 M", 2e-3, 4e-3, target=_targets.SUM_16M),      # 2.0x: met
            row("x*x (1797,64) float32", 1e-5, 1e-5),                          # no target
            row("add float32 1 K", 3e-6, 1e-6, target=_targets.ADD_1K_SYNC),  # 3x: met
            row("add float32 16 M", 8e-3, 10e-3, 6e-3, 10e-3, _targets.ADD_16M)]
    lines = _targets.summarize(rows)
    assert [line.target for line in lines] == [_targets.ADD_1K_SYNC, _targets.ADD_16M,
                                              _targets.SUM_16M]
    add_16m = lines[1]
    assert (add_16m.benchmark, add_16m.case) == ("ops", "add float32 16 M")
    assert add_16m.best == pytest.approx(10 / 6) and add_16m.median == pytest.approx(1.25)
    assert add_16m.status == _targets.NOT_MET
    assert lines[0].status == _targets.MET and lines[0].median == pytest.approx(3.0)
    assert lines[2].status == _targets.MET


def test_summarize_skips_rows_without_numpy_and_unknown_targets():
    no_numpy = {"benchmark": "ops", "case": "host CPU", "seconds": {"npuarray": 1e-6},
                "best": {"npuarray": 1e-6}, "target": _targets.ADD_1K_SYNC.key}
    unknown = dict(row("old row", 1.0, 1.0), target="a-target-no-longer-listed")
    assert _targets.summarize([no_numpy, unknown]) == []
    assert _targets.format_summary([]) == ""


def test_a_target_with_several_rows_is_met_only_when_all_are():
    rows = [row("H2D pinned sync 1 MiB", 25e-6, 23e-6, target=_targets.PINNED_1MIB),   # 0.92
            row("D2H pinned async 1 MiB", 30e-6, 23e-6, 26e-6, 23e-6,                # 0.77/0.88
                target=_targets.PINNED_1MIB),
            row("H2D pageable async (staged) 64 MiB", 5e-3, 6e-3,
                target=_targets.STAGED_64MIB),                                         # 1.2
            row("D2H pageable async (staged) 64 MiB", 10e-3, 6e-3,
                target=_targets.STAGED_64MIB)]                                         # 0.6
    lines = _targets.summarize(rows)
    assert [line.status for line in lines] == [
        _targets.MET, _targets.BEST_ONLY, _targets.MET, _targets.NOT_MET]
    assert _targets.verdicts(lines) == {_targets.PINNED_1MIB: _targets.BEST_ONLY,
                                        _targets.STAGED_64MIB: _targets.NOT_MET}


def test_format_summary_lists_each_target_once_with_its_rows():
    rows = [row("k-means digits 1797x64, k=10 (15 iters)", 4e-3, 5e-3,
                target=_targets.KMEANS_EAGER, benchmark="kmeans"),
            row("k-means digits, k=10, 15 iters, eager", 6e-3, 5e-3,
                target=_targets.KMEANS_EAGER, benchmark="graph"),
            row("k-means digits, k=10, 15 iters, graph", 2e-3, 5e-3,
                target=_targets.KMEANS_GRAPH, benchmark="graph")]
    text = _targets.format_summary(_targets.summarize(rows))
    lines = text.splitlines()
    assert len(lines) == 2 + 3 + 1
    assert lines[0].startswith("targets (small ops) measured by this run")
    assert lines[2].startswith("digits k-means, eager") and "np/npx >= 1 " in lines[2]
    assert lines[2].rstrip().endswith("1.25  met")
    assert lines[3].startswith(" ") and "graph: k-means digits, k=10, 15 iters, eager" in lines[3]
    assert lines[3].rstrip().endswith("0.83  not met")
    assert "np/npx >= 1.5" in lines[4] and lines[4].rstrip().endswith("2.50  met")
    assert lines[-1] == ("1 of 2 targets met (every row's median), 0 more by the best run "
                         "only, 1 not met")


# -- the harness: rows, blocks, settling ----------------------------------------------------

def fake_clock(monkeypatch, durations):
    """perf_counter advancing by durations[fn-name] per call of that fn (no real timing)."""
    now = [0.0]
    monkeypatch.setattr(_harness.time, "perf_counter", lambda: now[0])

    def fn(name, log):
        def call():
            log.append(name)
            now[0] += durations[name]
        return call
    return fn


def test_compare_runs_each_library_as_one_block_after_settling(monkeypatch, capsys):
    log = []
    harness = Harness(repeat=3, warmup=2)
    monkeypatch.setattr(harness, "settle", lambda: log.append("settle") or 0.0)
    monkeypatch.setattr(_harness, "WARMUP_SECONDS", 0.01)
    # npuarray: 2**-8 s a call, so the warm-up needs 3 calls to last 0.01 s; NumPy: 2**-6 s
    # a call, so the warm-up is its 2 calls (`warmup`), which already last 0.03 s
    fn = fake_clock(monkeypatch, {"npuarray": 2 ** -8, "numpy": 2 ** -6})
    times = harness.compare("case", {"npuarray": fn("npuarray", log),
                                     "numpy": fn("numpy", log)}, target=_targets.SUM_16M)
    assert log == ["settle"] + ["npuarray"] * (3 + 3) + ["settle"] + ["numpy"] * (2 + 3)
    assert times == {"npuarray": 2 ** -8, "numpy": 2 ** -6}
    (recorded,) = harness.rows
    assert recorded["target"] == "sum-16m"
    assert recorded["ratio_vs_numpy"] == 4.0
    assert recorded["best_ratio_vs_numpy"] == 4.0
    printed = capsys.readouterr().out
    assert printed.rstrip().endswith("4.00/4.00x          -        -         -  np/npx >= 1.8")


def test_no_warm_up_when_asked_for_none(monkeypatch):
    log = []
    for quick in (False, True):
        harness = Harness(repeat=7, warmup=2, quick=quick)
        monkeypatch.setattr(harness, "settle", lambda: 0.0)
        fn = fake_clock(monkeypatch, {"f": 2 ** -10})
        assert len(harness.samples(fn("f", log), repeat=1, warmup=0)) == 1
        assert len(log) == 1
        log.clear()


def test_quick_caps_the_runs(monkeypatch):
    log = []
    harness = Harness(repeat=7, warmup=2, quick=True)
    monkeypatch.setattr(harness, "settle", lambda: 0.0)
    monkeypatch.setattr(_harness, "WARMUP_SECONDS", 0.0)
    fn = fake_clock(monkeypatch, {"f": 1e-3})
    assert len(harness.samples(fn("f", log), repeat=15)) == 3
    assert len(log) == 1 + 3


def test_rows_without_a_target_print_no_bound(monkeypatch, capsys):
    harness = Harness(repeat=1, warmup=0)
    monkeypatch.setattr(harness, "settle", lambda: 0.0)
    harness.measure("Event.record (per call)", lambda: None, per_call=10)
    assert "target" not in harness.rows[0]
    assert not capsys.readouterr().out.endswith(" \n")
    assert harness.summary() == ""


def test_json_keeps_targets_and_the_settling_method(tmp_path, monkeypatch, capsys):
    harness = Harness(repeat=1, warmup=0)
    monkeypatch.setattr(harness, "settle", lambda: 0.0)
    fn = fake_clock(monkeypatch, {"a": 2 ** -10, "b": 2 ** -8})
    harness.benchmark = "ops"
    harness.compare("add float32 16 M", {"npuarray": fn("a", []), "numpy": fn("b", [])},
                    target=_targets.ADD_16M)
    path = tmp_path / "results.json"
    harness.write_json(str(path))
    payload = json.loads(path.read_text())
    assert payload["rows"][0]["target"] == "add-16m"
    assert payload["settle"]["busy"] == _harness.SETTLE_BUSY
    assert payload["settle"]["unsettled_blocks"] == 0
    lines = _targets.summarize(payload["rows"])
    assert [(line.case, line.status) for line in lines] == [("add float32 16 M", _targets.MET)]


# -- bandwidth-bound rows -------------------------------------------------------------------

def test_bandwidth_bound_rows_are_set_against_the_copy_bandwidth(monkeypatch, capsys):
    harness = Harness(repeat=3, warmup=0)
    monkeypatch.setattr(harness, "settle", lambda: 0.0)
    measured = []
    monkeypatch.setattr(_harness, "measure_copy_bandwidth",
                        lambda *args: measured.append(args) or 64e9)
    fn = fake_clock(monkeypatch, {"a": 2 ** -8, "b": 2 ** -6})
    harness.benchmark = "ops"
    # 2**24 bytes moved in 2**-8 s: 4.29 GB/s of a 64 GB/s machine (6.7 %)
    harness.compare("add", {"npuarray": fn("a", []), "numpy": fn("b", [])}, traffic=1 << 24)
    harness.compare("sum", {"npuarray": fn("a", []), "numpy": fn("b", [])}, traffic=1 << 32)
    harness.compare("other", {"npuarray": fn("a", []), "numpy": fn("b", [])})
    assert len(measured) == 1  # once per run
    assert measured[0] == (_harness.BANDWIDTH_BYTES, 2, _harness.BANDWIDTH_RUNS)
    add, total, other = harness.rows
    assert add["traffic"] == 1 << 24
    assert add["of_copy_bandwidth"]["median"] == pytest.approx((1 << 24) * 2 ** 8 / 64e9)
    assert add["of_copy_bandwidth"]["best"] == pytest.approx((1 << 24) * 2 ** 8 / 64e9)
    assert total["of_copy_bandwidth"]["median"] == pytest.approx((1 << 32) * 2 ** 8 / 64e9)
    assert "of_copy_bandwidth" not in other
    out = capsys.readouterr().out
    assert "machine copy bandwidth: 64.0 GB/s" in out
    assert "7/7%" in out
    summary = harness.summary()
    assert "64.0 GB/s (target >= 90 %)" in summary
    assert re.search(r"ops: add\s+7%\s+7%\s+not met", summary)
    assert re.search(r"ops: sum\s+1718%\s+1718%\s+met", summary)
    assert "ops: other" not in summary


def test_json_records_the_copy_bandwidth_and_how(tmp_path, monkeypatch, capsys):
    harness = Harness(repeat=1, warmup=0)
    monkeypatch.setattr(harness, "settle", lambda: 0.0)
    monkeypatch.setattr(_harness, "measure_copy_bandwidth", lambda *args: 50e9)
    fn = fake_clock(monkeypatch, {"a": 2 ** -10})
    harness.benchmark = "transfer"
    harness.compare("D2D 64 MiB", {"npuarray": fn("a", [])}, traffic=2 << 26)
    path = tmp_path / "results.json"
    harness.write_json(str(path))
    payload = json.loads(path.read_text())
    assert payload["copy_bandwidth"]["GB/s"] == 50.0
    assert payload["copy_bandwidth"]["threads"] == 2
    assert "read" in payload["copy_bandwidth"]["method"]
    share = payload["rows"][0]["of_copy_bandwidth"]["median"]
    assert share == pytest.approx((2 << 26) * 2 ** 10 / 50e9)


def test_copy_bandwidth_measures_a_real_copy():
    # Bytes read + written per second: positive and finite, and the copy really happened
    # (a broken measurement returning at once would give an infinite rate).
    rate = _harness.measure_copy_bandwidth(1 << 20, 2, 2)
    assert 1e7 < rate < 1e13


def spinning_thread(seconds):
    """A thread that keeps a CPU busy for `seconds` (as a thread pool spinning would)."""
    def spin():
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            pass
    thread = threading.Thread(target=spin)
    thread.start()
    return thread


def test_settle_returns_at_once_when_the_process_is_idle():
    harness = Harness()
    assert harness.settle(limit=5.0) < 1.0
    assert harness.unsettled == 0


def test_settle_waits_while_another_thread_is_busy():
    harness = Harness()
    thread = spinning_thread(0.3)
    try:
        waited = harness.settle(limit=10.0)
    finally:
        thread.join()
    assert waited >= 0.2
    assert harness.unsettled == 0


def test_settle_gives_up_at_its_limit_and_counts_it():
    harness = Harness()
    thread = spinning_thread(1.0)
    try:
        waited = harness.settle(limit=0.1)
    finally:
        thread.join()
    assert 0.1 <= waited < 0.9
    assert harness.unsettled == 1
    harness.rows.append(row("add float32 16 M", 1.0, 2.0, target=_targets.ADD_16M))
    assert "1 blocks started before the process was idle" in harness.summary()
