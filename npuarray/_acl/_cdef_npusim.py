"""cffi declarations of npusim's own tools (not part of the ACL ABI, so the CANN loader never
looks for them): the strict-mode log (kernels/runtime/notes.c) and the stream race detector
(kernels/include/npusim_racecheck.h)."""

CDEF = """
size_t npusim_take_notes(char *buf, size_t cap);
int npusim_racecheck_set_mode(int mode);
int npusim_racecheck_get_mode(void);
size_t npusim_racecheck_next_report(char *buf, size_t size);
void npusim_racecheck_set_site_provider(void (*provider)(char *buf, size_t size));
"""
