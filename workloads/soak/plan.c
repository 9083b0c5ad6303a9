/* plan.c - the soak's program generator (see plan.h). */
#include "plan.h"
#include <stdio.h>
#include <string.h>

uint64_t soak_mix(uint64_t *state) /* splitmix64 */
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Programs generated from one seed until one has an expectation with a control (about 1 in 8 does, 1 in 8 attempts on average; the
 * chance that none of SOAK_TRIES does is below 1e-12). */
#define SOAK_TRIES 256

static int pick(uint64_t *rng, int n) { return (int)(soak_mix(rng) % (uint64_t)n); }

static int is_work(enum soak_op k) { return k >= SOAK_KERNEL && k <= SOAK_HOST_FUNC; }
/* Ops the ordering model follows: stream work, records, waits, and the subject's synchronize. */
static int is_node(enum soak_op k) { return k <= SOAK_WAIT || k == SOAK_STREAM_SYNC || k == SOAK_EVENT_SYNC; }
static int on_stream(enum soak_op k) { return k <= SOAK_WAIT || k == SOAK_STREAM_SYNC; }

/* Which stream an op really uses: a declared one, the legacy stream, or its thread's per-thread stream. */
enum { ID_LEGACY = 10, ID_PER_THREAD = 20 };
static int ident(const struct soak_plan *p, int i)
{
    const struct soak_op_plan *o = &p->ops[i];
    switch (p->streams[o->stream]) {
    case SOAK_LEGACY: return ID_LEGACY;
    case SOAK_PER_THREAD: return ID_PER_THREAD + o->thread;
    default: return o->stream;
    }
}

/* Streams the legacy stream synchronizes with: blocking ones (documented), and, counting every edge a driver
 * might add (liberal), the per-thread streams too. */
static int joins_legacy(const struct soak_plan *p, int id, int liberal)
{
    if (id >= ID_PER_THREAD)
        return liberal;
    return id < ID_LEGACY && p->streams[id] == SOAK_BLOCKING;
}

struct edge {
    int from, cut; /* cut: the op the control drops to remove the edge, -1: none (stream order) */
};

static int last_on(const struct soak_plan *p, const unsigned char *drop, int j, int id)
{
    for (int i = j - 1; i >= 0; i--)
        if (!drop[i] && on_stream(p->ops[i].kind) && p->ops[i].kind != SOAK_STREAM_SYNC && ident(p, i) == id)
            return i;
    return -1;
}

/* Strict: the last work op on a stream, which completes only after everything before it there (an implicit
 * edge from a record or a wait that ends a stream is left out of what is promised). */
static int last_work_on(const struct soak_plan *p, const unsigned char *drop, int j, int id)
{
    for (int i = j - 1; i >= 0; i--)
        if (!drop[i] && is_work(p->ops[i].kind) && ident(p, i) == id)
            return i;
    return -1;
}

static int last_record(const struct soak_plan *p, const unsigned char *drop, int j, int ev)
{
    for (int i = j - 1; i >= 0; i--)
        if (!drop[i] && p->ops[i].kind == SOAK_RECORD && p->ops[i].event == ev)
            return i;
    return -1;
}

static int add(struct edge *e, int n, int from, int cut)
{
    if (from >= 0)
        e[n].from = from, e[n].cut = cut, n++;
    return n;
}

/*
 * The edges into op j.  Strict: what the documentation guarantees (stream order, record -> wait, the legacy
 * stream and blocking streams ordering each other's work).  Liberal: everything a driver may also do.
 */
static int preds(const struct soak_plan *p, const unsigned char *drop, int liberal, int j, struct edge *e)
{
    const struct soak_op_plan *o = &p->ops[j];
    int n = 0;
    if (o->kind == SOAK_EVENT_SYNC) {
        int r = last_record(p, drop, j, o->event);
        return add(e, n, r, r);
    }
    int id = ident(p, j);
    n = add(e, n, last_on(p, drop, j, id), -1);
    if (o->kind == SOAK_WAIT)
        n = add(e, n, last_record(p, drop, j, o->event), j);
    if (!liberal && !is_work(o->kind))
        return n; /* strict: implicit synchronization is promised for work */
    int (*tail)(const struct soak_plan *, const unsigned char *, int, int) = liberal ? last_on : last_work_on;
    if (id == ID_LEGACY) {
        for (int k = 0; k < p->nstreams; k++)
            if (p->streams[k] == SOAK_BLOCKING)
                n = add(e, n, tail(p, drop, j, k), j);
        for (int t = 0; liberal && t < p->nthreads; t++)
            n = add(e, n, tail(p, drop, j, ID_PER_THREAD + t), j);
    } else if (joins_legacy(p, id, liberal)) {
        int l = tail(p, drop, j, ID_LEGACY);
        n = add(e, n, l, l);
    }
    return n;
}

