/* cu_loader.c - resolves the driver API from libcuda.so.1 (see cu_loader.h). */
#define _GNU_SOURCE
#include "cu_loader.h"
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <string.h>

struct sc_driver_api drv;

/* The message for a call to each entry point when the library lacks it, by index. */
#define SC_DRIVER_LACKS(fn) "libcuda.so.1 lacks " SC_STR(fn) " (a driver entry point this case needs)",
static const char *const lacks[SC_DRIVER_ENTRIES] = { SC_DRIVER_FUNCTIONS(SC_DRIVER_LACKS) };
#undef SC_DRIVER_LACKS

/* How many of the list are required: the first ones. */
#define SC_DRIVER_ONE(fn) +1
static const int required = 0 SC_DRIVER_REQUIRED(SC_DRIVER_ONE);
#undef SC_DRIVER_ONE

static char lacking_optional[512];

/* Appends name to list (", "-separated), as far as it fits. */
static void append(char *list, size_t n, const char *name)
{
    size_t len = strlen(list);
    snprintf(list + len, n - len, "%s%s", len ? ", " : "", name);
}

int sc_driver_load(char *why, size_t whylen)
{
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
    char lacking_required[400] = "";
    struct link_map *map = NULL;
    if (!lib) {
        snprintf(why, whylen, "no CUDA driver (%s)", dlerror());
        return SC_MISSING;
    }
    lacking_optional[0] = '\0';
#define SC_DRIVER_RESOLVE(fn)                                                   \
    if (!(*(void **)&drv.fn = dlsym(lib, SC_STR(fn))))                          \
        append((int)SC_ENTRY_##fn < required ? lacking_required : lacking_optional, \
               (int)SC_ENTRY_##fn < required ? sizeof lacking_required : sizeof lacking_optional, SC_STR(fn));
    SC_DRIVER_FUNCTIONS(SC_DRIVER_RESOLVE)
#undef SC_DRIVER_RESOLVE
    if (lacking_required[0]) {
        dlinfo(lib, RTLD_DI_LINKMAP, &map);
        snprintf(why, whylen, "libcuda.so.1 (%s) lacks %s: entry points every program needs",
                 map && map->l_name[0] ? map->l_name : "?", lacking_required);
        return SC_LACKING;
    }
    why[0] = '\0';
    return SC_READY;
}

void sc_driver_lacking(char *out, size_t n) { snprintf(out, n, "%s", lacking_optional); }

const char *sc_driver_lacks_message(int rc)
{
    int i = SC_LACKS_BASE - rc;
    return SC_LACKS(rc) && i < SC_DRIVER_ENTRIES ? lacks[i] : NULL;
}
