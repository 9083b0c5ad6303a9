/*
 * ops.h - the op kinds and their facts, from the one table runtime/ops.def.
 *
 *     if (sc_op_facts(d->kind)->slot) ...     // instead of a list of kinds
 *     if (sc_op_spins(d->kind)) ...           // a predicate derived from the table
 *
 * Every predicate about a kind asks this; none lists kinds by hand.
 */
#ifndef SC_OPS_H
#define SC_OPS_H

enum sc_op_role { SC_ROLE_WORK, SC_ROLE_HOST, SC_ROLE_QUERY };
enum sc_op_arg { SC_ARG_NONE, SC_ARG_STREAM, SC_ARG_EVENT, SC_ARG_DEVICE };
enum sc_op_data { SC_DATA_NONE, SC_DATA_COPY, SC_DATA_MEMSET, SC_DATA_PEER, SC_DATA_FILL };
enum sc_op_names { SC_NAMES_NONE, SC_NAMES_NODE, SC_NAMES_BUFFER, SC_NAMES_GRAPH, SC_NAMES_GRAPHS, SC_NAMES_WORD,
                   SC_NAMES_WORDS, SC_NAMES_EDGE };

enum sc_op_kind {
    SC_OP_NONE = 0, /* a zeroed sc_op_def */
#define SC_OP(KIND, ...) SC_OP_##KIND,
#include "ops.def"
#undef SC_OP
    SC_OP_KIND_END
};

/* The columns of ops.def, in its order (ops.def says what each means). */
struct sc_op_facts {
    const char *name, *builder;
    enum sc_op_role role;
    enum sc_op_arg arg;
    enum sc_op_data data;
    unsigned char slot, probe, stamp, group, observable, proc;
    int devices;
    unsigned char driver_only, isolate, runtime_only, answers;
    /* the runtime's own */
    unsigned char spins, holds, records, kernel_gates, begins_capture, node, default_pool, allocates, from_buffer,
        reads_buffer, word_wait, host_body, ends_thread, makes_context, keeps_no_context, enters_context,
        error_state, replays, status, primary, secondary;
    enum sc_op_names names;
};

/* The facts of kind k; a kind out of range has those of SC_OP_NONE (name "?"). */
const struct sc_op_facts *sc_op_facts(enum sc_op_kind k);

/* ---- predicates derived from the table ---------------------------------------- */

/* A query: it may answer not-ready. */
static inline int sc_op_is_query(enum sc_op_kind k) { return sc_op_facts(k)->role == SC_ROLE_QUERY; }
/* It acts on an event (beside a stream it is issued to). */
static inline int sc_op_uses_event(enum sc_op_kind k) { return sc_op_facts(k)->arg == SC_ARG_EVENT; }
/* A gate that spins on the gate flag until the release. */
static inline int sc_op_spins(enum sc_op_kind k) { return sc_op_facts(k)->spins; }
/* A node a launch of its graph runs, which writes its slot then (observed like a captured op). */
static inline int sc_op_is_running_node(enum sc_op_kind k) { return sc_op_facts(k)->node && sc_op_facts(k)->slot; }
/* A memset or memcpy node: all of a graph's write one device buffer (node_buffer in runtime/case/case.h). */
static inline int sc_op_is_data_node(enum sc_op_kind k)
{
    return sc_op_facts(k)->node && sc_op_facts(k)->data != SC_DATA_NONE;
}
/* A kernel whose token a programmatic dependent launch right after it reads. */
static inline int sc_op_is_primary(enum sc_op_kind k) { return sc_op_facts(k)->primary; }
/* It fills the op's buffer (the data checks' FILL). */
static inline int sc_op_fills(enum sc_op_kind k) { return sc_op_facts(k)->data == SC_DATA_FILL; }

#endif
