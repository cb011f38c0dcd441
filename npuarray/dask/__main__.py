"""``python -m npuarray.dask worker SCHEDULER``: ``dask npu worker`` without the
``dask`` command (see :mod:`npuarray.dask._cli`)."""
from ._cli import npu

if __name__ == "__main__":
    npu(prog_name="python -m npuarray.dask")
