"""The profiler records the launches and small reads of the C fast path
(npuarray/_core/_fastpath.c), and the Python launch paths' launches through its C recorder,
exactly as the profiler's Python hooks record them: the same workload, run once with the
C paths and once in a process without them, gives the same records (kind, name, shapes,
dtypes, device, stream, bytes, whether device times were resolved)."""
import json

import pytest

from npuarray._core import _ops

pytestmark = pytest.mark.skipif(_ops._fastpath is None or _ops._launch_helper is None,
                                reason="npuarray._core._fastpath (or the npusim launch helper) "
                                       "is not built")

WORKLOAD = """
import json, sys
if sys.argv[1] == "python":
    sys.modules["npuarray._core._fastpath"] = None  # as an install without the extension
import numpy as np
import npuarray as npx
from npuarray._core import _ops

a = np.arange(24, dtype=np.float32).reshape(4, 6) / 7
x, y = npx.asarray(a), npx.asarray(a[0])


def work(x, y):
    z = x + y                 # aclnnAdd, broadcasting
    w = 2.0 - z * 1.5         # aclnnMuls, aclnnRsubs
    w += z                    # aclnnInplaceAdd
    v = w > z                 # aclnnGtTensor
    z[...] = w                # aclnnInplaceCopy
    s = z.sum(axis=1)         # aclnnReduceSum
    e = npx.exp(s)            # aclnnExp
    c = e.astype(np.float64)  # aclnnCast
    w[...] = 0.5              # aclnnInplaceFillScalar
    c.to_host()               # ACL_MEMCPY_DEVICE_TO_HOST (a small read)
    t = npx.where(v, z, w)    # aclnnSWhere (the Python launch path)
    m = z @ w.T               # aclnnMatmul (its own Python path)
    return z, v, c, w, t, m


for _ in range(3):  # plans made, blocks cached: the C paths apply from here on
    results = work(x, y)
del results
before = sum(_ops.fastpath_counts().values())
with npx.profile() as prof:
    z, v, c, w, t, m = work(x, y)
in_c = sum(_ops.fastpath_counts().values()) - before
default = npx.default_stream()
import threading
from npuarray.runtime._profiler import Record
records = [(r.kind, r.name, [list(s) for s in r.shapes], [str(d) for d in r.dtypes], r.device,
            r.stream is default, r.device_start_ns is not None, r.captured, r.nbytes,
            r.thread == threading.get_native_id(),
            0 <= r.host_start_ns <= r.host_start_ns + r.host_duration_ns <= prof.duration_ns,
            r.device_start_ns is None or r.device_start_ns <= r.device_end_ns,
            [name for name in Record.__slots__ if not hasattr(r, name)])
           for r in prof.records]
print(json.dumps({"records": records, "in_c": in_c,
                  "values": [a.to_host().tolist() for a in (z, v, c, w, t, m)]}))
"""


def run(run_python, path):
    result = run_python(f"import sys; sys.argv[1:] = [{path!r}]\n" + WORKLOAD)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_c_and_python_launches_give_the_same_records(run_python):
    in_c, in_python = run(run_python, "c"), run(run_python, "python")
    # every C path taken, then none: 11 operations, and where's and matmul's results (empty)
    assert in_c["in_c"] == 13 and in_python["in_c"] == 0
    launches = [r for r in in_c["records"] if r[0] == "launch"]
    assert [r[1] for r in launches] == [
        "aclnnAdd", "aclnnMuls", "aclnnRsubs", "aclnnInplaceAdd", "aclnnGtTensor",
        "aclnnInplaceCopy", "aclnnReduceSum", "aclnnExp", "aclnnCast",
        "aclnnInplaceFillScalar", "aclnnSWhere", "aclnnMatmul"]
    assert launches[0][2:4] == [[[4, 6], [6], [4, 6]], ["float32"] * 3]
    assert launches[10][2:4] == [[[4, 6]] * 4, ["bool", "float32", "float32", "float32"]]
    assert launches[11][2:4] == [[[4, 6], [6, 4], [4, 4]], ["float32"] * 3]
    assert all(r[4] == 0 and r[5] and r[6] and not r[7] for r in launches)  # device times
    assert all(r[8:] == [0, True, True, True, []] for r in launches)  # every slot set
    copies = [r for r in in_c["records"] if r[0] == "copy"]
    assert [r[1:4] + r[8:9] for r in copies] == [["ACL_MEMCPY_DEVICE_TO_HOST", [], [], 32]]
    assert copies[0][4:8] == [0, True, True, False] and copies[0][9:] == [True, True, True, []]
    assert in_c["records"] == in_python["records"]
    assert in_c["values"] == in_python["values"]
