/* cu_loader.c - resolves the driver API from libcuda.so.1 and says which libraries answered (see cu_loader.h). */
#define _GNU_SOURCE
#include "cu_loader.h"
#include <dlfcn.h>
#include <elf.h>
#include <limits.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sc_driver_api drv;

/* What sc_driver_load opened, and libcuda.so.1's cuGetProcAddress as dlsym answered it (NULL if absent). */
static void *driver_lib;
static __typeof__(cuGetProcAddress) *get_proc_address;

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
    driver_lib = lib;
    if (!(*(void **)&get_proc_address = dlsym(lib, "cuGetProcAddress_v2"))) /* the name cudart asks for */
        *(void **)&get_proc_address = dlsym(lib, "cuGetProcAddress");
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

/* -- which libraries answered the entry points (sc_driver_provenance) ------------------------------ */

#define ANSWERERS 16 /* distinct libraries told apart; more are counted as one "[other-libraries]" */
#define LINE 960     /* a header line's length at most: sc_tap_diag writes up to 1023 characters */

struct answerers {
    int resolved, n;
    int of[SC_DRIVER_ENTRIES]; /* each entry point's library, -1 when it was not resolved */
    struct {
        const void *base, *addr; /* the object's load address (dladdr), and one address inside it */
        char path[PATH_MAX];     /* its file, links resolved */
        int count;
    } lib[ANSWERERS + 1];
};

/* The file an address belongs to, links resolved; "[no-shared-object]" for memory that none maps
 * (a trampoline a hook made at run time). */
static const void *object_of(const void *addr, char *path, size_t n)
{
    Dl_info info;
    char real[PATH_MAX];
    if (!dladdr(addr, &info) || !info.dli_fname) {
        snprintf(path, n, "[no-shared-object]");
        return NULL;
    }
    const char *file = info.dli_fname[0] ? info.dli_fname : "/proc/self/exe"; /* "": the program itself */
    snprintf(path, n, "%s", realpath(file, real) ? real : file);
    return info.dli_fbase;
}

static void tally(struct answerers *t, int entry, const void *fn)
{
    char path[PATH_MAX];
    t->of[entry] = -1;
    if (!fn)
        return;
    const void *base = object_of(fn, path, sizeof path);
    int i = 0;
    while (i < t->n && !(t->lib[i].base == base && !strcmp(t->lib[i].path, path)))
        i++;
    if (i == t->n) {
        if (t->n == ANSWERERS) {
            i = ANSWERERS;
            snprintf(t->lib[i].path, sizeof t->lib[i].path, "[other-libraries]");
        } else {
            t->n++;
            t->lib[i].base = base;
            t->lib[i].addr = fn;
            snprintf(t->lib[i].path, sizeof t->lib[i].path, "%s", path);
        }
    }
    t->lib[i].count++;
    t->of[entry] = i;
    t->resolved++;
}

struct build_id {
    uintptr_t addr;
    char hex[65];
};

/* dl_iterate_phdr's callback: the GNU build-id note of the object that maps s->addr. */
static int find_build_id(struct dl_phdr_info *info, size_t size, void *data)
{
    struct build_id *s = data;
    int inside = 0;
    (void)size;
    for (int i = 0; i < info->dlpi_phnum && !inside; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        inside = ph->p_type == PT_LOAD && s->addr >= lo && s->addr < lo + ph->p_memsz;
    }
    if (!inside)
        return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        size_t align = ph->p_align == 8 ? 8 : 4; /* a note segment pads names and descriptors to its alignment */
        if (ph->p_type != PT_NOTE)
            continue;
        const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr), *end = p + ph->p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *nh = (const void *)p;
            const char *name = p + sizeof *nh;
            const unsigned char *desc = (const unsigned char *)name + ((nh->n_namesz + align - 1) & ~(align - 1));
            if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && !memcmp(name, "GNU", 4)) {
                for (unsigned j = 0; j < nh->n_descsz && j < 32; j++)
                    snprintf(s->hex + 2 * j, 3, "%02x", desc[j]);
                return 1;
            }
            p = (const char *)desc + ((nh->n_descsz + align - 1) & ~(align - 1));
        }
    }
    return 1;
}

/* "PATH (version V, build-id H)": the version is what follows ".so." in the file's name (libcuda.so.580.65.06). */
static void describe(char *out, size_t n, const char *path, const void *addr)
{
    struct build_id id = { (uintptr_t)addr, "" };
    const char *slash = strrchr(path, '/'), *so = strstr(slash ? slash : path, ".so.");
    if (addr)
        dl_iterate_phdr(find_build_id, &id);
    snprintf(out, n, "%s (%s%s%s%s%s)", path, so ? "version " : "", so ? so + 4 : "", so ? ", " : "",
             id.hex[0] ? "build-id " : "no build-id", id.hex);
}

/* Appends text to a line of out, starting a new line (with prefix) where the current one would grow past LINE. */
static void add(char *out, size_t n, const char *prefix, const char *sep, const char *text)
{
    size_t len = strlen(out);
    const char *line = strrchr(out, '\n');
    size_t cur = len - (line ? (size_t)(line - out) + 1 : 0);
    if (cur && cur + strlen(sep) + strlen(text) > LINE)
        snprintf(out + len, n - len, "\n%s%s", prefix, text);
    else
        snprintf(out + len, n - len, "%s%s", cur ? sep : prefix, text);
}

