/*
 * driver-profile.c - an LD_PRELOAD library for tools/driver-profile: the time
 * each process spends in ioctl(), the calls through which libcuda asks the
 * kernel driver for everything (contexts, channels, memory), counted per
 * request.  The time includes waiting for the driver's locks, which is the
 * point: the suite's wall time is set by work the driver serializes across
 * the GPU (docs/performance.md).
 *
 * STREAMCTS_DRIVER_PROFILE_DIR names an existing directory; each process that
 * calls ioctl() writes DIR/<pid>.prof (replaced whole, through a rename) at
 * most every 250 ms and when it exits, so that a process killed by a signal
 * leaves what it had a moment before.  The file:
 *
 *   # pid P ppid Q role R exe E arg A
 *   REQUEST SUB CALLS NS MAX_NS          one line per request and SUB
 *
 * R is what the process was started as, seen when the library was loaded:
 * "worker" (a host's, build/host-*), "peer" (a case's other process,
 * STREAMCTS_PROCESS set), "child" (an isolated point's, STREAMCTS_CHILD),
 * "mps-client" (STREAMCTS_MPS), else "program"; E is the executable's name and A its first argument, if any.
 * SUB is the RM control command (NV_ESC_RM_CONTROL) or the allocated class
 * (NV_ESC_RM_ALLOC), else 0.  Without the variable the library does nothing
 * but call ioctl.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "isolate.h" /* SC_CHILD_ENV: the names of what a process was started as, from the runtime's headers */
#include "mps.h"     /* SC_MPS_ENV */
#include "procs.h"   /* SC_PROCESS_ENV */

#define MAX_KINDS 2048
#define DUMP_EVERY_NS 250000000ull
#define NV_IOCTL_MAGIC 0x46  /* 'F': the RM's requests on /dev/nvidiactl and /dev/nvidiaN */
#define NV_ESC_RM_CONTROL 0x2a
#define NV_ESC_RM_ALLOC 0x2b

static struct kind {
    unsigned long req;
    uint32_t sub;
    uint64_t calls, ns, max_ns;
} kinds[MAX_KINDS];
static int nkinds;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static uint64_t last_dump;
static int (*real_ioctl)(int, unsigned long, ...);
static __thread int dumping; /* an ioctl made while writing the file is not counted (nor waits for mu) */

static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* src into dst (n bytes), cut short where it does not fit, anything but printable ASCII made '_'. */
static void copy_name(char *dst, size_t n, const char *src)
{
    size_t i = 0;
    for (; i + 1 < n && src[i]; i++)
        dst[i] = src[i] > ' ' && src[i] <= '~' ? src[i] : '_';
    dst[i] = 0;
}

/* What this process was started as, its executable's name and first argument: read once, when the library
 * is loaded (the runtime unsets the variables that told it, procs.c), not at every dump. */
static const char *role = "program";
static char exe_name[256] = "?", first_arg[256] = "-";
static void find_role(void)
{
    char buf[4096];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n > 0) {
        buf[n] = 0;
        copy_name(exe_name, sizeof exe_name, strrchr(buf, '/') ? strrchr(buf, '/') + 1 : buf);
    }
    int f = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    if (f >= 0) {
        n = read(f, buf, sizeof buf - 1);
        close(f);
        if (n > 0) {
            buf[n] = 0;
            size_t first = strlen(buf) + 1;
            if ((ssize_t)first < n && buf[first])
                copy_name(first_arg, sizeof first_arg, buf + first);
        }
    }
    if (strncmp(exe_name, "host-", 5) == 0)
        role = "worker";
    else if (getenv(SC_PROCESS_ENV))
        role = "peer";
    else if (getenv(SC_CHILD_ENV))
        role = "child";
    else if (getenv(SC_MPS_ENV))
        role = "mps-client";
}

/* Under mu. */
static void dump(void)
{
    const char *dir = getenv("STREAMCTS_DRIVER_PROFILE_DIR");
    char path[PATH_MAX], tmp[PATH_MAX + 8];
    if (!dir || !*dir || nkinds == 0)
        return;
    snprintf(path, sizeof path, "%s/%d.prof", dir, (int)getpid());
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *o = fopen(tmp, "we");
    if (!o)
        return;
    fprintf(o, "# pid %d ppid %d role %s exe %s arg %s\n", (int)getpid(), (int)getppid(), role, exe_name, first_arg);
    for (int i = 0; i < nkinds; i++)
        fprintf(o, "%#lx %#x %llu %llu %llu\n", kinds[i].req, (unsigned)kinds[i].sub,
                (unsigned long long)kinds[i].calls, (unsigned long long)kinds[i].ns,
                (unsigned long long)kinds[i].max_ns);
    if (fclose(o) == 0)
        rename(tmp, path);
    else
        unlink(tmp);
}

static void dump_now(void)
{
    dumping = 1;
    dump();
    dumping = 0;
}

/* A child forked without exec (a host's worker) counts its own calls only. */
static void forked(void)
{
    pthread_mutex_init(&mu, NULL);
    nkinds = 0, last_dump = 0;
}

__attribute__((constructor)) static void at_start(void)
{
    find_role();
    pthread_atfork(NULL, NULL, forked);
}

__attribute__((destructor)) static void at_exit(void)
{
    pthread_mutex_lock(&mu);
    dump_now();
    pthread_mutex_unlock(&mu);
}

int ioctl(int fd, unsigned long req, ...)
{
    va_list ap;
    va_start(ap, req);
    void *arg = va_arg(ap, void *);
    va_end(ap);
    if (!real_ioctl)
        real_ioctl = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
    if (!real_ioctl)
        return -1;
    if (dumping)
        return real_ioctl(fd, req, arg);
    uint64_t t0 = now_ns();
    int rc = real_ioctl(fd, req, arg);
    uint64_t dt = now_ns() - t0;
    uint32_t sub = 0;
    if (((req >> 8) & 0xff) == NV_IOCTL_MAGIC && arg) {
        if ((req & 0xff) == NV_ESC_RM_CONTROL)
            memcpy(&sub, (char *)arg + 8, sizeof sub); /* NVOS54_PARAMETERS: hClient, hObject, cmd */
        else if ((req & 0xff) == NV_ESC_RM_ALLOC)
            memcpy(&sub, (char *)arg + 12, sizeof sub); /* NVOS21/64: hRoot, hObjectParent, hObjectNew, hClass */
    }
    pthread_mutex_lock(&mu);
    int i = 0;
    while (i < nkinds && (kinds[i].req != req || kinds[i].sub != sub))
        i++;
    if (i == nkinds && nkinds < MAX_KINDS)
        kinds[nkinds++] = (struct kind){ .req = req, .sub = sub };
    if (i < MAX_KINDS) {
        kinds[i].calls++, kinds[i].ns += dt;
        if (dt > kinds[i].max_ns)
            kinds[i].max_ns = dt;
    }
    uint64_t t1 = now_ns();
    if (t1 - last_dump > DUMP_EVERY_NS) {
        last_dump = t1;
        dump_now();
    }
    pthread_mutex_unlock(&mu);
    return rc;
}
