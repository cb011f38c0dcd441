"""Graph capture and replay: ``npuarray.Graph`` (aclmdlRI) and ``npuarray.capture_mode``.

Between ``aclmdlRICaptureBegin`` and ``aclmdlRICaptureEnd`` the work npuarray
issues on a stream is recorded into a model running instance (aclmdlRI) instead
of being run; ``aclmdlRIExecuteAsync`` replays it, in stream order, at the cost
of one launch for the whole graph (docs/acl-abi.md section 5).

Memory: arrays created inside the capture take their memory from a pool
private to the graph (``Graph.memory_pool``), kept while the graph lives and
rewritten by every replay. Arrays made before the capture and used by it are
the graph's inputs: the graph keeps them alive, and a replay reads their
current contents. Destroying the graph returns its pool to the device.
"""
import contextlib
import functools
import threading
import weakref

from .._acl import AclError, CaptureError, check, ffi, lib
from . import _capture_guard
from ._device import activate, current_device_id, keep_at_exit, release_later_if_needed
from ._memory_pool import MemoryPool
from ._stream import as_stream, forget_host_functions
from . import _profiler

__all__ = ["Graph", "capture_mode"]

CAPTURE_MODES = {"global": 0, "thread_local": 1, "relaxed": 2}  # aclmdlRICaptureMode
ACL_ERROR_RT_MODEL_CAPTURED = 107026
ACL_ERROR_RT_STREAM_CAPTURED = 107027
ACL_ERROR_RT_STREAM_CAPTURE_IMPLICIT = 107031


def _mode_value(mode):
    if not isinstance(mode, str):
        raise TypeError(f"capture mode must be a str, one of {', '.join(CAPTURE_MODES)}; "
                        f"got {type(mode).__name__}")
    try:
        return CAPTURE_MODES[mode.lower()]
    except KeyError:
        raise ValueError(f"unknown capture mode {mode!r}; expected one of "
                         f"{', '.join(map(repr, CAPTURE_MODES))}") from None


@functools.cache
def _graph_pool_type():
    class GraphMemoryPool(MemoryPool):
        """The private pool of one graph. Once the graph is destroyed (``closed``) a block
        released by a surviving output array goes straight back to the device."""
        closed = False

        def _release(self, size, ptr, stream):
            super()._release(size, ptr, stream)
            if self.closed:
                self.free_all_blocks()
                if self.n_free_blocks():  # its stream is being captured: free it later
                    _closed_pools.add(self)

    return GraphMemoryPool


_closed_pools = set()  # pools of released graphs still caching blocks (see free_closed_pools)


def free_closed_pools():
    """Frees the blocks of released graphs' pools that could not be freed when they were
    returned (a block's stream was being captured then); called when a capture ends."""
    for pool in list(_closed_pools):
        pool.free_all_blocks()
        if not pool.n_free_blocks():
            _closed_pools.discard(pool)


