/*
 * outcome.h - the outcome of a TAP point (pass, fail, not-kept, ...): its
 * enum and its row of runtime/outcomes.def.  Not a relation's verdict
 * (enum sc_outcome, verdict.h): report.c decides a point's outcome from its
 * verdict, its rule's level and whether it is a control (sc_report_outcome).
 */
#ifndef SC_OUTCOME_H
#define SC_OUTCOME_H

enum sc_point_outcome {
#define SC_POINT_OUTCOME(ID, name, tap, directive, reason, severity, fails) SC_POINT_##ID,
#include "outcomes.def"
#undef SC_POINT_OUTCOME
    SC_POINT_OUTCOMES /* how many */
};

/* A row of outcomes.def (its columns say what each field is). */
struct sc_point_outcome_row {
    const char *name, *tap, *directive, *reason, *severity;
    int fails;
};

const struct sc_point_outcome_row *sc_point_outcome_row(enum sc_point_outcome o);
const char *sc_point_outcome_name(enum sc_point_outcome o);

#endif
