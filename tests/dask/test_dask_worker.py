"""`dask npu worker`: two "nodes" on 127.0.0.1 (a scheduler process and two worker commands,
each with its own simulated NPU), their results against NumPy, a worker lost mid-way, and
shutdown on SIGTERM."""
import json
import os
import signal
import subprocess
import sys
import time
import tomllib

import numpy as np
import pytest

pytest.importorskip("dask.array", reason="dask is not installed (pip install 'npuarray[dask]')")
pytest.importorskip("distributed", reason="dask.distributed is not installed (pip install 'npuarray[dask]')")
psutil = pytest.importorskip("psutil", reason="psutil (a dask.distributed dependency) is missing")
import dask.array as da  # noqa: E402
from distributed import Client, wait  # noqa: E402

import npuarray as npx  # noqa: E402
from npuarray.dask import _cli, _spec, device_reports  # noqa: E402

from conftest import package_env  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
START_TIMEOUT = 120  # seconds: spawned workers import npuarray and Dask on a busy machine


def dist_info(directory):
    """A dist-info for npuarray with the entry points pyproject.toml declares, so that the
    `dask` command finds `npu` as an installed npuarray would provide it."""
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        groups = tomllib.load(f)["project"]["entry-points"]
    info = os.path.join(directory, "npuarray-0.1.0.dist-info")
    os.makedirs(info, exist_ok=True)
    with open(os.path.join(info, "METADATA"), "w") as f:
        f.write("Metadata-Version: 2.1\nName: npuarray\nVersion: 0.1.0\n")
    with open(os.path.join(info, "entry_points.txt"), "w") as f:
        for group, entries in groups.items():
            f.write(f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in entries.items()))
    return directory


class Node:
    """One `dask npu worker` command (a "machine"): its process and its workers' names."""

    def __init__(self, command, scheduler, prefix, env, log, *options):
        self.prefix = prefix
        self.log = log  # a file, not a pipe: a full pipe would block the command's logging
        with open(log, "wb") as out:
            self.process = subprocess.Popen(
                [*command, "worker", scheduler, "--host", "127.0.0.1", "--name-prefix", prefix,
                 "--memory-limit", "0", "--death-timeout", "60", *options],
                env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)

    def output(self):
        with open(self.log, errors="replace") as f:
            return f.read()[-3000:]

    def stop(self, sig=signal.SIGTERM, timeout=60):
        """Signal the command; its return code (killing its process group if it hangs)."""
        if self.process.poll() is None:
            self.process.send_signal(sig)
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
            raise


def start_scheduler(tmp):
    path = os.path.join(tmp, "scheduler.json")
    process = subprocess.Popen(
        [sys.executable, "-m", "dask", "scheduler", "--host", "127.0.0.1", "--port", "0",
         "--no-dashboard", "--scheduler-file", path],
        env=package_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True)
    deadline = time.monotonic() + START_TIMEOUT
    while not os.path.exists(path) or not os.path.getsize(path):
        assert process.poll() is None, "the scheduler exited"
        assert time.monotonic() < deadline, "the scheduler did not start"
        time.sleep(0.1)
    time.sleep(0.2)  # the file is written in one call; let it be complete
    with open(path) as f:
        return process, json.load(f)["address"]


def node_env(tmp, **extra):
    """One simulated NPU per node, the dist-info with the `dask_cli` entry point on the path."""
    env = package_env(**{"NPUSIM_DEVICE_COUNT": "1", "NPUSIM_NUM_THREADS": "1", **extra})
    env["PYTHONPATH"] += os.pathsep + dist_info(os.path.join(tmp, "site"))
    return env


def worker_names(client):
    return sorted(w["name"] for w in client.scheduler_info(n_workers=-1)["workers"].values())


