/*
 * layer.c - a stand-in for a CUDA interposer loaded with LD_PRELOAD, for
 * loader.t: it exports cuMemAlloc_v2, cuMemFree_v2 and cuStreamQuery (and its
 * _ptsz twin), each answering success and doing nothing.
 *
 * Built plain, it is never reached: the suite resolves the driver with
 * dlsym(handle of libcuda.so.1, name), which searches that library and its
 * dependencies, not a preloaded one.  Built with -DHOOK_DLSYM it does what
 * HAMi-core's libvgpu.so does: it defines dlsym itself and answers those names
 * with its own functions, and answers cuGetProcAddress_v2 with its own too,
 * which answers those names likewise and passes every other on to the driver's.
 * The header's "entry points by ..." lines must tell the two apart.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <string.h>

int cuMemAlloc_v2(void *p, size_t n) { (void)p, (void)n; return 0; }
int cuMemFree_v2(void *p) { (void)p; return 0; }
int cuStreamQuery(void *s) { (void)s; return 0; }
int cuStreamQuery_ptsz(void *s) { (void)s; return 0; }

#ifdef HOOK_DLSYM
/* The names it answers, by dlsym (ABI names) and by cuGetProcAddress (names without _vN/_ptsz). */
static void *own(const char *name, int by_proc, int ptsz)
{
    if (!strcmp(name, by_proc ? "cuMemAlloc" : "cuMemAlloc_v2"))
        return (void *)cuMemAlloc_v2;
    if (!strcmp(name, by_proc ? "cuMemFree" : "cuMemFree_v2"))
        return (void *)cuMemFree_v2;
    if (!strcmp(name, "cuStreamQuery"))
        return by_proc && ptsz ? (void *)cuStreamQuery_ptsz : (void *)cuStreamQuery;
    if (!by_proc && !strcmp(name, "cuStreamQuery_ptsz"))
        return (void *)cuStreamQuery_ptsz;
    return NULL;
}

static void *(*real_dlsym)(void *, const char *);
static void *driver; /* the handle the program asked cuGetProcAddress_v2 of */

static void find_real(void)
{
    if (!real_dlsym)
        *(void **)&real_dlsym = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
    if (!real_dlsym)
        *(void **)&real_dlsym = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
}

int cuGetProcAddress_v2(const char *name, void **fn, int version, unsigned long long flags, int *found)
{
    int (*next)(const char *, void **, int, unsigned long long, int *);
    if ((*fn = own(name, 1, (flags & 2) != 0))) {
        if (found)
            *found = 0;
        return 0;
    }
    find_real();
    *(void **)&next = real_dlsym(driver, "cuGetProcAddress_v2");
    return next ? next(name, fn, version, flags, found) : 500;
}

void *dlsym(void *handle, const char *name)
{
    void *fn = own(name, 0, 0);
    find_real();
    if (fn)
        return fn;
    if (!strcmp(name, "cuGetProcAddress_v2")) {
        driver = handle;
        return (void *)cuGetProcAddress_v2;
    }
    return real_dlsym(handle, name);
}
#endif