/* Which ops are ordered after op `from` (reached), with one edge each that got there (parent). */
static void reach(const struct soak_plan *p, const unsigned char *drop, int liberal, int from, unsigned char *reached,
                  struct edge *parent)
{
    struct edge e[SOAK_MAX_STREAMS + SOAK_MAX_THREADS + 4];
    memset(reached, 0, SOAK_MAX_OPS);
    reached[from] = 1;
    for (int j = from + 1; j < p->nops; j++) {
        if (drop[j] || !is_node(p->ops[j].kind))
            continue;
        int n = preds(p, drop, liberal, j, e);
        for (int k = 0; k < n && !reached[j]; k++)
            if (reached[e[k].from]) {
                reached[j] = 1;
                if (parent)
                    parent[j] = e[k];
            }
    }
}

/* The control: drop ops until nothing, liberally, orders the subject after the gate while A stays held. */
static int derive_control(struct soak_plan *p)
{
    unsigned char reached[SOAK_MAX_OPS];
    struct edge parent[SOAK_MAX_OPS];
    memset(p->drop, 0, sizeof p->drop);
    for (int iter = 0; iter <= SOAK_MAX_OPS; iter++) {
        reach(p, p->drop, 1, 0, reached, parent);
        if (!reached[p->subject]) {
            reach(p, p->drop, 0, 0, reached, NULL);
            return reached[p->object] ? 0 : -1;
        }
        int cut = -1;
        for (int j = p->subject; j != 0 && cut < 0; j = parent[j].from) {
            int c = parent[j].cut;
            if (c >= 0 && c != p->subject && c != p->object)
                cut = c;
        }
        if (cut < 0)
            return -1;
        p->drop[cut] = 1;
    }
    return -1;
}

/* Chooses the expectation among the ops: 0, or -1 when no candidate has a control. */
static int choose(struct soak_plan *p, uint64_t *rng, int blocks)
{
    static const unsigned char none[SOAK_MAX_OPS];
    unsigned char held[SOAK_MAX_OPS], after[SOAK_MAX_OPS];
    int cand[SOAK_MAX_OPS * SOAK_MAX_OPS][2], n = 0;
    reach(p, none, 0, 0, held, NULL);
    for (int a = 1; a < p->nops; a++) {
        if (!held[a] || !is_work(p->ops[a].kind))
            continue;
        reach(p, none, 0, a, after, NULL);
        for (int b = a + 1; b < p->nops; b++)
            if (after[b] && (blocks ? b == p->nops - 1 : is_work(p->ops[b].kind)))
                cand[n][0] = a, cand[n][1] = b, n++;
    }
    for (int i = n - 1; i > 0; i--) { /* a seeded shuffle */
        int k = pick(rng, i + 1), a = cand[i][0], b = cand[i][1];
        cand[i][0] = cand[k][0], cand[i][1] = cand[k][1], cand[k][0] = a, cand[k][1] = b;
    }
    p->rel = blocks ? SC_BLOCKS_UNTIL : SC_AFTER;
    for (int i = 0; i < n; i++) {
        p->object = cand[i][0], p->subject = cand[i][1];
        if (derive_control(p) == 0)
            return 0;
    }
    return -1;
}

