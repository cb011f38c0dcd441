"""What a finished profile turns into: the summary table, the Chrome trace, the timeline PNG."""
import collections
import json
import os
import threading

SummaryRow = collections.namedtuple(
    "SummaryRow", "name kind count host_total_us host_mean_us device_total_us "
                  "device_mean_us device_count bytes")
SummaryRow.__doc__ = """Totals of the records of one name. Times in microseconds; the device
columns cover the ``device_count`` records that have device times (0.0 when none do)."""

SORT_KEYS = ("name", "kind", "count", "host_total", "host_mean", "device_total",
             "device_mean", "bytes")


def key_averages(records):
    groups = {}
    for record in records:
        groups.setdefault(record.name, []).append(record)
    rows = []
    for name, group in groups.items():
        host_total = sum(r.host_duration_ns for r in group) / 1e3
        timed = [r.device_duration_ns for r in group if r.device_start_ns is not None]
        device_total = sum(timed) / 1e3
        rows.append(SummaryRow(name, group[0].kind, len(group), host_total,
                               host_total / len(group), device_total,
                               device_total / len(timed) if timed else 0.0, len(timed),
                               sum(r.nbytes for r in group)))
    return rows


class Summary:
    """The rows of ``Profile.summary()``, sorted; ``str()`` is the table."""

    def __init__(self, rows, sort_by, limit):
        if sort_by not in SORT_KEYS:
            raise ValueError("sort_by must be one of %s, got %r" % (", ".join(SORT_KEYS),
                                                                    sort_by))
        if limit is not None and (not isinstance(limit, int) or limit < 0):
            raise ValueError("limit must be None or an int >= 0, got %r" % (limit,))
        field = sort_by if sort_by in ("name", "kind", "count", "bytes") else sort_by + "_us"
        text = sort_by in ("name", "kind")
        rows = sorted(rows, key=lambda row: (getattr(row, field), row.name),
                      reverse=not text)
        self.rows = rows[:limit] if limit is not None else rows

    def __str__(self):
        header = ("Name", "Kind", "Count", "Host total us", "Host mean us",
                  "Device total us", "Device mean us", "Bytes")
        lines = [(row.name, row.kind, str(row.count), "%.1f" % row.host_total_us,
                  "%.2f" % row.host_mean_us, "%.1f" % row.device_total_us,
                  "%.2f" % row.device_mean_us, str(row.bytes)) for row in self.rows]
        widths = [max([len(h)] + [len(line[i]) for line in lines]) for i, h in enumerate(header)]
        rule = "  ".join("-" * w for w in widths)

        def fmt(cells):
            return "  ".join(c.ljust(w) if i < 2 else c.rjust(w)
                             for i, (c, w) in enumerate(zip(cells, widths)))
        return "\n".join([fmt(header), rule, *map(fmt, lines), rule])

    __repr__ = __str__


# -- Chrome trace-event format ------------------------------------------------------------------

HOST_PID = 0   # device d is process d + 1


def _us(ns):
    return ns / 1e3


def _args(record):
    args = {"kind": record.kind}
    if record.device is not None:
        args["device"] = record.device
    if record.stream is not None:
        args["stream"] = repr(record.stream)
    if record.shapes:
        args["shapes"] = [list(s) for s in record.shapes]
        args["dtypes"] = [str(dtype) for dtype in record.dtypes]
    if record.nbytes:
        args["bytes"] = record.nbytes
    if record.captured:
        args["captured"] = True
    return args