def wait_for_names(client, names, timeout=START_TIMEOUT):
    deadline = time.monotonic() + timeout
    while not set(names) <= set(worker_names(client)):
        assert time.monotonic() < deadline, f"workers {names} did not join: {worker_names(client)}"
        time.sleep(0.1)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """(client, nodes, scheduler address): `python -m dask npu worker` as node "a", `python -m
    npuarray.dask worker` as node "b" (spill threshold 1 MiB), one NPU each."""
    tmp = str(tmp_path_factory.mktemp("nodes"))
    scheduler, address = start_scheduler(tmp)
    env = node_env(tmp)
    nodes = [Node([sys.executable, "-m", "dask", "npu"], address, "a", env,
                  os.path.join(tmp, "a.log"), "--local-directory", os.path.join(tmp, "a")),
             Node([sys.executable, "-m", "npuarray.dask"], address, "b", env,
                  os.path.join(tmp, "b.log"), "--local-directory", os.path.join(tmp, "b"),
                  "--device-memory-limit", "1MiB",
                  "--resources", "NPU=1")]
    try:
        with Client(address, timeout=START_TIMEOUT) as client:
            wait_for_names(client, ["a-npu0", "b-npu0"])
            yield client, nodes, address
    finally:
        for node in nodes:
            node.stop()
        scheduler.terminate()
        scheduler.wait(60)


def on_workers(client, host, chunks):
    """`host` as a Dask array of NPUArray chunks loaded on the workers, persisted."""
    x = da.from_array(host, chunks=chunks).map_blocks(npx.asarray, meta=npx.empty((0,) * host.ndim))
    x = client.persist(x)
    wait(x)
    return x


def test_two_nodes_each_with_its_own_npu_run_one_worker_each(cluster):
    client, nodes, _ = cluster
    assert worker_names(client) == ["a-npu0", "b-npu0"]

    def device(dask_worker):
        import npuarray as npx
        return (dask_worker.name, os.environ["ASCEND_RT_VISIBLE_DEVICES"], npx.device_count(),
                dask_worker.data.device_memory_limit, dict(dask_worker.state.total_resources))
    seen = sorted(client.run(device).values())
    assert seen == [("a-npu0", "0", 1, int(0.8 * 8 * 2**30), {}),
                    ("b-npu0", "0", 1, 2**20, {"NPU": 1.0})]
    # Every worker process is a child of its node's command.
    pids = client.run(os.getpid)
    children = {n.prefix: {p.pid for p in psutil.Process(n.process.pid).children(recursive=True)}
                for n in nodes}
    for address, info in client.scheduler_info(n_workers=-1)["workers"].items():
        assert pids[address] in children[info["name"].split("-")[0]]


def spread_over_nodes(client, host, chunks):
    """`host` as a Dask array of NPUArray chunks: the first half of its rows persisted on
    node "a"'s worker, the rest on node "b"'s (placed, not left to the scheduler, which
    may keep every chunk on one worker when the machine is busy)."""
    by_name = {w["name"]: address for address, w in client.scheduler_info(n_workers=-1)["workers"].items()}
    rows = host.shape[0] // 2
    halves = []
    for part, name in ((host[:rows], "a-npu0"), (host[rows:], "b-npu0")):
        half = da.from_array(part, chunks=chunks).map_blocks(npx.asarray, meta=npx.empty((0,) * host.ndim))
        half = client.persist(half, workers=[by_name[name]], allow_other_workers=False)
        wait(half)
        halves.append(half)
    holders = client.run_on_scheduler(
        lambda dask_scheduler, keys: sorted({ws.name for k in keys for ws in dask_scheduler.tasks[k].who_has}),
        keys=[k for half in halves for k in da.core.flatten(half.__dask_keys__())])
    assert holders == ["a-npu0", "b-npu0"]
    return da.concatenate(halves)


