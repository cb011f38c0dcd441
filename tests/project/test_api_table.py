"""The NumPy comparison table (docs/numpy-comparison.md) is the output of
``python -m npuarray._api_table`` for the code as it is, and its counts add up."""
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest

import npuarray
from npuarray import _api_table

ROOT = pathlib.Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "docs" / "numpy-comparison.md"


@pytest.fixture(scope="module")
def table():
    return _api_table.build()


def _committed_numpy_version():
    match = re.search(r"against NumPy (\S+);", COMMITTED.read_text(encoding="utf-8"))
    return match.group(1)


def test_committed_table_is_up_to_date(table):
    if _committed_numpy_version() != np.__version__:
        pytest.skip(f"docs/numpy-comparison.md was generated against NumPy "
                    f"{_committed_numpy_version()}, this is NumPy {np.__version__}")
    assert COMMITTED.read_text(encoding="utf-8") == _api_table.render(table), (
        "regenerate with: python -m npuarray._api_table --output docs/numpy-comparison.md")


def test_script_writes_the_page(tmp_path):
    out = tmp_path / "table.md"
    subprocess.run([sys.executable, "-m", "npuarray._api_table", "--output", str(out)],
                   check=True, cwd=ROOT)
    assert out.read_text(encoding="utf-8") == _api_table.render(_api_table.build())


def test_summary_counts_match_the_rows(table):
    text = _api_table.render(table)
    for title, rows in table.items():
        line = next(l for l in text.splitlines() if l.startswith(f"| {title} |"))
        numbers = [int(v) for v in line.strip("|").split("|")[1:]]
        total, present, *by_status = numbers
        assert total == len(rows)
        assert present == sum(1 for r in rows if r[1] != "missing")
        assert by_status == [sum(1 for r in rows if r[1] == s) for s in _api_table.STATUSES[:-1]]
        assert sum(by_status) == present
        assert len(re.findall(r"^\| `", text.split(f"## {title}\n")[1].split("\n## ")[0],
                              flags=re.M)) == total


def test_groups_hold_numpys_names(table):
    top = {r[0] for r in table["Top-level routines"]}
    scalars = {r[0] for r in table["Scalar types"]}
    constants = {r[0] for r in table["Constants"]}
    assert {"concatenate", "mgrid", "r_", "vectorize", "save"} <= top
    assert {"float64", "intp", "generic"} <= scalars and {"pi", "nan", "newaxis"} <= constants
    public = {n for n in np.__all__ if not n.startswith("__")
              and not isinstance(getattr(np, n), type(np))}
    assert top | scalars | constants == public
    assert {r[0] for r in table["numpy.linalg"]} == {"linalg." + n for n in np.linalg.__all__}


def test_presence_is_npuarrays_namespace(table):
    for group in ("Top-level routines", "Scalar types", "Constants"):
        for name, status, _, _ in table[group]:
            assert (status == "missing") == (not hasattr(npuarray, name)), name
    for name, status, _, _ in table["numpy.ndarray members"]:
        member = name.split(".", 1)[1]
        assert (status == "missing") == (not hasattr(npuarray.NPUArray, member)), name


def _row(table, group, name):
    return next(r for r in table[group] if r[0] == name)


def test_statuses_follow_the_code(table):
    top = "Top-level routines"
    assert _row(table, top, "add")[1:3] == ("device", "aclnnAdd, aclnnAdds")
    assert _row(table, top, "polyval")[1] == "device, composed"
    assert "aclnnMul" in _row(table, top, "polyval")[2]
    assert _row(table, top, "save")[1] == "host"
    assert _row(table, top, "loadtxt")[1] == "host"
    assert _row(table, top, "set_printoptions")[1] == "NumPy's"
    assert _row(table, top, "polyfit")[3] == "reads values on the host"
    assert _row(table, top, "squeeze")[1] == "no operator"
    eig = _row(table, "numpy.linalg", "linalg.eig")
    assert eig[1] == "host" and eig[3].startswith("host fallback: ")
    assert _row(table, "Scalar types", "double")[1] == "NumPy's"
