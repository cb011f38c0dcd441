"""Writes the CANN columns of kernels/aclnn_dtypes.tsv, the operator table: for every aclnn
operator npusim implements (kernels/include/aclnnop, which holds every operator npuarray
calls), one row per parameter of its first phase in the order of its CANN header
(kernels/include/aclnnop), with the parameter's role, C type, the dtypes its CANN document
lists and the document's path.

    python kernels/tools/aclnn_dtype_table.py [MIRRORS_DIR]

MIRRORS_DIR holds git mirrors of hicann/ops-math and hicann/ops-nn (<dir>/hicann+<name>/repo);
the documents are read at tag v9.1.0, the release kernels/include mirrors (those under
experimental/ describe example kernels, not CANN's shipped operators, and are skipped). A
document (``aclnnAdd&aclnnInplaceAdd.md`` covers two operators) has one section per first
phase (``## aclnnAddGetWorkspaceSize``) whose parameter table lists each parameter's dtypes
in its 数据类型 column; the union over the products the document covers is taken (what any
supported NPU accepts). The npusim columns (what npusim implements where it differs, and
why) are kept from the table already written: they are npusim's, not CANN's."""
import html
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
KERNELS = ROOT / "kernels"
TABLE = KERNELS / "aclnn_dtypes.tsv"
REF = "v9.1.0"
HEADER = ("# operator\tparameter\trole\tctype\tCANN %s dtypes\tdocument\tnpusim dtypes\twhy"
          % REF)
DTYPE_WORDS = {"FLOAT": "float32", "FLOAT32": "float32", "FLOAT16": "float16",
               "BFLOAT16": "bfloat16", "DOUBLE": "float64", "FLOAT64": "float64",
               "INT8": "int8", "INT16": "int16", "INT32": "int32", "INT64": "int64",
               "UINT8": "uint8", "UINT16": "uint16", "UINT32": "uint32", "UINT64": "uint64",
               "BOOL": "bool", "COMPLEX64": "complex64", "COMPLEX128": "complex128",
               "COMPLEX32": "complex32"}
# Types whose parameters carry a dtype: the others (bool, int64_t, aclIntArray...) get "-".
DTYPED = ("aclTensor", "aclScalar", "aclDataType", "aclTensorList")


def header_signatures():
    """operator -> [(name, ctype)] of its first phase, from kernels/include/aclnnop."""
    sigs = {}
    for header in (KERNELS / "include" / "aclnnop").glob("*.h"):
        text = re.sub(r"/\*.*?\*/|//[^\n]*", "", header.read_text(), flags=re.S)
        for op, params in re.findall(r"\b(aclnn\w+)GetWorkspaceSize\s*\(([^;{]*?)\)\s*;", text):
            sigs[op] = [_split_param(p) for p in params.split(",")][:-2]  # no workspace/executor
    return sigs


def _split_param(text):
    text = " ".join(text.replace("*", " * ").split())
    name = re.search(r"(\w+)$", text).group(1)
    ctype = text[:-len(name)].strip().replace(" *", "*")
    return name, ctype


def _documents(mirrors):
    """operator -> (git command, cited path, path in repo) of the document describing it."""
    docs = {}
    for repo in ("ops-math", "ops-nn"):
        git = ["git", "-C", str(Path(mirrors) / ("hicann+" + repo) / "repo")]
        files = subprocess.run(git + ["ls-tree", "-r", "--name-only", REF], check=True,
                               capture_output=True, text=True).stdout.splitlines()
        for path in files:
            match = re.search(r"/docs/(aclnn[^/]*)\.md$", path)
            if match is None or path.startswith("experimental/"):
                continue
            for op in match.group(1).split("&"):
                docs.setdefault(op, (git, "hicann/%s:%s@%s" % (repo, path, REF), path))
    return docs


def _section(text, op):
    """The text of op's first-phase section of a document."""
    start = re.search(r"^##+\s*%sGetWorkspaceSize\s*$" % op, text, flags=re.M)
    if start is None:
        return None
    end = re.search(r"^##\s", text[start.end():], flags=re.M)
    return text[start.end():start.end() + end.start() if end else len(text)]


