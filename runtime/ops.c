/* ops.c - the facts of each op kind, as runtime/ops.def lists them (see ops.h). */
#include "ops.h"

/* Each of ops.def's columns, as the designated initializer of its field. */
#define name(x) .name = x
#define builder(x) .builder = #x
#define role(x) .role = SC_ROLE_##x
#define arg(x) .arg = SC_ARG_##x
#define data(x) .data = SC_DATA_##x
#define slot(x) .slot = x
#define probe(x) .probe = x
#define stamp(x) .stamp = x
#define group(x) .group = x
#define observable(x) .observable = x
#define proc(x) .proc = x
#define devices(x) .devices = x
#define driver_only(x) .driver_only = x
#define isolate(x) .isolate = x
#define runtime_only(x) .runtime_only = x
#define answers(x) .answers = x
#define spins(x) .spins = x
#define holds(x) .holds = x
#define records(x) .records = x
#define kernel_gates(x) .kernel_gates = x
#define begins_capture(x) .begins_capture = x
#define node(x) .node = x
#define default_pool(x) .default_pool = x
#define allocates(x) .allocates = x
#define from_buffer(x) .from_buffer = x
#define reads_buffer(x) .reads_buffer = x
#define word_wait(x) .word_wait = x
#define host_body(x) .host_body = x
#define ends_thread(x) .ends_thread = x
#define makes_context(x) .makes_context = x
#define keeps_no_context(x) .keeps_no_context = x
#define enters_context(x) .enters_context = x
#define error_state(x) .error_state = x
#define replays(x) .replays = x
#define status(x) .status = x
#define primary(x) .primary = x
#define secondary(x) .secondary = x
#define names(x) .names = SC_NAMES_##x

static const struct sc_op_facts facts[SC_OP_KIND_END] = {
    [SC_OP_NONE] = { .name = "?" },
#define SC_OP(KIND, ...) [SC_OP_##KIND] = { __VA_ARGS__ },
#include "ops.def"
#undef SC_OP
};

const struct sc_op_facts *sc_op_facts(enum sc_op_kind k)
{
    return &facts[k > SC_OP_NONE && k < SC_OP_KIND_END ? k : SC_OP_NONE];
}