/* One line of counts, most first, then for every library but the first the entry points it answered. */
static void write_answerers(char *out, size_t n, const struct answerers *t, const char *how)
{
    static const char *const names[SC_DRIVER_ENTRIES] = {
#define SC_DRIVER_NAME(fn) SC_STR(fn),
        SC_DRIVER_FUNCTIONS(SC_DRIVER_NAME)
#undef SC_DRIVER_NAME
    };
    int order[ANSWERERS + 1], m = t->n + (t->lib[ANSWERERS].count > 0);
    char item[PATH_MAX + 200], prefix[PATH_MAX + 100];
    for (int i = 0; i < t->n; i++)
        order[i] = i;
    if (m > t->n)
        order[t->n] = ANSWERERS;
    for (int i = 1; i < t->n; i++) /* by count, most first (insertion sort: a handful of libraries) */
        for (int j = i; j > 0 && t->lib[order[j]].count > t->lib[order[j - 1]].count; j--) {
            int x = order[j];
            order[j] = order[j - 1];
            order[j - 1] = x;
        }
    size_t len = strlen(out);
    snprintf(out + len, n - len, "%sentry points %s: %d of %d", len ? "\n" : "", how, t->resolved,
             SC_DRIVER_ENTRIES);
    for (int k = 0; k < m; k++) {
        int i = order[k];
        char about[PATH_MAX + 100];
        describe(about, sizeof about, t->lib[i].path, i < ANSWERERS ? t->lib[i].addr : NULL);
        snprintf(item, sizeof item, "%d %s", t->lib[i].count, about);
        len = strlen(out);
        snprintf(out + len, n - len, "%s%s", k ? ", " : ": ", item);
    }
    for (int k = 1; k < m; k++) {
        int i = order[k];
        snprintf(prefix, sizeof prefix, "entry points %s that %s answered: ", how, t->lib[i].path);
        len = strlen(out);
        snprintf(out + len, n - len, "\n");
        for (int e = 0; e < SC_DRIVER_ENTRIES; e++)
            if (t->of[e] == i)
                add(out, n, prefix, ", ", names[e]);
    }
}

/* An entry point's name as cuGetProcAddress takes it: the ABI name without _ptsz/_ptds and _vN. */
static void base_name(const char *abi, char *out, size_t n)
{
    snprintf(out, n, "%s", abi);
    char *p = strstr(out, "_pt");
    if (p && (!strcmp(p, "_ptsz") || !strcmp(p, "_ptds")))
        *p = '\0';
    if ((p = strrchr(out, '_')) && p[1] == 'v' && p[2] && strspn(p + 2, "0123456789") == strlen(p + 2))
        *p = '\0';
}

void sc_driver_provenance(char *out, size_t n)
{
    static struct answerers by_dlsym, by_proc;
    struct link_map *map = NULL;
    char name[128], loaded[PATH_MAX + 100], real[PATH_MAX];
    const char *preload = getenv("LD_PRELOAD");
    out[0] = '\0';
    if (!driver_lib)
        return;
    memset(&by_dlsym, 0, sizeof by_dlsym);
    memset(&by_proc, 0, sizeof by_proc);
#define SC_DRIVER_TALLY(fn) tally(&by_dlsym, SC_ENTRY_##fn, *(void **)&drv.fn);
    SC_DRIVER_FUNCTIONS(SC_DRIVER_TALLY)
#undef SC_DRIVER_TALLY
    write_answerers(out, n, &by_dlsym, "by dlsym");
    if (get_proc_address) {
#ifdef CUDA_API_PER_THREAD_DEFAULT_STREAM
        const cuuint64_t flags = CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM;
#else
        const cuuint64_t flags = CU_GET_PROC_ADDRESS_LEGACY_STREAM;
#endif
        CUdriverProcAddressQueryResult found;
        void *fn;
#define SC_DRIVER_ASK(fn_)                                                                        \
    base_name(SC_STR(fn_), name, sizeof name);                                                    \
    fn = NULL;                                                                                    \
    tally(&by_proc, SC_ENTRY_##fn_,                                                               \
          get_proc_address(name, &fn, CUDA_VERSION, flags, &found) == CUDA_SUCCESS ? fn : NULL);
        SC_DRIVER_FUNCTIONS(SC_DRIVER_ASK)
#undef SC_DRIVER_ASK
        write_answerers(out, n, &by_proc, "by cuGetProcAddress");
    } else {
        size_t len = strlen(out);
        snprintf(out + len, n - len, "\nentry points by cuGetProcAddress: "
                 "libcuda.so.1 has no cuGetProcAddress_v2 nor cuGetProcAddress");
    }
    dlinfo(driver_lib, RTLD_DI_LINKMAP, &map);
    if (map && map->l_name[0])
        describe(loaded, sizeof loaded, realpath(map->l_name, real) ? real : map->l_name, map->l_ld);
    else
        snprintf(loaded, sizeof loaded, "?");
    size_t len = strlen(out);
    snprintf(out + len, n - len, "\ndriver library: libcuda.so.1 is %s; LD_PRELOAD=%s", loaded,
             preload ? preload : "(unset)");
}
