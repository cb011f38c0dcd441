/* Tiny assertion helpers shared by the runtime's C test programs: each failed check prints the
 * line, the call, the code it returned, the code expected and the runtime's message; main()
 * returns rt_check_summary() so any failure makes the program exit non-zero. */
#ifndef RT_CHECK_H
#define RT_CHECK_H

#include <stdio.h>
#include <string.h>

#include "acl/acl.h"

static int g_check_failures, g_checks;

/* Expects `call` to return `code`; a failure also requires a non-empty message. */
#define EXPECT_CODE(call, code) expect_code_at((call), (code), #call, __LINE__)
#define EXPECT_OK(call) EXPECT_CODE(call, ACL_SUCCESS)
#define EXPECT(cond, ...) do { g_checks++; if (!(cond)) { g_check_failures++; \
        fprintf(stderr, "FAIL line %d: %s: ", __LINE__, #cond); fprintf(stderr, __VA_ARGS__); \
        fputc('\n', stderr); } } while (0)

static __attribute__((unused)) aclError expect_code_at(aclError got, aclError want, const char *expr, int line)
{
    g_checks++;
    const char *msg = aclGetRecentErrMsg();
    if (got != want) {
        g_check_failures++;
        fprintf(stderr, "FAIL line %d: %s returned %d, expected %d (message: %s)\n", line, expr, got,
                want, msg ? msg : "none");
    } else if (want != ACL_SUCCESS && (!msg || !*msg)) {
        g_check_failures++;
        fprintf(stderr, "FAIL line %d: %s returned %d but set no error message\n", line, expr, got);
    } else if (want != ACL_SUCCESS && aclrtGetLastError(ACL_RT_THREAD_LEVEL) != want) {
        g_check_failures++;
        fprintf(stderr, "FAIL line %d: %s: aclrtGetLastError does not report %d\n", line, expr, want);
    }
    return got;
}

static __attribute__((unused)) int rt_check_summary(const char *name)
{
    if (g_check_failures) {
        fprintf(stderr, "%s: %d of %d checks failed\n", name, g_check_failures, g_checks);
        return 1;
    }
    printf("%s: %d checks passed\n", name, g_checks);
    return 0;
}

#endif /* RT_CHECK_H */
