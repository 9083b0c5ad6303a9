/* self.c - the executable a rule program's child processes run (see self.h). */
#define _POSIX_C_SOURCE 200809L
#include "self.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static char program[4096]; /* "": this process's executable */

int sc_self_exe(char *buf, size_t n)
{
    if (program[0]) {
        if ((size_t)snprintf(buf, n, "%s", program) >= n) {
            errno = ENAMETOOLONG;
            return -1;
        }
        return 0;
    }
    ssize_t len = readlink("/proc/self/exe", buf, n - 1);
    if (len <= 0)
        return -1;
    buf[len] = '\0';
    return 0;
}

void sc_self_set(const char *path) { snprintf(program, sizeof program, "%s", path ? path : ""); }

const char *sc_self_hosted(void) { return program[0] ? program : NULL; }
