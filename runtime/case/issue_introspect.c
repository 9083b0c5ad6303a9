/*
 * issue_introspect.c - how the ops that ask a stream about itself or change its attributes are issued
 * (issue_ops.c's table names these functions): the context cuStreamGetCtx answers, the synchronization
 * policy set and read, attributes copied from another stream, and managed memory attached to the stream alone.
 */
#include "case.h"

/* stream_ctx: the value is 1 for device 0's primary context, 2 for the context the op names (backend.h) */
int issue_stream_ctx(struct run *r, int i, const struct issue_args *a)
{
    const struct sc_op_def *d = r->op[i].def;
    int which = 0, rc = r->b->stream_ctx(a->stream, d->context != SC_NO_CONTEXT ? r->contexts[d->context] : NULL,
                                         &which);
    r->op[i].value = which;
    return rc;
}

int issue_sync_policy_set(struct run *r, int i, const struct issue_args *a)
{
    int policy = r->op[i].def->cond;
    return r->b->sync_policy(a->stream, 1, &policy);
}

int issue_sync_policy(struct run *r, int i, const struct issue_args *a)
{
    int policy = 0, rc = r->b->sync_policy(a->stream, 0, &policy);
    r->op[i].value = policy;
    return rc;
}

/* copy_attributes dst src: the source stream's index is in cond */
int issue_copy_attributes(struct run *r, int i, const struct issue_args *a)
{
    return r->b->copy_attributes(a->stream, stream_handle(r, r->op[i].def->cond, 0));
}

int issue_attach_single(struct run *r, int i, const struct issue_args *a)
{
    (void)i;
    return r->b->attach_single(a->stream);
}
