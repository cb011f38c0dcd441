"""Builds the npusim extension (npuarray._npusim) from kernels/ with cffi; metadata is in pyproject.toml."""
from setuptools import setup

setup(cffi_modules=["npuarray/_acl/_build_npusim.py:ffibuilder"])
