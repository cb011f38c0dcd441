"""The memory pool's lock-free fast path: a small block freed on a stream is
reused on that stream with list.pop/append under the GIL, no lock. Checked here: reuse and
statistics, every block owned exactly once (also when a free list is dropped in the middle
of a release), cross-stream ordering, the limit, threads, fork and graph capture."""
import collections
import textwrap
import threading

import numpy as np
import pytest

import npuarray as npx
from npuarray import _acl
from npuarray.runtime import _memory_pool as mp


@pytest.fixture
def pool():
    """A private pool on device 6, so the statistics are this test's own."""
    pool = mp.MemoryPool(6)
    yield pool
    pool.free_all_blocks()


def cached_ptrs(pool):
    """Every pointer in the pool's free lists, with repetitions."""
    return [ptr for bins in pool._free.values() for ptrs in bins.values() for ptr in ptrs]


def assert_consistent(pool, live=()):
    """Each block is cached at most once and never both cached and live; the statistics
    add up."""
    cached = cached_ptrs(pool)
    assert len(cached) == len(set(cached)), "a block is cached twice"
    assert not set(cached) & {b.ptr for b in live}, "a live block is also cached"
    assert pool.used_bytes() == sum(b._size for b in live)
    assert pool.free_bytes() == pool.total_bytes() - pool.used_bytes()
    assert pool.n_free_blocks() == len(cached)


def test_reuse_on_the_same_stream_and_statistics(pool):
    stream = npx.default_stream(6)
    a = pool.allocate(100, stream)
    ptr = a.ptr
    assert (a.nbytes, a._size, a.device, a.stream) == (100, 512, npx.Device(6), stream)
    del a
    for nbytes in (1, 512, 300):  # the same size class: the same block each time
        b = pool.allocate(nbytes, stream)
        assert b.ptr == ptr and b.nbytes == nbytes and b._size == 512
        assert_consistent(pool, [b])
        del b
    assert pool.total_bytes() == 512 and pool.used_bytes() == 0
    assert pool.peak_total_bytes() == 512
    pool.free_all_blocks()
    assert pool.total_bytes() == 0 and pool.n_free_blocks() == 0


def test_many_live_blocks_are_distinct_and_all_return(pool):
    stream = npx.default_stream(6)
    for _ in range(3):
        live = [pool.allocate(n, stream) for n in (10, 600, 10, 2000, 512, 700)]
        assert len({b.ptr for b in live}) == len(live)
        assert_consistent(pool, live)
        del live
        assert_consistent(pool)
    assert pool.total_bytes() == 512 * (1 + 2 + 1 + 4 + 1 + 2)


def test_arrays_reusing_blocks_keep_their_values(rng):
    hosts = [rng.standard_normal(257).astype(np.float32) for _ in range(20)]
    outs = []
    for host in hosts:
        x = npx.asarray(host)
        outs.append((x + 1.0) * 2.0)  # temporaries are freed and reused at once
    for host, out in zip(hosts, outs):
        np.testing.assert_allclose(out.to_host(), (host + 1.0) * 2.0, rtol=1e-6)


class _DroppingList(list):
    """A free list whose next append is preceded by `hook()` (simulates another thread
    dropping the list just before a lock-free release appends to it)."""
    hook = None

    def append(self, item):
        hook, self.hook = self.hook, None
        if hook:
            hook()
        super().append(item)


@pytest.mark.parametrize("drop", ["retire", "free_all"])
def test_release_into_a_dropped_free_list_files_the_block_once(pool, drop):
    s1 = npx.Stream(6)
    keep = pool.allocate(64, s1)
    gone = pool.allocate(64, s1)
    del gone  # creates the free list (s1, 512)
    ptrs = pool._free[id(s1)][512]
    racing = pool._free[id(s1)][512] = _DroppingList(ptrs)
    if drop == "retire":  # another thread found s1 idle and moved its blocks to any stream
        def hook():
            with pool._lock:
                assert pool._retire_if_idle(id(s1))
        racing.hook = hook
    else:  # another thread freed s1's cached blocks
        racing.hook = lambda: pool.free_all_blocks(s1)
    s1.synchronize()
    ptr = keep.ptr
    del keep  # its append lands in the dropped list: the block is filed again
    assert cached_ptrs(pool).count(ptr) == 1
    assert_consistent(pool)
    again = pool.allocate(64, s1)  # s1's own list has it back
    assert again.ptr == ptr
    del again


def test_block_reused_while_its_idle_stream_is_retired_is_not_given_away(pool, monkeypatch):
    """Another stream finds s1 idle and takes s1's cached blocks; right after s1 answered,
    a thread reuses s1's block (lock-free) and returns it with new work pending on s1. That
    block must not go to the other stream."""
    s1, s2 = npx.Stream(6), npx.Stream(6)
    released = threading.Event()
    busy = []
    first = pool.allocate(64, s1)
    del first  # cached on s1, which is idle
    real_finished = mp._finished

    def finished_then_reuse(stream, *, wait):
        answer = real_finished(stream, wait=wait)
        if stream is s1 and not busy:  # the racing thread, simulated right after the answer
            block = pool.allocate(64, s1)
            busy.append(block.ptr)
            s1.launch_host_func(lambda: released.wait(5))  # s1 now has pending work on it
            del block
        return answer

    monkeypatch.setattr(mp, "_finished", finished_then_reuse)
    try:
        other = pool.allocate(64, s2)
        assert busy and other.ptr != busy[0]
    finally:
        released.set()
        s1.synchronize()
    del other
    assert_consistent(pool)


