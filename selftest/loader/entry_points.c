/*
 * entry_points.c - lists the driver entry points cu_loader.h resolves, one a
 * line: "required|optional <name in cuda.h> <ABI name in this compile mode>".
 * fake-libcuda.sh builds stand-ins for libcuda.so.1 from both modes' lists.
 */
#include "cu_loader.h"
#include <stdio.h>

/* #fn: the name as written in the list; SC_STR(fn): after cuda.h's renaming macros */
#define REQUIRED(fn) printf("required %s %s\n", #fn, SC_STR(fn));
#define OPTIONAL(fn) printf("optional %s %s\n", #fn, SC_STR(fn));

int main(void)
{
    SC_DRIVER_REQUIRED(REQUIRED)
    SC_DRIVER_OPTIONAL(OPTIONAL)
    return 0;
}