static void generate(struct soak_plan *p, uint64_t *rng, int max_threads)
{
    static const enum soak_op filler[] = { SOAK_KERNEL, SOAK_KERNEL, SOAK_MEMSET, SOAK_H2D,    SOAK_D2H,
                                           SOAK_D2D,    SOAK_HOST_FUNC, SOAK_RECORD, SOAK_RECORD, SOAK_RECORD,
                                           SOAK_WAIT,   SOAK_WAIT,   SOAK_WAIT,   SOAK_EVENT_QUERY, SOAK_STREAM_QUERY };
    p->api = pick(rng, 2);
    p->nthreads = 1 + pick(rng, max_threads);
    p->nstreams = 2 + pick(rng, SOAK_MAX_STREAMS - 1);
    for (int s = 0; s < p->nstreams; s++)
        p->streams[s] = (enum soak_stream)pick(rng, 4);
    p->nevents = 1 + pick(rng, SOAK_MAX_EVENTS);
    p->ops[0] = (struct soak_op_plan){ pick(rng, 4) ? SOAK_GATE : SOAK_HOST_GATE, 0, 0, 0 };
    p->ops[1] = (struct soak_op_plan){ SOAK_KERNEL + pick(rng, SOAK_HOST_FUNC - SOAK_KERNEL + 1), 0, 0, 0 };
    p->nops = 2 + 3 + pick(rng, 12);
    for (int i = 2; i < p->nops; i++) {
        struct soak_op_plan *o = &p->ops[i];
        o->kind = filler[pick(rng, (int)(sizeof filler / sizeof filler[0]))];
        o->stream = pick(rng, p->nstreams);
        o->event = pick(rng, p->nevents);
        o->thread = pick(rng, p->nthreads);
    }
    if (pick(rng, 2)) /* half the programs record A's stream at once: its waits order other streams after A */
        p->ops[2] = (struct soak_op_plan){ SOAK_RECORD, 0, 0, 0 };
}

int soak_plan_make(struct soak_plan *p, uint64_t seed, int max_threads)
{
    uint64_t rng = seed;
    if (max_threads < 1 || max_threads > SOAK_MAX_THREADS)
        return -1;
    for (int attempt = 0; attempt < SOAK_TRIES; attempt++) {
        memset(p, 0, sizeof *p);
        p->seed = seed;
        generate(p, &rng, max_threads);
        int blocks = pick(&rng, 3) == 0;
        if (blocks) { /* the subject: a synchronize of a stream or an event, issued last */
            struct soak_op_plan *x = &p->ops[p->nops++];
            x->kind = pick(&rng, 2) ? SOAK_STREAM_SYNC : SOAK_EVENT_SYNC;
            x->stream = pick(&rng, p->nstreams);
            x->event = pick(&rng, p->nevents);
            x->thread = pick(&rng, p->nthreads);
        }
        if (choose(p, &rng, blocks) == 0)
            return 0;
    }
    return -1;
}

static const char *const op_names[] = {
    [SOAK_GATE] = "gate", [SOAK_HOST_GATE] = "host_gate", [SOAK_KERNEL] = "kernel", [SOAK_MEMSET] = "memset",
    [SOAK_H2D] = "copy_h2d", [SOAK_D2H] = "copy_d2h", [SOAK_D2D] = "copy_d2d", [SOAK_HOST_FUNC] = "host_func",
    [SOAK_RECORD] = "record", [SOAK_WAIT] = "wait", [SOAK_EVENT_QUERY] = "event_query",
    [SOAK_STREAM_QUERY] = "stream_query", [SOAK_STREAM_SYNC] = "stream_sync", [SOAK_EVENT_SYNC] = "event_sync",
};
static const char *const stream_names[] = { "blocking", "nonblocking", "legacy", "per_thread" };

static void op_name(const struct soak_plan *p, int i, char *out, size_t n)
{
    if (i == p->object)
        snprintf(out, n, "A");
    else if (i == p->subject)
        snprintf(out, n, p->rel == SC_AFTER ? "B" : "X");
    else
        snprintf(out, n, "%s%d", op_names[p->ops[i].kind], i);
}

