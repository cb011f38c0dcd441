"""``python -m npuarray``: what npuarray runs on, like ``npu-smi info`` (``show_config()``)."""
from . import show_config

show_config()
