/* ops.c - the facts of each op kind, as runtime/ops.def lists them (see ops.h). */
#include "ops.h"

static const struct sc_op_facts facts[SC_OP_KIND_END] = {
    [SC_OP_NONE] = { "?", SC_ROLE_WORK, SC_ARG_NONE, SC_DATA_NONE, 0, 0, 0, 0, 0, 0, 0, 0 },
#define SC_OP(KIND, name, builder, role, arg, data, slot, probe, stamp, group, observable, proc, devices, \
              driver_only, isolate, runtime_only, answers)                                                 \
    [SC_OP_##KIND] = { name, SC_ROLE_##role, SC_ARG_##arg, SC_DATA_##data, slot, probe, stamp, group, observable, \
                       answers, isolate, devices },
#include "ops.def"
#undef SC_OP
};

const struct sc_op_facts *sc_op_facts(enum sc_op_kind k)
{
    return &facts[k > SC_OP_NONE && k < SC_OP_KIND_END ? k : SC_OP_NONE];
}