class Graph:
    """A recorded sequence of device work, replayable on any stream of its device.

    Usage::

        x = npx.asarray(data)                     # inputs: made before the capture
        with npx.Stream() as s:
            g = npx.Graph()
            with g.capture():                     # record, do not run
                y = npx.sum(x * x, axis=1)        # outputs: made inside the capture
            for batch in batches:
                x[...] = batch                    # update inputs in place
                g.replay()                        # y is recomputed from the new x
                use(y.to_host())

    A Graph holds one capture. It is released by ``destroy()``, by leaving a
    ``with Graph() as g:`` block, or when garbage collected. ``memory_pool`` is
    its private ``MemoryPool`` (``used_bytes()``, ``total_bytes()``).
    """

    def __init__(self):
        self._handle = None        # aclmdlRI after a successful capture
        self._capture = None       # _capture_guard.Capture while capturing
        self._device = None
        self._pool = None
        self._inputs = ()          # buffers made outside the capture (kept alive)
        self._outputs = ()         # weak references to the graph's own buffers
        self._resources = None     # _Resources: what destroy() releases
        self._destroyed = False
        self._finalizer = None
        self._replay_lock = threading.Lock()

    # -- capture -----------------------------------------------------------------------------

    @contextlib.contextmanager
    def capture(self, stream=None, mode="global"):
        """Records the work npuarray issues on `stream` inside the block instead of running it
        (aclmdlRICaptureBegin / aclmdlRICaptureEnd).

        `stream`: an ``npuarray.Stream`` (default: the current stream), which must not be
        a default stream (CaptureError 107031: use ``npuarray.Stream()``); it is the
        current stream of this thread inside the block (as in PyTorch). Work other
        streams do after waiting on an event recorded on a captured stream is captured
        too; they must rejoin (an event recorded on them and waited on by a captured
        stream) before the block ends, else CaptureError 107025. `mode`: "global"
        (default; synchronous copies are refused on this thread and on the threads
        still in global mode, see ``capture_mode``), "thread_local" (refused on this
        thread only) or "relaxed" (no restriction) (ACL_MODEL_RI_CAPTURE_MODE_*).

        Inside the block nothing may wait for captured work or read arrays on the host,
        nor copy host data in (CaptureError before the runtime is called; the capture
        goes on). Arrays created in the block (outputs) get memory from the graph's
        pool; arrays made before it and used in it (inputs) are read at each replay.
        Using an output on a stream outside the capture raises CaptureError. When the
        block raises, the capture is ended and discarded and the exception propagates.
        Raises ValueError when the graph already holds a capture or was destroyed,
        TypeError / ValueError for a bad `mode`.
        """
        capture = self._begin(stream, mode)
        try:
            with capture.origin:
                yield self
        except BaseException:
            self._abort(capture)
            raise
        self._end(capture)

    def _begin(self, stream, mode):
        value = _mode_value(mode)
        stream = as_stream(stream)
        if self._destroyed:
            raise ValueError("this Graph was destroyed; create a new npuarray.Graph()")
        if self._handle is not None or self._capture is not None:
            raise ValueError("this Graph already holds a capture; create a new "
                             "npuarray.Graph() for another one")
        _check_capturable(stream)
        pool = _graph_pool_type()(stream.device)
        capture = _capture_guard.Capture(stream, pool, stream.record())
        activate(stream.device.id)
        check(lib.aclmdlRICaptureBegin(stream.handle, value), "aclmdlRICaptureBegin")
        self._capture = capture
        _capture_guard.begin(capture)
        return capture

    def _end(self, capture):
        model = ffi.new("aclmdlRI *")
        _capture_guard.end(capture)
        self._capture = None
        activate(capture.origin.device.id)
        ret = lib.aclmdlRICaptureEnd(capture.origin.handle, model)
        if ret:
            forget_host_functions(capture.host_funcs)
            capture.pool.closed = True
            capture.pool.free_all_blocks()
            check(ret, "aclmdlRICaptureEnd")  # the stream is out of capture; nothing kept
        self._handle = model[0]
        self._device = capture.origin.device
        self._pool = capture.pool
        self._inputs = tuple(capture.inputs)
        self._outputs = tuple(weakref.ref(buffer) for buffer in capture.outputs)
        self._resources = _Resources(self._handle, self._device.id, self._pool,
                                     capture.host_funcs)
        self._finalizer = keep_at_exit(weakref.finalize(self, _release_later, self._resources))
        if _closed_pools:
            free_closed_pools()

    def _abort(self, capture):
        """Ends a capture whose block raised and drops what it recorded; the graph is empty
        again. Errors of the runtime here are secondary to the block's own exception."""
        try:
            self._end(capture)
        except AclError:
            return
        self._finalizer()
        self._handle = self._device = self._pool = self._resources = self._finalizer = None
        self._inputs = self._outputs = ()

    # -- replay ------------------------------------------------------------------------------

    def replay(self, stream=None):
        """Runs the captured work again on `stream` (default: the current stream)
        (aclmdlRIExecuteAsync), after the work queued there so far and after the work that
        last wrote the graph's inputs on other streams; asynchronous to the host. The
        graph's outputs are rewritten in place; reading them waits for this replay.
        `stream` must belong to the graph's device (ValueError). Raises ValueError when
        nothing was captured or the graph was destroyed, CaptureError 107026 while the
        graph is still being captured, CaptureError 107027 when `stream` is being
        captured (a replay inside another capture would outlive this graph's memory)."""
        stream = as_stream(stream)
        handle = self._ready_handle("replay")
        if stream is not self._resources.last_stream and stream.device != self._device:
            raise ValueError(f"this graph was captured on {self._device!r}; it cannot be "
                             f"replayed on {stream!r}")
        if _capture_guard.active and _capture_guard.capture_of(stream) is not None:
            raise CaptureError(ACL_ERROR_RT_STREAM_CAPTURED, "Graph.replay",
                               f"{stream!r} is being captured into another graph; a graph "
                               "cannot be replayed inside a capture (capture its work "
                               "directly instead)")
        with self._replay_lock:   # replays from several threads queue one after another
            self._order_before_replay(stream)
            activate(stream.device.id)
            span = _profiler.active and _profiler.begin_stream_work("replay",
                                                                    "aclmdlRIExecuteAsync", stream)
            check(lib.aclmdlRIExecuteAsync(handle, stream.handle), "aclmdlRIExecuteAsync")
            if span:
                _profiler.end(span)
            self._resources.last_stream = stream

    def _order_before_replay(self, stream):
        # Inputs may have been written, and outputs read, on other streams since the last
        # replay, and the previous replay may run on another stream (it shares the
        # graph's memory): the replay stream waits for them, the host does not.
        for buffer in self._inputs:
            buffer.prepare(stream)
        for ref in self._outputs:
            buffer = ref()
            if buffer is not None:
                buffer.prepare(stream)
        last = self._resources.last_stream
        if last is not None and last is not stream:
            stream.wait_event(last.record())

    def _ready_handle(self, what):
        if self._capture is not None:
            raise CaptureError(ACL_ERROR_RT_MODEL_CAPTURED, f"Graph.{what}",
                               "the graph is still being captured; leave the "
                               "`with graph.capture():` block first")
        if self._destroyed:
            raise ValueError(f"cannot {what} a destroyed Graph")
        if self._handle is None:
            raise ValueError(f"cannot {what} a Graph before capturing into it "
                             "(use `with graph.capture():`)")
        return self._handle

    # -- inspection and release --------------------------------------------------------------

    def debug_print(self):
        """Prints the captured graph's device, streams and tasks (aclmdlRIDebugPrint; the
        runtime writes it to its log / standard output). ValueError before a capture."""
        handle = self._ready_handle("debug_print")
        activate(self._device.id)
        check(lib.aclmdlRIDebugPrint(handle), "aclmdlRIDebugPrint")

    @property
    def memory_pool(self):
        """The graph's private MemoryPool (None before a capture)."""
        return self._pool if self._pool is not None else (
            self._capture.pool if self._capture is not None else None)

    @property
    def is_captured(self):
        """True once a capture has completed and until the graph is destroyed."""
        return self._handle is not None and not self._destroyed

    def destroy(self):
        """Releases the graph (aclmdlRIDestroy) after its latest replay has finished (the host
        waits for that replay only), its hold on the input arrays, and its memory pool:
        the cached blocks go back to the device at once, the blocks of output arrays
        still referenced when those arrays die. Idempotent. CaptureError 107026 while
        the graph is being captured."""
        if self._capture is not None:
            raise CaptureError(ACL_ERROR_RT_MODEL_CAPTURED, "Graph.destroy",
                               "the graph is still being captured; leave the "
                               "`with graph.capture():` block first")
        if self._destroyed:
            return
        self._destroyed = True
        if self._finalizer is not None:
            self._finalizer.detach()
            self._resources.release()
        self._inputs = self._outputs = ()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self._capture is None:
            self.destroy()
        return False

    def __repr__(self):
        state = ("destroyed" if self._destroyed else "capturing" if self._capture is not None
                 else "captured" if self._handle is not None else "empty")
        where = f" on {self._device!r}" if self._device is not None else ""
        return f"<npuarray.Graph {state}{where}>"


