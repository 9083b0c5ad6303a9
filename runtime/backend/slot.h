/*
 * slot.h - the host-mapped record an operation leaves behind.
 *
 * Gates, kernels, host functions and callbacks each own one slot in pinned,
 * device-mapped host memory.  The layout must match kernels/streamcts_kernels.cu.
 * `token` is written last: a slot whose token equals the op's token is done.
 */
#ifndef SC_SLOT_H
#define SC_SLOT_H
#include <stdint.h>

struct sc_slot {
    uint64_t start_ns; /* %globaltimer (device ops) or host monotonic ns (host ops) */
    uint64_t end_ns;
    uint32_t token;
    uint32_t status;   /* gates: SC_GATE_RELEASED or SC_GATE_EXPIRED */
    uint32_t arg;      /* callbacks: the status argument they received */
    uint32_t runs;     /* how many times it ran: a captured op once per launch of its graph */
};

#define SC_GATE_RELEASED 1u
#define SC_GATE_EXPIRED  2u

_Static_assert(sizeof(struct sc_slot) == 32, "sc_slot layout must match the kernels");

#endif
