"""The benchmark chart (benchmarks/_plot.py, ``python -m benchmarks --plot``): a PNG of every
row's ratio against NumPy and PyTorch drawn from a small synthetic results file, with no
benchmark run. Correctness only: nothing here is timed."""
import json
import pathlib
import sys

import pytest

matplotlib = pytest.importorskip("matplotlib", reason="the chart needs matplotlib (bench extra)")
import matplotlib.image  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # benchmarks/ is not installed: reach the checkout's, appended
    sys.path.append(str(ROOT))  # so that npuarray stays the package under test
from benchmarks import __main__ as bench_main  # noqa: E402
from benchmarks import _plot, _targets  # noqa: E402

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def row(benchmark, case, npuarray, numpy=None, torch=None, target=None):
    times = {"npuarray": npuarray}
    r = {"benchmark": benchmark, "case": case}
    for name, t in (("numpy", numpy), ("torch", torch)):
        if t is not None:
            times[name] = t
            r["ratio_vs_" + name] = t / npuarray
            r["best_ratio_vs_" + name] = 0.9 * t / npuarray
    r["seconds"], r["best"] = times, dict(times)
    if target is not None:
        r["target"] = target.key
    return r


ROWS = [
    row("ops", "add float32 1 K", 6e-6, numpy=1e-6, torch=2e-6, target=_targets.ADD_1K_SYNC),
    row("ops", "add float32 16 M", 3e-3, numpy=7e-3, torch=5e-3, target=_targets.ADD_16M),
    row("ops", "sum float32 16 M", 2e-3, numpy=3e-3, torch=1e-3, target=_targets.SUM_16M),
    row("transfer", "D2D 64 MiB", 4e-3, numpy=5e-3),
    row("transfer", "Event.record (per call)", 1e-6),  # no ratio: not drawn
    row("fft", "fft 2^20 complex64", 1e-2, torch=2e-3),  # PyTorch only
]


def results_file(tmp_path, rows=ROWS):
    path = tmp_path / "results.json"
    path.write_text(json.dumps({"backend": {"name": "npusim"}, "rows": rows}))
    return path


def decoded(path):
    data = pathlib.Path(path).read_bytes()
    assert data[:8] == PNG_SIGNATURE
    return matplotlib.image.imread(str(path))


def test_plot_from_json_writes_a_png_of_every_row_with_a_ratio(tmp_path, capsys):
    png = tmp_path / "chart.png"
    assert bench_main.main(["--plot", str(png), "--from-json",
                            str(results_file(tmp_path))]) == 0
    assert "plot of 5 rows written to %s" % png in capsys.readouterr().out
    image = decoded(png)
    height, width = image.shape[:2]
    assert width == 1100  # 11 inches at 100 dpi
    assert height >= 300
    assert image.shape[2] in (3, 4)
    assert 0.0 < image[..., :3].mean() < 1.0  # drawn on, neither blank nor black


def test_the_chart_grows_with_the_rows(tmp_path):
    few, many = tmp_path / "few.png", tmp_path / "many.png"
    _plot.plot(ROWS[:2], str(few))
    more = [row("ops", "case %d" % i, 1e-3, numpy=1e-3 * (i + 1)) for i in range(40)]
    assert _plot.plot(more, str(many)) == 40
    assert decoded(many).shape[0] > decoded(few).shape[0]
    assert decoded(many).shape[0] == pytest.approx(100 * (1.5 + _plot.ROW_INCHES * 40), abs=2)


def test_bounds_are_drawn_in_the_ratio_units():
    assert _plot.bound_ratio(_targets.ADD_16M) == 2.0  # np/npx >= 2
    assert _plot.bound_ratio(_targets.ADD_1K_SYNC) == pytest.approx(1 / 8)  # npx/np <= 8


def test_rows_without_ratios_are_left_out():
    assert [r["case"] for r in _plot.plotted_rows(ROWS)] == [
        "add float32 1 K", "add float32 16 M", "sum float32 16 M", "D2D 64 MiB",
        "fft 2^20 complex64"]


def test_nothing_to_plot_is_a_clear_error(tmp_path, capsys):
    with pytest.raises(ValueError, match="nothing to plot"):
        _plot.plot([ROWS[4]], str(tmp_path / "x.png"))
    with pytest.raises(SystemExit):
        bench_main.main(["--plot", str(tmp_path / "x.png"), "--from-json",
                         str(results_file(tmp_path, [ROWS[4]]))])
    assert "nothing to plot" in capsys.readouterr().err


def test_from_json_errors_name_the_file(tmp_path, capsys):
    missing = tmp_path / "missing.json"
    with pytest.raises(SystemExit):
        bench_main.main(["--plot", str(tmp_path / "x.png"), "--from-json", str(missing)])
    assert "cannot plot from %s" % missing in capsys.readouterr().err
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    with pytest.raises(SystemExit):
        bench_main.main(["--plot", str(tmp_path / "x.png"), "--from-json", str(broken)])
    assert "not a benchmark results file" in capsys.readouterr().err
    with pytest.raises(SystemExit):  # rows come from the file: running benchmarks too is refused
        bench_main.main(["ops", "--plot", "--from-json", str(results_file(tmp_path))])
    with pytest.raises(SystemExit):  # --from-json selects what --plot draws
        bench_main.main(["--from-json", str(results_file(tmp_path))])
    assert "add --plot" in capsys.readouterr().err


def test_without_matplotlib_plot_fails_before_any_benchmark_runs(monkeypatch, capsys):
    ran = []

    def import_module(name):
        ran.append(name)
        raise ImportError("No module named 'matplotlib'")   # as without the bench extra
    monkeypatch.setattr(bench_main.importlib, "import_module", import_module)
    with pytest.raises(SystemExit):
        bench_main.main(["ops", "--plot"])
    assert ran == ["benchmarks._plot"]  # no benchmark module was imported, none ran
    assert "--plot needs matplotlib" in capsys.readouterr().err
