"""Writes kernels/aclnn_dtypes.tsv: for each operator npusim implements (one per
``aclnn*GetWorkspaceSize`` in kernels/include/aclnnop) whose CANN document is found, the
dtypes that document lists for the operator's first tensor parameter, and the document.

    python kernels/tools/aclnn_dtype_table.py MIRRORS_DIR

MIRRORS_DIR holds git mirrors of hicann/ops-math and hicann/ops-nn (<dir>/hicann+<name>/repo);
the documents are read at tag v9.1.0 (those under experimental/ describe example kernels,
not CANN's shipped operators, and are skipped) (the release kernels/include mirrors). A document's
parameter table lists each parameter's dtypes in one cell ("FLOAT、FLOAT16、..."); the first
such cell is the first tensor parameter's (self / input). The union over the products the
document covers is taken: what any supported NPU accepts."""
import re
import subprocess
import sys
from pathlib import Path

KERNELS = Path(__file__).resolve().parents[1]
REF = "v9.1.0"
DTYPE_WORDS = {"FLOAT": "float32", "FLOAT32": "float32", "FLOAT16": "float16",
               "BFLOAT16": "bfloat16", "DOUBLE": "float64", "FLOAT64": "float64",
               "INT8": "int8", "INT16": "int16", "INT32": "int32", "INT64": "int64",
               "UINT8": "uint8", "UINT16": "uint16", "UINT32": "uint32", "UINT64": "uint64",
               "BOOL": "bool", "COMPLEX64": "complex64", "COMPLEX128": "complex128",
               "COMPLEX32": "complex32"}
CELL = re.compile(r"<td>\s*((?:[A-Z0-9]+\s*[、,]\s*)*[A-Z0-9]+)\s*</td>")


def _operators():
    names = set()
    for header in (KERNELS / "include" / "aclnnop").glob("*.h"):
        names.update(re.findall(r"\b(aclnn\w+)GetWorkspaceSize\s*\(", header.read_text()))
    return sorted(names)


def _documents(mirrors):
    docs = {}
    for repo in ("ops-math", "ops-nn"):
        git = ["git", "-C", str(Path(mirrors) / ("hicann+" + repo) / "repo")]
        files = subprocess.run(git + ["ls-tree", "-r", "--name-only", REF], check=True,
                               capture_output=True, text=True).stdout.split()
        for path in files:
            # experimental/ holds example kernels, not the operator CANN ships: its
            # documents describe those (often fewer dtypes), so they are not used.
            match = re.search(r"/docs/(aclnn\w+)\.md$", path)
            if path.startswith("experimental/"):
                continue
            if match:
                docs.setdefault(match.group(1), (git, "hicann/%s:%s" % (repo, path), path))
    return docs


def _first_dtype_cell(text):
    for cell in CELL.findall(text):
        words = [w.strip() for w in re.split(r"[、,]", cell)]
        if words and all(w in DTYPE_WORDS for w in words):
            return sorted({DTYPE_WORDS[w] for w in words})
    return None


def main(mirrors):
    docs = _documents(mirrors)
    rows = ["# operator\tfirst tensor parameter dtypes (CANN %s documentation)\tdocument" % REF]
    for op in _operators():
        found = docs.get(op)
        if found is None:
            continue
        git, where, path = found
        text = subprocess.run(git + ["show", "%s:%s" % (REF, path)], capture_output=True,
                              text=True).stdout
        dtypes = _first_dtype_cell(text)
        if dtypes:
            rows.append("%s\t%s\t%s@%s" % (op, ",".join(dtypes), where, REF))
    (KERNELS / "aclnn_dtypes.tsv").write_text("\n".join(rows) + "\n")
    print("%d operators" % (len(rows) - 1))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "/work/.mirror")
