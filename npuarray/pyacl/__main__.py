"""python -m npuarray.pyacl SCRIPT [ARGS...]: runs a pyACL program unchanged, its ``import
acl`` (and ``acl.rt``, ``acl.util``, ``acl.media``, ``acl.himpi``) served by npuarray.pyacl
over whichever provider npuarray loads (NPUARRAY_BACKEND=npusim simulates even where CANN is
installed). The alias exists only in this process."""
import os
import runpy
import sys

import npuarray.pyacl as acl

USAGE = "usage: python -m npuarray.pyacl SCRIPT [ARGS...]"


def alias_acl():
    """Makes ``import acl`` (and its submodules) resolve to npuarray.pyacl here."""
    sys.modules["acl"] = acl
    for name in ("rt", "util", "media", "himpi"):
        sys.modules["acl." + name] = getattr(acl, name)


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE, file=sys.stderr if not argv else sys.stdout)
        return 2 if not argv else 0
    script = argv[0]
    if not os.path.isfile(script):
        print("npuarray.pyacl: no such script: %s\n%s" % (script, USAGE), file=sys.stderr)
        return 2
    alias_acl()
    sys.argv = list(argv)
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    runpy.run_path(script, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
