"""cffi declarations of npusim's own tools (not part of the ACL ABI, so the CANN loader never
looks for them): the strict-mode log (kernels/runtime/notes.c)."""

CDEF = """
size_t npusim_take_notes(char *buf, size_t cap);
"""
