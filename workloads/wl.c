/* wl.c - what every stress and perf workload program shares (see wl.h). */
#define _POSIX_C_SOURCE 200809L
#include "wl.h"
#include "clock.h"
#include "watchdog.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct wl_kernels wl_k;
CUdevice wl_dev;
CUcontext wl_ctx;
int wl_scale = 1;
char wl_error[256];
int (*wl_requires)(char *why, size_t whylen);

static const char *program = "workload";
static char arena[65536]; /* wl_str's strings, until the point is written */
static size_t arena_used;

const char *wl_str(const char *fmt, ...)
{
    va_list ap;
    char *p = arena + arena_used;
    size_t room = sizeof arena - arena_used;
    int n;
    if (room < 2)
        return "";
    va_start(ap, fmt);
    n = vsnprintf(p, room, fmt, ap);
    va_end(ap);
    arena_used += n < 0 ? 0 : (size_t)n + 1 < room ? (size_t)n + 1 : room;
    return p;
}

const char *wl_error_name(int rc)
{
    const char *name = NULL;
    const char *lacks = sc_driver_lacks_message(rc);
    if (lacks)
        return lacks;
    if (SC_CALL(cuGetErrorName, (CUresult)rc, &name) != 0 || !name)
        return "unknown error";
    return name;
}

int wl_fail(const char *call, int rc)
{
    if (rc && !wl_error[0])
        snprintf(wl_error, sizeof wl_error, "%s answered %s (%d)", call, wl_error_name(rc), rc);
    return rc;
}

/* Digits only, within [lo, hi]; else names what with its range and exits 2. */
static int number(const char *what, const char *s, int lo, int hi)
{
    if (!s) {
        fprintf(stderr, "%s: %s needs a value: a whole number in %d..%d\n", program, what, lo, hi);
        exit(2);
    }
    if (!*s || strspn(s, "0123456789") != strlen(s) || strlen(s) > 9 || atoi(s) < lo || atoi(s) > hi) {
        fprintf(stderr, "%s: %s: '%s' is not a whole number in %d..%d\n", program, what, s, lo, hi);
        exit(2);
    }
    return atoi(s);
}

static void options(int argc, char **argv, const char *usage)
{
    const char *env = getenv("STREAMCTS_SCALE");
    program = argv[0];
    if (env && *env)
        wl_scale = number("STREAMCTS_SCALE", env, 1, 1000);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("usage: %s [--scale N]\n%s", argv[0], usage);
            printf("  --scale N   raise the counts N times (1..1000, default 1; also STREAMCTS_SCALE)\n");
            exit(0);
        } else if (!strcmp(argv[i], "--scale")) {
            wl_scale = number("--scale", i + 1 < argc ? argv[++i] : NULL, 1, 1000);
        } else if (!strncmp(argv[i], "--scale=", 8)) {
            wl_scale = number("--scale", argv[i] + 8, 1, 1000);
        } else {
            fprintf(stderr, "%s: unknown option '%s' (see --help)\n", program, argv[i]);
            exit(2);
        }
    }
}

/* Prints why and exits: a skip for no driver or device, else one failing point. */
static void cannot_start(int skip, const char *point, const char *why)
{
    if (skip) {
        sc_tap_skip_all(why);
        exit(0);
    }
    sc_tap_plan(1, &point);
    sc_tap_diag("%s", why);
    sc_tap_point(0, NULL, NULL);
    exit(1);
}

