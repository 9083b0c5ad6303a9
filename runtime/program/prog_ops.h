/* prog_ops.h - what the op builders (prog_ops.c, prog_graph_ops.c) share: an op added to the program, its
 * index, and the check of an object index it names. */
#ifndef SC_PROG_OPS_H
#define SC_PROG_OPS_H
#include "prog.h"

/* a new op of kind on stream s, named name (a program past SC_MAX_OPS: a misuse, the op goes nowhere) */
struct sc_op_def *sc_op_add(sc_prog *p, enum sc_op_kind kind, const char *name, sc_stream s);
/* the op's index in the program */
sc_op sc_op_index(const sc_prog *p, const struct sc_op_def *op);
/* a misuse of op unless 0 <= i < n (what: the kind of object i names) */
void sc_op_check_index(sc_prog *p, const char *op, const char *what, int i, int n);
/* an op of kind k on s that takes nothing else */
sc_op sc_op_simple(sc_prog *p, enum sc_op_kind k, const char *n, sc_stream s);

#endif