def _cell_text(cell):
    return html.unescape(re.sub(r"<[^>]+>", " ", cell))


def parameter_dtypes(section):
    """parameter name -> (role, sorted dtypes) from a section's parameter table (the table
    with a 数据类型 column), or from its parameter list where the document has no table."""
    for table in re.findall(r"<table.*?</table>", section, flags=re.S):
        heads = [_cell_text(h).strip() for h in re.findall(r"<th[^>]*>(.*?)</th>", table, re.S)]
        if "数据类型" in heads:
            return _table_parameter_dtypes(table, heads.index("数据类型"))
    return _listed_parameter_dtypes(section)


def _table_parameter_dtypes(table, column):
    params = {}
    for row in re.findall(r"<tr>(.*?)</tr>", table, flags=re.S):
        cells = [_cell_text(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", row, flags=re.S)]
        if len(cells) <= column:
            continue
        name = re.match(r"\s*(\w+)", cells[0])
        if name is None:
            continue
        words = re.findall(r"[A-Z][A-Z0-9]+", cells[column])
        dtypes = sorted({DTYPE_WORDS[w] for w in words if w in DTYPE_WORDS})
        params[name.group(1)] = ("output" if "输出" in cells[1] else "input", dtypes)
    return params


LIST_ITEM = re.compile(r"^\s*[*-]\s*(\w+)\s*[(（]([^)）]*)[)）]", flags=re.M)
DTYPE_PHRASE = re.compile(r"数据类型(?:支持|为|是)?[：:]?\s*((?:[A-Z][A-Z0-9_]*\s*[、,，和]?\s*)+)")


def _listed_parameter_dtypes(section):
    """The same from a list (``* self(aclTensor*，计算输入)：... 数据类型支持FLOAT、...``)."""
    section = section.split("返回值")[0]
    items = list(LIST_ITEM.finditer(section))
    params = {}
    for item, following in zip(items, items[1:] + [None]):
        body = section[item.end():following.start() if following else len(section)]
        words = re.findall(r"[A-Z][A-Z0-9]+", " ".join(DTYPE_PHRASE.findall(body)))
        dtypes = sorted({DTYPE_WORDS[w] for w in words if w in DTYPE_WORDS})
        params[item.group(1)] = ("output" if "输出" in item.group(2) else "input", dtypes)
    return params


def _npusim_columns():
    """(operator, parameter) -> (npusim dtypes, why) of the table already written."""
    kept = {}
    if TABLE.exists():
        for line in TABLE.read_text().splitlines():
            fields = line.split("\t")
            if line.startswith("#") or len(fields) != 8:
                continue
            kept[(fields[0], fields[1])] = (fields[6], fields[7])
    return kept


def rows(mirrors):
    docs, sigs, kept = _documents(mirrors), header_signatures(), _npusim_columns()
    out = []
    for op in sorted(sigs):
        found = docs.get(op)
        documented, document = {}, "-"
        if found is not None:
            git, document, path = found
            text = subprocess.run(git + ["show", "%s:%s" % (REF, path)], check=True,
                                  capture_output=True, text=True).stdout
            section = _section(text, op)
            documented = parameter_dtypes(section) if section else {}
        for name, ctype in sigs[op]:
            role = "output" if ctype in ("aclTensor*", "aclTensorList*") else "input"
            role, dtypes = documented.get(name, (role, []))
            if name == "out" or name.endswith("Out"):
                role = "output"   # aclnnAmin's document calls its out an input
            if not any(ctype.startswith(t) or (" " + t) in ctype for t in DTYPED):
                dtypes = []
            npusim, why = kept.get((op, name), ("=", ""))
            out.append("\t".join([op, name, role, ctype, ",".join(dtypes) or "-", document,
                                  npusim, why]))
    return out


def main(mirrors):
    lines = rows(mirrors)
    TABLE.write_text("\n".join([HEADER] + lines) + "\n")
    print("%d parameters of %d operators" % (len(lines), len({l.split("\t")[0] for l in lines})))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "/work/.mirror")