void wl_start(int argc, char **argv, const char *usage)
{
    char why[512], name[256] = "?";
    int rc, n = 0, version = 0, state;
    CUmodule mod;
    options(argc, argv, usage);
    sc_tap_begin(stdout);
    if (wl_requires && wl_requires(why, sizeof why))
        cannot_start(1, "prerequisite", why);
    sc_watchdog_start();
    sc_tap_unplanned("device initialisation");
    sc_watchdog_arm(60000000000ull, "device initialisation did not finish within 60 s");
    if ((state = sc_driver_load(why, sizeof why)) != SC_READY)
        cannot_start(state == SC_MISSING, "driver entry points", why);
    if ((rc = SC_CALL(cuInit, 0)) != 0) {
        snprintf(why, sizeof why, "%s (cuInit: %s)", rc == CUDA_ERROR_NO_DEVICE ? "no CUDA device" : "no usable CUDA driver",
                 wl_error_name(rc));
        cannot_start(rc == CUDA_ERROR_NO_DEVICE || rc == CUDA_ERROR_STUB_LIBRARY, "device initialisation", why);
    }
    if ((rc = SC_CALL(cuDeviceGetCount, &n)) != 0 || n == 0)
        cannot_start(rc == 0, "device initialisation", rc ? wl_error_name(rc) : "no CUDA device (cuDeviceGetCount: 0)");
    if ((rc = SC_CALL(cuDeviceGet, &wl_dev, 0)) != 0 || (rc = SC_CALL(cuDevicePrimaryCtxRetain, &wl_ctx, wl_dev)) != 0 ||
        (rc = SC_CALL(cuCtxSetCurrent, wl_ctx)) != 0 || (rc = SC_CALL(cuModuleLoadData, &mod, wl_fatbin)) != 0 ||
        (rc = SC_CALL(cuModuleGetFunction, &wl_k.fill, mod, "wl_fill")) != 0 ||
        (rc = SC_CALL(cuModuleGetFunction, &wl_k.verify, mod, "wl_verify")) != 0 ||
        (rc = SC_CALL(cuModuleGetFunction, &wl_k.gate, mod, "wl_gate")) != 0 ||
        (rc = SC_CALL(cuModuleGetFunction, &wl_k.stamp, mod, "wl_stamp")) != 0 ||
        (rc = SC_CALL(cuModuleGetFunction, &wl_k.spin, mod, "wl_spin")) != 0 ||
        (rc = SC_CALL(cuModuleGetFunction, &wl_k.work, mod, "wl_work")) != 0) {
        snprintf(why, sizeof why, "opening device 0 and loading the workload kernels: %s", wl_error_name(rc));
        cannot_start(0, "device initialisation", why);
    }
    sc_watchdog_disarm();
    SC_CALL(cuDeviceGetName, name, (int)sizeof name, wl_dev);
    SC_CALL(cuDriverGetVersion, &version);
    sc_tap_diag("program: %s", argv[0]);
    sc_tap_diag("device: %s (%d of them), driver API %d.%d", name, n, version / 1000, version % 1000 / 10);
    sc_tap_diag("scale: %d", wl_scale);
}

void wl_plan(int n, const char *const *names) { sc_tap_plan(n, names); }

void wl_begin(unsigned seconds)
{
    wl_error[0] = '\0';
    wl_arm(seconds);
}

void wl_arm(unsigned seconds)
{
    static char reason[96];
    snprintf(reason, sizeof reason, "the point did not finish within %u s", seconds);
    sc_watchdog_arm((uint64_t)seconds * 1000000000ull, reason);
}

static void write_point(int ok, const char *directive, const char *message, const char *level, struct sc_yaml *y)
{
    struct sc_yaml none = { .n = 0 };
    struct sc_yaml copy = y ? *y : none;
    struct sc_yaml out = { .n = 0 };
    sc_yaml_add(&out, "message", message);
    if (level)
        sc_yaml_add(&out, "level", level);
    for (int i = 0; i < copy.n; i++)
        sc_yaml_add(&out, copy.key[i], copy.value[i]);
    out.list_key = copy.list_key;
    out.list = copy.list;
    sc_watchdog_disarm();
    sc_tap_point(ok, directive, &out);
    arena_used = 0;
}

void wl_point(int outcome, const char *level, const char *message, struct sc_yaml *y)
{
    int must = !strcmp(level, "MUST");
    switch (outcome) {
    case WL_KEPT:
        write_point(1, NULL, message, level, y);
        break;
    case WL_VIOLATED:
        write_point(0, must ? NULL : wl_str("TODO %s rule not kept", level), message, level, y);
        break;
    case WL_UNDECIDABLE:
        write_point(0, "TODO undecidable", message, level, y);
        break;
    case WL_SKIP:
        write_point(1, wl_str("SKIP %s", message), message, level, y);
        break;
    default:
        write_point(0, NULL, wl_str("%s%s%s", message, wl_error[0] ? ": " : "", wl_error), level, y);
    }
}

void wl_control(int shown, int premise, const char *message, struct sc_yaml *y)
{
    if (wl_error[0])
        write_point(0, NULL, wl_str("%s: %s", message, wl_error), NULL, y);
    else if (!premise)
        write_point(0, "TODO undecidable", message, NULL, y);
    else
        write_point(shown, shown ? NULL : "TODO vacuous: the check did not detect the violation", message, NULL, y);
}

void *wl_host_mapped(size_t n, CUdeviceptr *dev)
{
    void *p = NULL;
    if (wl_fail("cuMemHostAlloc", SC_CALL(cuMemHostAlloc, &p, n, CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE)) ||
        wl_fail("cuMemHostGetDevicePointer", SC_CALL(cuMemHostGetDevicePointer, dev, p, 0)))
        return NULL;
    memset(p, 0, n);
    return p;
}

int wl_launch(CUfunction k, unsigned grid, unsigned block, CUstream s, void **params)
{
    return SC_CALL(cuLaunchKernel, k, grid, 1, 1, block, 1, 1, 0, s, params, NULL);
}

unsigned wl_grid(uint64_t words)
{
    uint64_t g = (words + 255) / 256;
    return g < 1 ? 1 : g > 1024 ? 1024 : (unsigned)g;
}
