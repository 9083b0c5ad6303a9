/* tap.c - a TAP version 13 writer (see tap.h). */
#define _POSIX_C_SOURCE 200809L
#include "tap.h"
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static FILE *out;
static int fd = 1;
static char **names;
static int planned, next = 1, failures;
static const char *unplanned; /* the one point to report if abandoned before the plan */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

void sc_yaml_add(struct sc_yaml *y, const char *key, const char *value)
{
    if (y->n < (int)(sizeof y->key / sizeof y->key[0]) && value) {
        y->key[y->n] = key;
        y->value[y->n] = value;
        y->n++;
    }
}

void sc_yaml_quote(const char *s, char *o, size_t len)
{
    size_t j = 0;
    if (len < 3) {
        if (len)
            o[0] = '\0';
        return;
    }
    o[j++] = '"';
    for (; *s && j + 7 < len; s++) {
        unsigned char c = (unsigned char)*s;
        switch (c) {
        case '"': o[j++] = '\\'; o[j++] = '"'; break;
        case '\\': o[j++] = '\\'; o[j++] = '\\'; break;
        case '\n': o[j++] = '\\'; o[j++] = 'n'; break;
        case '\t': o[j++] = '\\'; o[j++] = 't'; break;
        case '\r': o[j++] = '\\'; o[j++] = 'r'; break;
        default:
            if (c < 0x20 || c == 0x7f)
                j += (size_t)snprintf(o + j, len - j, "\\x%02x", c);
            else
                o[j++] = (char)c;
        }
    }
    o[j++] = '"';
    o[j] = '\0';
}

void sc_tap_begin(FILE *f)
{
    static FILE *buffered; /* setvbuf is for a stream not used yet: once (a host runs many programs) */
    pthread_mutex_lock(&lock);
    if (buffered != f)
        setvbuf(f, NULL, _IOLBF, 0);
    buffered = out = f;
    fd = fileno(f);
    for (int i = 0; names && i < planned; i++)
        free(names[i]);
    free(names);
    names = NULL;
    planned = failures = 0;
    next = 1;
    unplanned = NULL;
    fprintf(out, "TAP version 13\n");
    pthread_mutex_unlock(&lock);
}

void sc_tap_skip_all(const char *why)
{
    fprintf(out, "1..0 # SKIP %s\n", why);
    fflush(out);
}

void sc_tap_plan(int n, const char *const *list)
{
    pthread_mutex_lock(&lock);
    names = calloc((size_t)n + 1, sizeof *names);
    for (int i = 0; i < n && names; i++)
        names[i] = strdup(list[i]);
    planned = n;
    fprintf(out, "1..%d\n", n);
    pthread_mutex_unlock(&lock);
}

void sc_tap_diag(const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    pthread_mutex_lock(&lock);
    for (char *p = line, *nl; p; p = nl ? nl + 1 : NULL) { /* one '#' per line */
        nl = strchr(p, '\n');
        fprintf(out, "# %.*s\n", nl ? (int)(nl - p) : (int)strlen(p), p);
    }
    pthread_mutex_unlock(&lock);
}

static void yaml_block(const struct sc_yaml *y)
{
    char q[2048];
    fprintf(out, "  ---\n");
    for (int i = 0; i < y->n; i++) {
        sc_yaml_quote(y->value[i], q, sizeof q);
        fprintf(out, "  %s: %s\n", y->key[i], q);
    }
    if (y->list_key && y->list) {
        fprintf(out, "  %s:\n", y->list_key);
        for (const char *p = y->list; *p;) {
            const char *nl = strchr(p, '\n');
            size_t len = nl ? (size_t)(nl - p) : strlen(p);
            char item[1024];
            snprintf(item, sizeof item, "%.*s", (int)(len < sizeof item ? len : sizeof item - 1), p);
            sc_yaml_quote(item, q, sizeof q);
            fprintf(out, "    - %s\n", q);
            p += len + (nl ? 1 : 0);
        }
    }
    fprintf(out, "  ...\n");
}

void sc_tap_point(int ok, const char *directive, const struct sc_yaml *yaml)
{
    pthread_mutex_lock(&lock);
    if (next > planned) { /* never write past the plan */
        pthread_mutex_unlock(&lock);
        return;
    }
    const char *name = names && names[next - 1] ? names[next - 1] : "";
    fprintf(out, "%s %d - %s", ok ? "ok" : "not ok", next, name);
    if (directive)
        fprintf(out, " # %s", directive);
    fputc('\n', out);
    if (!ok && !(directive && strncmp(directive, "TODO", 4) == 0))
        failures++;
    if (yaml)
        yaml_block(yaml);
    fflush(out);
    next++;
    pthread_mutex_unlock(&lock);
}

int sc_tap_failures(void) { return failures; }
int sc_tap_next(void) { return next; }

static void put(const char *s) /* async-signal-safe */
{
    size_t len = strlen(s);
    while (len) {
        ssize_t w = write(fd, s, len);
        if (w <= 0)
            return;
        s += w;
        len -= (size_t)w;
    }
}

static void put_int(int v)
{
    char b[16];
    int i = (int)sizeof b - 1;
    b[i] = '\0';
    do
        b[--i] = (char)('0' + v % 10);
    while ((v /= 10) && i > 0);
    put(b + i);
}

void sc_tap_abandon(const char *reason)
{
    /* no lock: the holder may be the thread that hung or crashed */
    if (out)
        fflush(out);
    if (planned == 0 && unplanned) { /* stuck before the plan (in cuInit, say): one point says so */
        put("1..1\n");
        planned = 1;
    }
    for (; next <= planned; next++) {
        put("not ok ");
        put_int(next);
        put(" - ");
        put(names && names[next - 1] ? names[next - 1] : !names && unplanned ? unplanned : "");
        put("\n  ---\n  message: \"not completed: ");
        put(reason);
        put("\"\n  ...\n");
        failures++;
    }
}

void sc_tap_unplanned(const char *name) { unplanned = name; }
