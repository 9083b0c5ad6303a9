/*
 * issue.c - issuing one op from its worker thread: what every op needs before
 * its kind's issue function (issue_ops.c) runs and after it (its probe), each
 * member of a group op in turn, a subject's destination and source looked at
 * on return, and the host functions ops enqueue.
 */
#define _GNU_SOURCE
#include "case.h"

/* ---- host functions the ops enqueue ------------------------------------- */

void host_mark(void *a)
{
    struct host_arg *h = a;
    h->slot->start_ns = h->slot->end_ns = sc_now_ns();
    h->slot->runs++;
    __atomic_store_n(&h->slot->token, h->token, __ATOMIC_RELEASE);
}

void host_gate(void *a)
{
    struct host_arg *h = a;
    uint64_t start = sc_now_ns();
    uint32_t status = SC_GATE_RELEASED;
    h->slot->start_ns = start;
    while (__atomic_load_n(h->gate, __ATOMIC_ACQUIRE) == 0) {
        if (sc_now_ns() - start > h->max_ns) {
            status = SC_GATE_EXPIRED;
            break;
        }
        sc_pause_ns(SC_POLL_NS);
    }
    h->slot->end_ns = sc_now_ns();
    h->slot->status = status;
    h->slot->runs++;
    __atomic_store_n(&h->slot->token, h->token, __ATOMIC_RELEASE);
}

void callback_body(void *a, int status)
{
    struct host_arg *h = a;
    h->slot->arg = (uint32_t)status;
    host_mark(a);
}

/* a callback that makes a CUDA call, which NVIDIA's driver text says is not permitted there: what the call
 * answered is its answer */
void callback_api_body(void *a, int status)
{
    struct host_arg *h = a;
    (void)status;
    h->slot->arg = (uint32_t)h->b->stream_query(h->stream);
    host_mark(a);
}

/* ---- issuing ------------------------------------------------------------- */

/* Through the kind's issue function; a kind the table lacks fails. */
static int issue_kind(struct run *r, int i, const struct issue_args *a)
{
    issue_fn *fn = issue_fn_of(r->op[i].def->kind);
    return fn ? fn(r, i, a) : -1;
}

/* Op i alone (member 0 of a group). */
static int issue_one(struct run *r, int i)
{
    const sc_backend *b = r->b;
    struct op_rt *o = &r->op[i];
    const struct sc_op_def *d = o->def;
    struct issue_args a = { 0, o->stream, (struct sc_slot *)r->arena->slots_dev + i, o->token, &o->harg, NULL, NULL };
    enum where dw, sw;
    int rc = 0, status;

    op_ends(d, &dw, &sw);
    a.dst = arena_buffer(r, i, dw, &rc);
    a.src = arena_buffer(r, i, sw, &rc);
    if (sc_op_facts(d->kind)->role == SC_ROLE_WORK && r->has_capture && d->stream >= 0 && o->stream) {
        /* work issued into a capture is recorded, not run: do not wait for it */
        if (b->capture_status(o->stream, &status) == 0 && status != SC_CAPTURE_NONE)
            o->captured = 1;
    }
    if (data_of(d->kind) == SC_DATA_MEMSET && dw == W_PINNED && (rc = b->host_dev_ptr(&a.dst, a.dst)))
        return rc;
    rc = issue_kind(r, i, &a);
    /* a fault (it leaves a sticky error): a launch that waits for its kernel (CUDA_LAUNCH_BLOCKING=1) may
     * answer the fault itself, with whichever code its kind of fault gets */
    if (sc_op_facts(d->kind)->isolate && rc != SC_UNSUPPORTED && rc != b->code(SC_CODE_INVALID_VALUE) &&
        rc != b->code(SC_CODE_INVALID_HANDLE))
        r->faulted_at = i;
    if (rc == 0 && sc_op_facts(d->kind)->probe)
        rc = b->event_record(o->probe, o->stream);
    return rc;
}

/* Member m of group op i (the kinds a group issues to every member: ops.def's group column). */
static int issue_member(struct run *r, int i, int m)
{
    struct op_rt *o = &r->op[i];
    struct member *mb = &o->more[m - 1];
    struct issue_args a = { m, mb->stream, (struct sc_slot *)r->arena->slots_dev + mb->slot, mb->token, &mb->harg,
                            NULL, NULL };
    int rc = issue_kind(r, i, &a);
    if (rc == 0 && sc_op_facts(o->def->kind)->probe)
        rc = r->b->event_record(mb->probe, mb->stream);
    return rc;
}

int issue(struct run *r, int i)
{
    int rc = issue_one(r, i);
    for (int m = 1; rc == 0 && m < r->op[i].nmem && sc_op_facts(r->op[i].def->kind)->group; m++)
        rc = issue_member(r, i, m);
    return rc;
}

/*
 * Complete on return: right after the subject's call returned, look at its
 * destination (when the host can read it) and overwrite its source (when the
 * host can write it).  A copy still reading its source then carries the
 * clobber pattern to its destination, which the end of the case sees.
 */
void look_at_return(struct run *r, int i)
{
    struct op_rt *o = &r->op[i];
    enum where dw, sw;
    int rc;
    op_ends(o->def, &dw, &sw);
    if (on_host(dw)) {
        const uint32_t *got = arena_buffer(r, i, dw, &rc), want = expected_word(o);
        o->at_return = 1;
        for (size_t w = 0; got && w < sc_copy_bytes / 4; w++)
            if (got[w] != want) {
                o->at_return = 0, o->bad_word = w, o->bad_value = got[w];
                break;
            }
    }
    if (on_host(sw)) {
        fill_words(arena_buffer(r, i, sw, &rc), SC_CLOBBER);
        o->clobbered = 1;
    }
}