def test_idle_blocks_freed_for_the_limit_are_out_of_reach_while_their_stream_is_asked(
        pool, monkeypatch):
    """At the limit the pool frees the cached blocks of idle streams. They leave the free
    lists before the stream is asked: an allocation right after the answer ("idle") gets
    another block, and returns it with pending work; only the blocks of the answer are
    freed, and the returned one only after its work is done."""
    s1, s2 = npx.Stream(6), npx.Stream(6)
    pool.set_limit(1024)
    first = pool.allocate(64, s1)
    idle_ptr = first.ptr
    del first
    real_finished, real_free_or_refile = mp._finished, pool._free_or_refile
    reused, freed = [], []

    def finished_then_reuse(stream, *, wait):
        answer = real_finished(stream, wait=wait)
        if stream is s1 and not wait and not reused:
            block = pool.allocate(64, s1)
            reused.append(block.ptr)
            s1.launch_host_func(lambda: threading.Event().wait(0.3))
            del block
        return answer

    def free_or_refile(key, bins, owner, finished):
        if finished:
            freed.extend((ptr, owner is None or owner.query()) for ptrs in bins.values()
                         for ptr in ptrs)
        real_free_or_refile(key, bins, owner, finished)

    monkeypatch.setattr(mp, "_finished", finished_then_reuse)
    monkeypatch.setattr(pool, "_free_or_refile", free_or_refile)
    big = pool.allocate(1024, s2)  # needs s1's blocks freed: the reused one after its work
    assert reused and reused[0] != idle_ptr
    assert freed == [(idle_ptr, False), (reused[0], True)]
    assert pool.total_bytes() == 1024 and not cached_ptrs(pool)
    del big
    s1.synchronize()


def test_blocks_of_a_stream_that_cannot_be_synchronised_stay_cached(pool, monkeypatch):
    """free_all_blocks takes a stream's blocks out before synchronising it; when the
    runtime refuses (a capturing stream), they go back to that stream's free list, whole,
    and the next allocation on the stream reuses one while the other stream's are freed."""
    s1, s2 = npx.Stream(6), npx.Stream(6)
    kept = [pool.allocate(64, s1) for _ in range(2)] + [pool.allocate(2000, s1)]
    freed = pool.allocate(64, s2)
    ptrs = sorted(b.ptr for b in kept)
    del kept, freed
    real_finished = mp._finished
    monkeypatch.setattr(mp, "_finished", lambda stream, *, wait: stream is not s1
                        and real_finished(stream, wait=wait))
    pool.free_all_blocks()
    assert sorted(cached_ptrs(pool)) == ptrs
    assert pool.total_bytes() == 512 * 2 + 2048 and pool.used_bytes() == 0
    assert_consistent(pool)
    again = pool.allocate(100, s1)
    assert again.ptr in ptrs
    del again
    monkeypatch.undo()
    pool.free_all_blocks()
    assert pool.total_bytes() == 0 and not cached_ptrs(pool)


def test_drain_takes_every_block_once():
    ptrs = [1, 2, 3]
    assert sorted(mp._drain(ptrs)) == [1, 2, 3] and ptrs == []
    assert mp._drain([]) == []


def test_block_of_a_busy_stream_is_not_taken_by_another_stream(pool):
    s1, s2 = npx.Stream(6), npx.Stream(6)
    released = threading.Event()
    a = pool.allocate(64, s1)
    ptr = a.ptr
    s1.launch_host_func(lambda: released.wait(5))  # s1 stays busy
    del a
    b = pool.allocate(64, s2)
    assert b.ptr != ptr
    c = pool.allocate(64, s1)  # its own stream: in order, at once
    assert c.ptr == ptr
    released.set()
    s1.synchronize()
    del b, c
    assert_consistent(pool)


def test_cross_stream_reuse_happens_only_after_the_stream_is_idle(pool):
    s1, s2 = npx.Stream(6), npx.Stream(6)
    a = pool.allocate(64, s1)
    ptr = a.ptr
    del a
    s1.synchronize()
    b = pool.allocate(64, s2)
    assert b.ptr == ptr
    del b
    assert_consistent(pool)


def test_limit_holds_on_the_fast_path(pool):
    stream = npx.default_stream(6)
    pool.set_limit(1024)
    for _ in range(5):
        a, b = pool.allocate(512, stream), pool.allocate(300, stream)
        with pytest.raises(npx.OutOfMemoryError):
            pool.allocate(1, stream)
        del a, b
    assert pool.total_bytes() == 1024 and pool.peak_total_bytes() == 1024
    c = pool.allocate(1024, stream)  # another size class: the cached blocks are freed first
    assert pool.total_bytes() == 1024
    del c
    assert_consistent(pool)


