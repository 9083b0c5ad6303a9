/* nccl.c - NCCL loaded with dlopen (see nccl.h). */
#define _POSIX_C_SOURCE 200809L
#include "nccl.h"
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

struct cv_nccl cv_nccl;

int cv_nccl_load(char *why, size_t whylen)
{
    const char *name = getenv("STREAMCTS_NCCL");
    if (!name || !*name)
        name = "libnccl.so.2";
    void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(why, whylen, "%s", dlerror());
        return -1;
    }
    static const struct { const char *sym; size_t off; } entry[] = {
#define E(f) { "nccl" #f, offsetof(struct cv_nccl, f) }
        E(GetVersion), E(GetUniqueId), E(CommInitRank), E(AllReduce),
        E(CommDestroy), E(CommAbort), E(GetErrorString),
#undef E
    };
    for (size_t i = 0; i < sizeof entry / sizeof entry[0]; i++) {
        void *f = dlsym(h, entry[i].sym);
        if (!f) {
            snprintf(why, whylen, "%s lacks %s", name, entry[i].sym);
            dlclose(h);
            return -1;
        }
        *(void **)((char *)&cv_nccl + entry[i].off) = f;
    }
    static const struct { const char *sym; size_t off; } optional[] = {
#define E(f) { "nccl" #f, offsetof(struct cv_nccl, f) }
        E(CommInitAll), E(GroupStart), E(GroupEnd),
#undef E
    };
    for (size_t i = 0; i < sizeof optional / sizeof optional[0]; i++)
        *(void **)((char *)&cv_nccl + optional[i].off) = dlsym(h, optional[i].sym);
    return 0;
}