def test_chunked_matmul_and_reductions_match_numpy(cluster, rng):
    client, _, _ = cluster
    a, b = rng.standard_normal((192, 96)), rng.standard_normal((96, 64))
    x, y = spread_over_nodes(client, a, (48, 32)), on_workers(client, b, (32, 32))
    types = client.run(lambda dask_worker: sorted({type(v).__name__
                                                   for v in dask_worker.data.values()}))
    assert all(t == ["NPUArray"] for t in types.values())
    before = device_reports(client)
    product, total, col_max, mean = client.compute(
        [x @ y, (x @ y).sum(), x.max(axis=0), x.mean(axis=1)], sync=True)
    assert all(isinstance(r, npx.NPUArray) for r in (product, total, col_max, mean))
    np.testing.assert_allclose(product.to_host(), a @ b, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(total.to_host(), (a @ b).sum(), rtol=1e-10)
    np.testing.assert_array_equal(col_max.to_host(), a.max(axis=0))
    np.testing.assert_allclose(mean.to_host(), a.mean(axis=1), rtol=1e-12)
    after = device_reports(client)
    assert sorted(after) == ["a-npu0", "b-npu0"]
    moved = sum(after[w]["device_to_host"] - before[w]["device_to_host"] for w in after)
    sent = sum(after[w]["sent_bytes"] - before[w]["sent_bytes"] for w in after)
    assert moved > 0 and sent > 0  # chunks crossed between the nodes through pinned memory
    assert all(r["device_bytes"] > 0 and r["host_bytes"] == r["disk_bytes"] == 0
               for r in after.values())  # nothing spilled: under both thresholds


def test_shuffle_sort_and_rechunk_match_numpy(cluster, rng):
    client, _, _ = cluster
    host = rng.standard_normal((64, 48))
    x = on_workers(client, host, (16, 12))
    transposed = client.compute(x.rechunk((64, 4)).T.rechunk((6, 64)), sync=True)
    np.testing.assert_array_equal(transposed.to_host(), host.T)
    values = rng.permutation(256).astype(np.float64)
    v = on_workers(client, values, 32)
    perm = rng.permutation(256)
    top, bottom, shuffled = client.compute([da.topk(v, 10), da.topk(v, -5), v[perm]], sync=True)
    np.testing.assert_array_equal(top.to_host(), np.sort(values)[::-1][:10])
    np.testing.assert_array_equal(bottom.to_host(), np.sort(values)[:5])
    np.testing.assert_array_equal(shuffled.to_host(), values[perm])


_CLIENT = """
import dask, numpy as np
import dask.array as da
import npuarray
from distributed import Client
with Client() as client, dask.config.set({"array.backend": "npuarray"}):
    x = da.random.default_rng(5).standard_normal((256, 16), chunks=(32, 16))
    gram = client.compute(x.T @ x).result()
    local = x.compute(scheduler="sync").to_host()
    print(type(gram).__name__, np.allclose(gram.to_host(), local.T @ local, rtol=1e-12))
"""


def test_a_client_that_only_imports_npuarray_gets_npuarrays(cluster, tmp_path):
    # Client() finds the scheduler through DASK_SCHEDULER_ADDRESS, as the README shows.
    _, _, address = cluster
    out = subprocess.run([sys.executable, "-c", _CLIENT], cwd=tmp_path, capture_output=True,
                         text=True, timeout=START_TIMEOUT,
                         env=package_env(DASK_SCHEDULER_ADDRESS=address))
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split() == ["NPUArray", "True"]


def test_a_worker_killed_mid_computation_and_the_result_is_still_right(cluster, rng, tmp_path):
    client, _, _ = cluster
    host = rng.standard_normal((128, 64))
    x = on_workers(client, host, (16, 64))
    gate = str(tmp_path / "gate")

    def gated(block):
        deadline = time.monotonic() + 120
        while not os.path.exists(gate) and time.monotonic() < deadline:
            time.sleep(0.01)
        return block * 2

    result = client.compute((x.map_blocks(gated, meta=x._meta).T @ x).sum(axis=0))
    deadline = time.monotonic() + START_TIMEOUT
    while True:  # a worker holding chunks is in the middle of the computation
        holders = {a for addresses in client.who_has(x).values() for a in addresses}
        busy = sorted(a for a, keys in client.processing().items() if keys and a in holders)
        if busy:
            break
        assert time.monotonic() < deadline, "the computation did not start"
        time.sleep(0.05)
    victim = busy[0]
    pid = client.run(os.getpid, workers=[victim])[victim]
    os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + START_TIMEOUT
    while victim in client.scheduler_info(n_workers=-1)["workers"]:
        assert time.monotonic() < deadline, "the scheduler did not notice the lost worker"
        time.sleep(0.05)
    open(gate, "w").close()
    got = result.result(timeout=START_TIMEOUT)
    assert not result.cancelled()
    np.testing.assert_allclose(got.to_host(), (2 * host.T @ host).sum(axis=0), rtol=1e-10)
    wait_for_names(client, ["a-npu0", "b-npu0"])  # the nanny restarted the worker process


def test_sigterm_closes_every_worker_and_exits(cluster, tmp_path):
    client, _, address = cluster
    node = Node([sys.executable, "-m", "npuarray.dask"], address, "c",
                node_env(str(tmp_path), NPUSIM_DEVICE_COUNT="2"), str(tmp_path / "c.log"),
                "--local-directory", str(tmp_path / "c"), "--devices", "1,0", "--nthreads", "2")
    try:
        wait_for_names(client, ["c-npu0", "c-npu1"])
        workers = client.scheduler_info(n_workers=-1)["workers"]
        info = {w["name"]: (a, w) for a, w in workers.items()}
        assert info["c-npu1"][1]["nthreads"] == 2
        visible = client.run(
            lambda: (os.environ["ASCEND_RT_VISIBLE_DEVICES"], npx.device_count()),
            workers=[info["c-npu0"][0], info["c-npu1"][0]])
        assert sorted(visible.values()) == [("0", 1), ("1", 1)]  # each sees its NPU alone
        children = psutil.Process(node.process.pid).children(recursive=True)
        assert len(children) >= 2
    finally:
        code = node.stop(signal.SIGTERM)
    assert code == 0, node.output()
    gone, alive = psutil.wait_procs(children, timeout=30)
    assert not alive
    deadline = time.monotonic() + 30
    while any(n.startswith("c-") for n in worker_names(client)):
        assert time.monotonic() < deadline, "the closed workers are still registered"
        time.sleep(0.05)


@pytest.mark.parametrize("args, message", [
    (["--devices", "0,x"], "device ids must be integers"),
    (["--devices", "1,1"], "distinct"),
    (["--device-memory-limit", "lots"], "neither bytes"),
    (["--resources", "NPU"], "NAME=NUMBER"),
    (["--nthreads", "0"], "must be >= 1"),
])
def test_bad_options_are_rejected_with_a_clear_message(args, message):
    from click.testing import CliRunner
    result = CliRunner().invoke(_cli.npu, ["worker", "tcp://127.0.0.1:1", *args])
    assert result.exit_code == 2 and message in result.output


def test_the_declared_dask_cli_entry_point_is_the_npu_group(tmp_path):
    # (Node "a" of the cluster runs `python -m dask npu worker` through it.)
    from importlib.metadata import distributions

    from click.testing import CliRunner
    (dist,) = distributions(path=[dist_info(str(tmp_path))])
    (entry,) = [e for e in dist.entry_points if e.group == "dask_cli"]
    assert entry.name == "npu" and entry.load() is _cli.npu
    result = CliRunner().invoke(_cli.npu, ["worker", "--help"])
    assert result.exit_code == 0
    for option in ("--devices", "--nthreads", "--device-memory-limit", "--memory-limit",
                   "--name-prefix", "--resources", "--local-directory"):
        assert option in result.output


def test_nanny_options_are_those_of_local_npu_cluster():
    options = _spec.nanny_options(3, name="n", device_memory_limit="2GiB", pool_limit="4GiB",
                                  memory_limit="8GiB", resources={"NPU": 1})
    assert options["env"] == {"ASCEND_RT_VISIBLE_DEVICES": "3", "NPUARRAY_MEMORY_LIMIT": "4GiB"}
    assert options["preload"] == ["npuarray.dask._worker"]
    assert options["preload_argv"] == ["--device-memory-limit", "2GiB"]
    assert options["memory_limit"] == "8GiB"  # host memory before spilled chunks go to disk
    assert _spec.parse_resources("NPU=1, MEM=1e9") == {"NPU": 1.0, "MEM": 1e9}
    assert _spec.visible_devices("2,0") == [2, 0]