def test_two_threads_on_one_stream_never_share_a_block(pool):
    stream = npx.default_stream(6)
    owners = {}
    errors = []
    lock = threading.Lock()

    def work(tag):
        try:
            for i in range(3000):
                buffers = [pool.allocate(64 + 600 * (i % 2), stream) for _ in range(3)]
                with lock:
                    for b in buffers:
                        if b.ptr in owners:
                            errors.append((tag, b.ptr, owners[b.ptr]))
                        owners[b.ptr] = tag
                with lock:
                    for b in buffers:
                        del owners[b.ptr]
                del buffers
                if i % 500 == 0:
                    pool.used_bytes()
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(2)]
    cleaner = threading.Thread(target=lambda: [pool.free_all_blocks() for _ in range(50)])
    for t in threads + [cleaner]:
        t.start()
    for t in threads + [cleaner]:
        t.join(60)
    assert not errors
    assert_consistent(pool)


def test_two_threads_computing_on_one_stream_get_right_answers(rng):
    hosts = [rng.standard_normal(300).astype(np.float32) for _ in range(2)]
    results = collections.defaultdict(list)

    def work(k):
        x = npx.asarray(hosts[k])
        for _ in range(200):
            results[k].append(((x * 2.0) + 1.0).to_host())

    threads = [threading.Thread(target=work, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    for k in range(2):
        assert len(results[k]) == 200
        for out in results[k]:
            np.testing.assert_allclose(out, hosts[k] * 2.0 + 1.0, rtol=1e-6)


def test_fork_child_does_not_return_the_parents_blocks(run_python):
    result = run_python(textwrap.dedent("""
        import os
        import npuarray as npx
        from npuarray.runtime import _memory_pool as mp
        pool = mp.get_default_memory_pool()
        x = npx.ones(100, dtype=npx.float32)
        used = pool.used_bytes()
        pid = os.fork()
        if pid == 0:
            del x                       # the parent's block: not returned in the child
            os._exit(0 if pool.used_bytes() == used else 5)
        _, status = os.waitpid(pid, 0)
        print("exit", os.waitstatus_to_exitcode(status))
        y = x + 1
        print("parent", float(npx.sum(y)), pool.used_bytes() > used)
    """), timeout=60)
    assert result.returncode == 0, result.stderr
    assert "exit 0" in result.stdout and "parent 200.0 True" in result.stdout


@pytest.mark.skipif(not _acl.available("aclmdlRICaptureBegin"),
                    reason="the loaded provider has no aclmdlRICaptureBegin (graph capture)")
def test_captured_allocations_use_the_graph_pool_and_the_default_pool_stays_intact(rng):
    host = rng.standard_normal(200)
    stream = npx.Stream()
    with stream:
        x = npx.asarray(host)
    default = mp.get_default_memory_pool(stream.device)
    warm = (x * 1.0)._buffer.ptr  # a block now cached on `stream` in the default pool
    graph = npx.Graph()
    with stream:
        with graph.capture():
            y = x * 3.0 - 1.0
        assert y._buffer._pool is not default
        assert y._buffer.ptr != warm
        graph.replay()
        np.testing.assert_allclose(y.to_host(), host * 3.0 - 1.0, rtol=1e-12)
        z = x + 2.0  # after the capture: the default pool's fast path again
        assert z._buffer._pool is default
        np.testing.assert_allclose(z.to_host(), host + 2.0, rtol=1e-12)
    graph.destroy()
    cached = cached_ptrs(default)
    assert len(cached) == len(set(cached))


@pytest.mark.parametrize("op", [lambda x, y: x + y, lambda x, y: x * 2.5])
def test_operation_results_follow_using_pool(rng, op):
    """Results of the binary operators come from the thread's pool (using_pool sends them
    from the C path to the Python one)."""
    host1, host2 = rng.standard_normal(300), rng.standard_normal(300)
    x, y = npx.asarray(host1), npx.asarray(host2)
    default = mp.get_default_memory_pool(x.device)
    private = mp.MemoryPool(x.device.id)
    with npx.using_pool(private):
        inside = op(x, y)
    outside = op(x, y)
    assert inside._buffer._pool is private and outside._buffer._pool is default
    assert private.used_bytes() == 2560
    np.testing.assert_allclose(inside.to_host(), op(host1, host2), rtol=1e-12)
    np.testing.assert_allclose(outside.to_host(), op(host1, host2), rtol=1e-12)
    del inside
    assert private.used_bytes() == 0
    private.free_all_blocks()


def test_results_on_a_fresh_device_create_its_default_pool(run_python):
    """The first operation on a device whose default pool does not exist yet."""
    result = run_python(textwrap.dedent("""
        import numpy as np
        import npuarray as npx
        from npuarray.runtime import _memory_pool as mp
        with npx.Device(7):
            x = npx.asarray(np.arange(4.0))
            mp.default_pools.clear()          # as if no array had been made on it yet
            y = x + x
            print(y._buffer._pool is mp.default_pools[7], y.to_host().tolist())
    """), timeout=60)
    assert result.returncode == 0, result.stderr
    assert "True [0.0, 2.0, 4.0, 6.0]" in result.stdout
