"""npuarray's profiler: ``with npuarray.profile() as prof:`` records operator launches,
copies, events, synchronisations and graph replays per device and stream, with host and
device times; then ``prof.summary()``, ``prof.export_chrome_trace(path)`` and
``prof.plot(path)``. See ``Profile``."""
from ._export import Summary, SummaryRow
from ._profile import Profile, profile
from ..runtime._profiler import Record

__all__ = ["Profile", "Record", "Summary", "SummaryRow", "profile"]