void soak_plan_build(const struct soak_plan *p, sc_prog *prog, int control)
{
    sc_stream s[SOAK_MAX_STREAMS];
    sc_event e[SOAK_MAX_EVENTS];
    sc_op a = -1, b = -1;
    char name[SC_NAME_LEN];
    for (int i = 0; i < p->nstreams; i++) {
        snprintf(name, sizeof name, "s%d", i);
        switch (p->streams[i]) {
        case SOAK_BLOCKING: s[i] = sc_stream_create(prog, name, SC_BLOCKING); break;
        case SOAK_NONBLOCKING: s[i] = sc_stream_create(prog, name, SC_NONBLOCKING); break;
        case SOAK_LEGACY: s[i] = SC_LEGACY_STREAM; break;
        case SOAK_PER_THREAD: s[i] = SC_PER_THREAD_STREAM; break;
        }
    }
    for (int i = 0; i < p->nevents; i++) {
        snprintf(name, sizeof name, "e%d", i);
        e[i] = sc_event_create(prog, name);
    }
    for (int i = 0; i < p->nops; i++) {
        const struct soak_op_plan *o = &p->ops[i];
        sc_stream st = s[o->stream];
        sc_event ev = e[o->event];
        sc_op op = -1;
        if (control && p->drop[i])
            continue;
        op_name(p, i, name, sizeof name);
        switch (o->kind) {
        case SOAK_GATE: op = sc_gate(prog, name, st); break;
        case SOAK_HOST_GATE: op = sc_host_gate(prog, name, st); break;
        case SOAK_KERNEL: op = sc_kernel(prog, name, st); break;
        case SOAK_MEMSET: op = sc_memset(prog, name, st); break;
        case SOAK_H2D: op = sc_memcpy_async(prog, name, SC_H2D_PINNED, st); break;
        case SOAK_D2H: op = sc_memcpy_async(prog, name, SC_D2H_PINNED, st); break;
        case SOAK_D2D: op = sc_memcpy_async(prog, name, SC_D2D, st); break;
        case SOAK_HOST_FUNC: op = sc_host_func(prog, name, st); break;
        case SOAK_RECORD: op = sc_record(prog, name, ev, st); break;
        case SOAK_WAIT: op = sc_wait(prog, name, ev, st); break;
        case SOAK_EVENT_QUERY: op = sc_event_query(prog, name, ev); break;
        case SOAK_STREAM_QUERY: op = sc_stream_query(prog, name, st); break;
        case SOAK_STREAM_SYNC: op = sc_stream_sync(prog, name, st); break;
        case SOAK_EVENT_SYNC: op = sc_event_sync(prog, name, ev); break;
        }
        if (o->thread) {
            snprintf(name, sizeof name, "t%d", o->thread);
            sc_in_thread(prog, op, name);
        }
        if (i == p->object)
            a = op;
        if (i == p->subject)
            b = op;
    }
    sc_expect(prog, b, p->rel, a);
}

void soak_plan_describe(const struct soak_plan *p, char *out, size_t n)
{
    size_t len = 0;
    char name[SC_NAME_LEN];
#define PUT(...) (len += (size_t)snprintf(out + len, len < n ? n - len : 0, __VA_ARGS__))
    PUT("%s API, threads main", p->api ? "runtime" : "driver");
    for (int t = 1; t < p->nthreads; t++)
        PUT(",t%d", t);
    PUT("; streams");
    for (int i = 0; i < p->nstreams; i++)
        PUT(" s%d=%s", i, stream_names[p->streams[i]]);
    PUT("; events e0..e%d\n", p->nevents - 1);
    for (int i = 0; i < p->nops; i++) {
        const struct soak_op_plan *o = &p->ops[i];
        op_name(p, i, name, sizeof name);
        PUT("%s: %s", name, op_names[o->kind]);
        if (o->kind == SOAK_RECORD || o->kind == SOAK_WAIT || o->kind == SOAK_EVENT_QUERY ||
            o->kind == SOAK_EVENT_SYNC)
            PUT(" e%d", o->event);
        if (on_stream(o->kind) || o->kind == SOAK_STREAM_QUERY)
            PUT(" on s%d", o->stream);
        if (o->thread)
            PUT(" in t%d\n", o->thread);
        else
            PUT(" in main\n");
    }
    PUT("expect: %s %s A; the control drops", p->rel == SC_AFTER ? "B" : "X", sc_relation_text(p->rel));
    for (int i = 0; i < p->nops; i++)
        if (p->drop[i]) {
            op_name(p, i, name, sizeof name);
            PUT(" %s", name);
        }
#undef PUT
    if (len >= n && n > 0)
        out[n - 1] = '\0';
}
