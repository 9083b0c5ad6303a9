/*
 * breaks.c - which promise the mock breaks (STREAMCTS_MOCK_BREAK) and which
 * legal behaviour it adopts (STREAMCTS_MOCK_QUIRK), read once before main
 * against the rows of breaks.def.  A value that is no row's name is refused
 * with the list of names, exit 2, before the program writes anything; an
 * unset or empty variable breaks nothing.
 */
#define _GNU_SOURCE
#include "mock.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum mock_break mock_break;
enum mock_quirk mock_quirk;
const char *mock_break_value;

static const char *const break_names[] = {
    NULL,
#define BREAK(name, promise) #name,
#define QUIRK(name, behaviour)
#include "breaks.def"
#undef BREAK
#undef QUIRK
};
static const char *const quirk_names[] = {
    NULL,
#define BREAK(name, promise)
#define QUIRK(name, behaviour) #name,
#include "breaks.def"
#undef BREAK
#undef QUIRK
};

/* The row of names[0..n) that value names (0: unset or empty); exits 2 naming the variable and the list for
 * any other value. */
static int row_of(const char *variable, const char *value, const char *const *names, int n)
{
    if (!value || !*value)
        return 0;
    for (int i = 1; i < n; i++)
        if (!strcmp(value, names[i]))
            return i;
    fprintf(stderr, "%s: %s: '%s' is not one of", program_invocation_name, variable, value);
    for (int i = 1; i < n; i++)
        fprintf(stderr, "%s %s", i > 1 ? "," : "", names[i]);
    fprintf(stderr, " (selftest/mock/device/breaks.def)\n");
    exit(2);
}

__attribute__((constructor)) static void read_breaks(void)
{
    mock_break_value = getenv("STREAMCTS_MOCK_BREAK");
    mock_break = (enum mock_break)row_of("STREAMCTS_MOCK_BREAK", mock_break_value, break_names,
                                         (int)(sizeof break_names / sizeof break_names[0]));
    mock_quirk = (enum mock_quirk)row_of("STREAMCTS_MOCK_QUIRK", getenv("STREAMCTS_MOCK_QUIRK"), quirk_names,
                                         (int)(sizeof quirk_names / sizeof quirk_names[0]));
}
