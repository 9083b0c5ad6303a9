/* self.c - the executable a rule program's child processes run (see self.h). */
#define _POSIX_C_SOURCE 200809L
#include "self.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
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

char **sc_self_environ(const char *const add[])
{
    extern char **environ;
    size_t n = 0, k = 0, nadd = 0;
    while (environ[n])
        n++;
    while (add[nadd])
        nadd++;
    char **env = calloc(n + nadd + 1, sizeof *env);
    if (!env)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        int replaced = 0;
        for (size_t a = 0; a < nadd && !replaced; a++) {
            size_t len = strcspn(add[a], "=");
            replaced = strncmp(environ[i], add[a], len) == 0 && environ[i][len] == '=';
        }
        if (!replaced)
            env[k++] = environ[i];
    }
    for (size_t a = 0; a < nadd; a++)
        env[k++] = (char *)add[a];
    return env;
}

void sc_self_set(const char *path) { snprintf(program, sizeof program, "%s", path ? path : ""); }

const char *sc_self_hosted(void) { return program[0] ? program : NULL; }
