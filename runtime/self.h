/*
 * self.h - the executable a rule program's child processes run.
 *
 * An isolated point's child (isolate.h) and a case's other processes
 * (procs.h) run the rule's own program again.  That is this process's
 * executable, unless this process is a host (host.h) running the rule for
 * a program that handed it over: then it is that program.
 */
#ifndef SC_SELF_H
#define SC_SELF_H
#include <stddef.h>

/* The executable's path into buf; -1 (errno set) when it cannot be had. */
int sc_self_exe(char *buf, size_t n);

/* From here on the children run path (NULL: this process's executable again). */
void sc_self_set(const char *path);

/*
 * The environment a child process starts with: this process's, with each "VAR=VALUE" of add (NULL ends it)
 * in place of any VAR it has.  Built before fork (only exec follows it); free() the array (its strings are
 * environ's and add's).  NULL when out of memory.
 */
char **sc_self_environ(const char *const add[]);

/* The program a host process runs a rule for (sc_self_set), or NULL in a program of its own. */
const char *sc_self_hosted(void);

#endif