def _check_capturable(stream):
    if stream.is_default:
        raise CaptureError(
            ACL_ERROR_RT_STREAM_CAPTURE_IMPLICIT, "Graph.capture",
            f"{stream!r} is a default stream, which cannot be captured: capture on a "
            "stream you create, e.g. `with npuarray.Stream(): with graph.capture(): ...`")
    if _capture_guard.capture_of(stream) is not None:
        raise CaptureError(
            ACL_ERROR_RT_STREAM_CAPTURED, "Graph.capture",
            f"{stream!r} is already being captured into another graph; end that capture "
            "first or capture on another stream")


class _Resources:
    """What a captured graph owns: its aclmdlRI, device and pool, and the stream of its
    latest replay (None before the first one)."""
    __slots__ = ("handle", "device_id", "pool", "host_funcs", "last_stream")

    def __init__(self, handle, device_id, pool, host_funcs):
        self.handle = handle
        self.device_id = device_id
        self.pool = pool
        self.host_funcs = host_funcs  # keys of the captured host functions
        self.last_stream = None

    def release(self):
        """Destroys the aclmdlRI and frees the pool once the latest replay has run."""
        if self.last_stream is not None:
            self.last_stream.record().synchronize()
        activate(self.device_id)
        check(lib.aclmdlRIDestroy(self.handle), "aclmdlRIDestroy")
        forget_host_functions(self.host_funcs)
        self.pool.closed = True
        self.pool.free_all_blocks()


def _release_later(resources):
    # A graph may be garbage collected on a host-function thread, where ACL calls are banned.
    release_later_if_needed(resources.release)


@contextlib.contextmanager
def capture_mode(mode):
    """Sets this thread's capture mode inside the block and restores the previous one after
    (aclmdlRICaptureThreadExchangeMode; modes "global" (the default), "thread_local",
    "relaxed").

    While a capture runs, synchronous copies and memsets (e.g.
    ``DeviceMemory.copy_from_host(..., stream=npuarray.default_stream())`` or
    ``x.to_host()`` on a default stream) raise CaptureError 107030 on a thread whose
    mode forbids them: a "global" capture forbids them on its own thread and on every
    thread whose mode is "global"; a "thread_local" capture only on its own thread;
    "relaxed" lifts the restriction for this thread. Reading arrays on the host stays
    refused in a thread that is capturing, whatever its mode. TypeError / ValueError
    for a bad `mode`."""
    value = ffi.new("aclmdlRICaptureMode *", _mode_value(mode))
    activate(current_device_id())
    check(lib.aclmdlRICaptureThreadExchangeMode(value), "aclmdlRICaptureThreadExchangeMode")
    try:
        yield
    finally:
        check(lib.aclmdlRICaptureThreadExchangeMode(value), "aclmdlRICaptureThreadExchangeMode")
