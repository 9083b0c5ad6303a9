/* cu_loader.c - resolves the driver API from libcuda.so.1 (see cu_loader.h). */
#define _GNU_SOURCE
#include "cu_loader.h"
#include <dlfcn.h>
#include <stdio.h>

struct sc_driver_api drv;

#define SC_STR2(x) #x
#define SC_STR(x) SC_STR2(x) /* expands cuda.h's renaming macros first */

int sc_driver_load(char *why, unsigned long whylen)
{
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
    if (!lib) {
        snprintf(why, whylen, "no CUDA driver (%s)", dlerror());
        return -1;
    }
#define SC_DRIVER_RESOLVE(fn)                                                   \
    *(void **)&drv.fn = dlsym(lib, SC_STR(fn));                                 \
    if (!drv.fn) {                                                              \
        snprintf(why, whylen, "libcuda.so.1 lacks %s", SC_STR(fn));             \
        return -1;                                                              \
    }
    SC_DRIVER_FUNCTIONS(SC_DRIVER_RESOLVE)
#undef SC_DRIVER_RESOLVE
    return 0;
}