def chrome_trace_events(profile):
    """The trace events (dicts) of `profile`: complete events ("X") with ts/dur in
    microseconds, flow events ("s"/"f") from a call to its device work, and metadata
    ("M") naming the processes and tracks."""
    events = [{"ph": "M", "name": "process_name", "pid": HOST_PID, "tid": 0,
               "args": {"name": "host (pid %d)" % os.getpid()}}]
    stream_tids, threads, devices = {}, set(), set()
    for flow_id, record in enumerate(profile.records, 1):
        threads.add(record.thread)
        args = _args(record)
        events.append({"ph": "X", "name": record.name, "cat": record.kind, "pid": HOST_PID,
                       "tid": record.thread, "ts": _us(record.host_start_ns),
                       "dur": _us(record.host_duration_ns), "args": args})
        if record.device_start_ns is None:
            continue
        pid = record.device + 1
        if pid not in devices:
            devices.add(pid)
            events.append({"ph": "M", "name": "process_name", "pid": pid, "tid": 0,
                           "args": {"name": "NPU %d" % record.device}})
        tid = stream_tids.get(record.stream)
        if tid is None:
            tid = stream_tids[record.stream] = len(stream_tids) + 1
            events.append({"ph": "M", "name": "thread_name", "pid": pid, "tid": tid,
                           "args": {"name": repr(record.stream)}})
        start = _us(record.device_start_ns)
        events.append({"ph": "X", "name": record.name, "cat": record.kind, "pid": pid,
                       "tid": tid, "ts": start, "dur": _us(record.device_duration_ns),
                       "args": args})
        events.append({"ph": "s", "name": "launch", "cat": "flow", "id": flow_id,
                       "pid": HOST_PID, "tid": record.thread, "ts": _us(record.host_start_ns)})
        events.append({"ph": "f", "bp": "e", "name": "launch", "cat": "flow", "id": flow_id,
                       "pid": pid, "tid": tid, "ts": start})
    names = {t.native_id: t.name for t in threading.enumerate()}  # threads still running
    for thread in sorted(threads):
        events.append({"ph": "M", "name": "thread_name", "pid": HOST_PID, "tid": thread,
                       "args": {"name": "%s (%d)" % (names.get(thread, "host thread"), thread)}})
    return events


def write_chrome_trace(profile, path):
    with open(path, "w") as f:
        json.dump({"traceEvents": chrome_trace_events(profile), "displayTimeUnit": "ms"}, f)


# -- timeline PNG -------------------------------------------------------------------------------

_COLOURS = {"launch": "tab:blue", "copy": "tab:orange", "event_wait": "tab:red",
            "replay": "tab:purple", "event_record": "tab:green", "synchronize": "tab:gray",
            "memset": "tab:brown"}


def _pyplot():
    try:
        import matplotlib
    except ImportError as exc:
        raise ImportError("Profile.plot() needs matplotlib, the optional 'profile' extra: "
                          'pip install "npuarray[profile]" (or pip install matplotlib)') from exc
    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt
    return plt


def _lanes(profile):
    """(label, [(start us, duration us, kind)]) per device stream, then per host thread."""
    lanes = {}
    for record in profile.records:
        if record.device_start_ns is not None:
            label = "NPU %d %s" % (record.device, _short(record.stream))
            lanes.setdefault(label, []).append((_us(record.device_start_ns),
                                                _us(record.device_duration_ns), record.kind))
    for record in profile.records:
        label = "host thread %d" % record.thread
        lanes.setdefault(label, []).append((_us(record.host_start_ns),
                                            _us(record.host_duration_ns), record.kind))
    return list(lanes.items())


def _short(stream):
    """"default stream 0x..." / "Stream 0x..." from the stream's repr (its device is on the label)."""
    text = repr(stream)
    if text.startswith("<npuarray."):
        text = text[len("<npuarray."):-1].split(" on device")[0]
    return text


def plot_timeline(profile, path):
    plt = _pyplot()
    lanes = _lanes(profile)
    figure, axes = plt.subplots(figsize=(12, 1.6 + 0.5 * max(len(lanes), 1)))
    for row, (_, spans) in enumerate(lanes):
        for kind in _COLOURS:
            bars = [(start, max(duration, 0.01)) for start, duration, k in spans if k == kind]
            if bars:
                axes.broken_barh(bars, (row - 0.4, 0.8), color=_COLOURS[kind])
    axes.set_yticks(range(len(lanes)))
    axes.set_yticklabels([label for label, _ in lanes], fontsize=8)
    axes.invert_yaxis()
    axes.set_xlim(0, _us(profile.duration_ns))
    axes.set_xlabel("time since the profile started (us)")
    axes.set_title("npuarray profile: device streams and host threads")
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in _COLOURS.values()]
    axes.legend(handles, list(_COLOURS), loc="upper center", bbox_to_anchor=(0.5, -0.25),
                fontsize=7, ncol=len(_COLOURS), frameon=False)
    figure.tight_layout()
    figure.savefig(path, format="png", dpi=100)
    plt.close(figure)
