"""``python -m npuarray``: what npuarray runs on, like ``npu-smi info`` (``show_config()``:
backend, libraries, devices with their memory and memory pools, the pinned host pool, host
fallbacks)."""
from . import show_config

show_config()
