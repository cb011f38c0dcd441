"""Builds the npusim extension (npuarray._npusim) from kernels/ with cffi, and npuarray._core._fastpath
(npuarray/_core/_fastpath.c); metadata is in pyproject.toml.

The extensions are also copied next to the sources (``npuarray/`` of the checkout): Python run
from the checkout imports the source tree before the installed package, and that tree must
then be complete too (``python -m benchmarks``, ``python examples/...`` as the README says).
"""
import glob
import os
import shutil

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


class BuildExtAlsoInPlace(build_ext):
    def run(self):
        super().run()
        if self.inplace:
            return
        for ext in self.extensions:
            built = self.get_ext_fullpath(ext.name)
            self.inplace = True
            try:
                in_place = self.get_ext_fullpath(ext.name)
            finally:
                self.inplace = False
            folder = os.path.dirname(in_place)
            if os.path.abspath(in_place) == os.path.abspath(built) or not os.access(folder, os.W_OK):
                continue
            # An older in-place build under another ABI tag would shadow this one.
            stem = ext.name.rsplit(".", 1)[-1]
            for stale in glob.glob(os.path.join(folder, stem + ".*.so")):
                os.remove(stale)
            shutil.copyfile(built, in_place)


# npuarray's host fast path (npuarray/_core/_fastpath.c): a plain CPython extension.
FASTPATH = Extension("npuarray._core._fastpath", ["npuarray/_core/_fastpath.c"],
                     extra_compile_args=["-O2", "-std=c11"])

# DLPack capsules of NPUArrays (npuarray/_core/_dlpack.c): a plain CPython extension.
DLPACK = Extension("npuarray._core._dlpack", ["npuarray/_core/_dlpack.c"],
                   extra_compile_args=["-O2", "-std=c11"])

setup(cffi_modules=["npuarray/_acl/_build_npusim.py:ffibuilder"],
      ext_modules=[FASTPATH, DLPACK],
      cmdclass={"build_ext": BuildExtAlsoInPlace})
