/* outcome.c - the rows of runtime/result/outcomes.def (see outcome.h). */
#include "outcome.h"

static const struct sc_point_outcome_row rows[SC_POINT_OUTCOMES] = {
#define SC_POINT_OUTCOME(ID, name, tap, directive, reason, severity, fails) \
    [SC_POINT_##ID] = { name, tap, directive, reason, severity, fails },
#include "outcomes.def"
#undef SC_POINT_OUTCOME
};

const struct sc_point_outcome_row *sc_point_outcome_row(enum sc_point_outcome o)
{
    return &rows[(unsigned)o < SC_POINT_OUTCOMES ? o : SC_POINT_FAIL];
}

const char *sc_point_outcome_name(enum sc_point_outcome o) { return sc_point_outcome_row(o)->name; }
