/*
 * soak-args.c - build/soak/args ARG...: tools/soak's arguments, checked by the
 * soak's own parser (workloads/soak/options.c) before the soak and the
 * runtime it links are built.  Exit status: 0 good (or --help, printed), 2 a
 * bad flag or value, named on stderr with its range.
 */
#include "../../workloads/soak/options.h" /* the soak's, not runtime/suite/options.h */

int main(int argc, char **argv)
{
    struct soak_options o;
    return soak_options_parse(argc, argv, &o) == SOAK_BAD ? 2 : 0;
}
