/*
 * driver_calls.c - the driver backend on a stand-in for libcuda.so.1 that
 * lacks an optional entry point (loader.t builds it with fake-libcuda.sh and
 * runs this with LD_LIBRARY_PATH pointing at it and FAKE_CUINIT=0):
 * initialisation succeeds, the TAP header's facts name the missing entry
 * point, a call to it answers a code that error_name turns into
 * "libcuda.so.1 lacks <ABI name>", and the entry points that are there still
 * answer; the primary context probe runs in a child and answers through its
 * pipe.  Prints its own TAP.
 *
 *   driver_calls.prog ABI-NAME-OF-cuStreamGetId
 */
#include "backend.h"
#include <stdio.h>
#include <string.h>

static int n, failed;

static void check(int cond, const char *name, const char *detail)
{
    n++;
    printf("%s %d - %s\n", cond ? "ok" : "not ok", n, name);
    if (!cond) {
        failed++;
        printf("  ---\n  detail: \"%s\"\n  ...\n", detail ? detail : "");
    }
}

int main(int argc, char **argv)
{
    const sc_backend *b = &sc_driver_backend;
    char why[512], want[200], detail[700];
    struct sc_device_info info;
    uint64_t id = 0;
    int nonblocking = 0;

    if (argc != 2) {
        fprintf(stderr, "usage: %s ABI-NAME-OF-cuStreamGetId\n", argv[0]);
        return 2;
    }
    printf("TAP version 13\n# compile mode: %s\n", sc_compile_mode);
    int state = b->init(why, sizeof why);
    snprintf(detail, sizeof detail, "state %d: %s", state, why);
    check(state == SC_READY, "initialisation succeeds without an optional entry point", detail);

    sc_driver_describe(&info);
    check(!strcmp(info.lacking, argv[1]), "the header's facts name the missing entry point", info.lacking);

    int rc = b->stream_id(NULL, &id);
    const char *text = b->error_name(rc);
    snprintf(want, sizeof want, "libcuda.so.1 lacks %s (a driver entry point this case needs)", argv[1]);
    snprintf(detail, sizeof detail, "rc %d: %s", rc, text ? text : "(null)");
    check(SC_LACKS(rc) && rc != SC_UNSUPPORTED, "a call to it answers the code of a missing entry point", detail);
    check(text && !strcmp(text, want), "error_name names it by its ABI name", detail);

    rc = b->stream_get_flags(NULL, &nonblocking);
    snprintf(detail, sizeof detail, "rc %d", rc);
    check(rc == 0, "an optional entry point that is there is called", detail);
    text = b->error_name(1);
    check(text && !strcmp(text, "FAKE_ERROR_1"), "other codes are still named by cuGetErrorName", text);

    /* the primary context probe: this program again, in a process of its own (sc_self_spawn),
     * answers through a pipe; the stand-in's calls succeed and say nothing of the context's state */
    int reset = -1;
    rc = b->primary_release(SC_PRIMARY_RELEASE_ALL, &reset);
    snprintf(detail, sizeof detail, "rc %d, reset %d", rc, reset);
    check(rc == 0 && reset == 0, "the primary context probe answers from a process of its own", detail);

    printf("1..%d\n", n);
    return failed ? 1 : 0;
}
