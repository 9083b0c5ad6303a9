/*
 * ops.h - the op kinds and their facts, from the one table runtime/ops.def.
 *
 *     if (sc_op_facts(d->kind)->slot) ...     // instead of a list of kinds
 *
 * Every predicate about a kind asks this; none lists kinds by hand.
 */
#ifndef SC_OPS_H
#define SC_OPS_H

enum sc_op_role { SC_ROLE_WORK, SC_ROLE_HOST, SC_ROLE_QUERY };
enum sc_op_arg { SC_ARG_NONE, SC_ARG_STREAM, SC_ARG_EVENT, SC_ARG_DEVICE };
enum sc_op_data { SC_DATA_NONE, SC_DATA_COPY, SC_DATA_MEMSET, SC_DATA_PEER, SC_DATA_FILL };

enum sc_op_kind {
    SC_OP_NONE = 0, /* a zeroed sc_op_def */
#define SC_OP(KIND, ...) SC_OP_##KIND,
#include "ops.def"
#undef SC_OP
    SC_OP_KIND_END
};

/* The columns of ops.def the runtime asks (ops.def says what each means). */
struct sc_op_facts {
    const char *name;
    enum sc_op_role role;
    enum sc_op_arg arg;
    enum sc_op_data data;
    unsigned char slot, probe, stamp, group, observable, answers, isolate;
    int devices;
};

/* The facts of kind k; a kind out of range has those of SC_OP_NONE (name "?"). */
const struct sc_op_facts *sc_op_facts(enum sc_op_kind k);

#endif
