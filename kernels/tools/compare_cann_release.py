"""Compares kernels/include with the headers of one CANN release, symbol by symbol.

    python kernels/tools/compare_cann_release.py MIRRORS_DIR

MIRRORS_DIR holds git mirrors of hicann/runtime, hicann/opbase, hicann/ops-math and
hicann/ops-nn (as `fetch github:hicann/<name>` leaves them: <dir>/hicann+<name>/repo). The
release is RELEASE below. Symbols compared: every function declared with
ACL_FUNC_VISIBILITY (prototype, parameter names aside), every `#define NAME <integer>` and
every enumerator. Prints the counts and each differing or project-only symbol."""
import re
import subprocess
import sys
from pathlib import Path

INCLUDE = Path(__file__).resolve().parents[1] / "include"
RELEASE = {   # repository -> (git ref, header directories inside it)
    "runtime": ("v9.1.0", ["include/external/acl"]),
    "opbase": ("9.1.0", ["include/nnopbase"]),          # no v9.1.0 tag: the release branch
    "ops-math": ("v9.1.0", [""]),
    "ops-nn": ("v9.1.0", [""]),
    # aclfft / aclblas (cann_ops_fft.h, cann_ops_blas.h): no numbered release yet
    "ops-fft": ("HEAD", ["include/"]),
    "ops-blas": ("HEAD", ["include/"]),
}


def _release_headers(mirrors):
    for repo, (ref, dirs) in RELEASE.items():
        git = ["git", "-C", str(mirrors / ("hicann+" + repo) / "repo")]
        names = subprocess.run(git + ["ls-tree", "-r", "--name-only", ref], check=True,
                               capture_output=True, text=True).stdout.split()
        for name in names:
            if name.endswith(".h") and any(name.startswith(d) for d in dirs) and (
                    repo in ("runtime", "opbase", "ops-fft", "ops-blas")
                    or "/op_api/aclnn_" in name):
                yield name, subprocess.run(git + ["show", "%s:%s" % (ref, name)],
                                           capture_output=True, text=True).stdout


def _strip_comments(text):
    return re.sub(r"//[^\n]*", "", re.sub(r"/\*.*?\*/", " ", text, flags=re.S))


def _param(param):
    param = re.sub(r"\s*\*\s*", " * ", param).split()
    if len(param) > 1 and re.fullmatch(r"[A-Za-z_]\w*", param[-1]) and param[-2] != "*" \
            or len(param) > 1 and param[-2] == "*":
        param = param[:-1] if param[-1] not in ("*",) else param
    words = [w for w in param if w]
    return " ".join(words).replace(" *", "*")


def _functions(text):
    found = {}
    for m in re.finditer(r"(?:ACL_FUNC_VISIBILITY|ACLNN_API)\s+([^;{}]*?)\b(\w+)\s*\(([^;{}]*?)\)\s*;",
                         _strip_comments(text)):
        ret, name, params = m.group(1), m.group(2), m.group(3)
        params = [p for p in (_param(p.strip()) for p in params.split(",")) if p]
        if params == ["void"]:
            params = []
        ret = re.sub(r"\s*\*\s*", "*", " ".join(ret.split()))
        found[name] = "%s %s(%s)" % (ret, name, ", ".join(params))
    return found


def _constants(text):
    text = _strip_comments(text)
    found = {m.group(1): int(m.group(2).rstrip("uUlL"), 0) for m in re.finditer(
        r"#define\s+(ACL\w*|ACLNN\w*)\s+\(?(-?(?:0x[0-9A-Fa-f]+|\d+)[uUlL]*)\)?\s*$", text, re.M)}
    found.update({m.group(1): int(m.group(2).rstrip("uUlL"), 0) for m in re.finditer(
        r"static\s+const\s+int\s+(\w+)\s*=\s*(-?(?:0x[0-9A-Fa-f]+|\d+))", text)})
    for body in re.findall(r"enum\s*\w*\s*(?::\s*\w+\s*)?\{([^}]*)\}", text):
        value = -1
        for item in body.split(","):
            item = item.strip()
            if not item:
                continue
            name, _, expr = item.partition("=")
            try:
                value = int(expr.strip().rstrip("uUlL"), 0) if expr.strip() else value + 1
            except ValueError:
                value = None
            found[name.strip()] = value
    return found


def _symbols(texts):
    functions, constants = {}, {}
    for text in texts:
        functions.update(_functions(text))
        constants.update(_constants(text))
    return functions, constants


def main(mirrors):
    ours = _symbols(p.read_text() for p in INCLUDE.rglob("*.h"))
    theirs = _symbols(text for _, text in _release_headers(Path(mirrors)))
    compared = identical = 0
    differing, project_only = [], []
    for kind, mine, upstream in (("function", ours[0], theirs[0]), ("constant", ours[1], theirs[1])):
        for name, value in sorted(mine.items()):
            if name not in upstream:
                project_only.append("%s %s" % (kind, name))
                continue
            compared += 1
            if upstream[name] == value:
                identical += 1
            else:
                differing.append("%s %s:\n  ours:     %s\n  %s: %s" % (
                    kind, name, value, "release", upstream[name]))
    print("release:", ", ".join("%s@%s" % (r, ref) for r, (ref, _) in RELEASE.items()))
    print("symbols compared %d, identical %d, differing %d, project-only %d"
          % (compared, identical, len(differing), len(project_only)))
    for line in differing + project_only:
        print(line)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "/work/.mirror")
