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
#include <stdint.h>
#include <sys/types.h>

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

/*
 * Starts this program again (sc_self_exe) as a child, with argv and the environment sc_self_environ(add)
 * builds.  pipe_w, when not -1, stays open in the child: as it is (the child learns its number from add),
 * or as its standard output with SC_SPAWN_STDOUT.  SC_SPAWN_DIE_WITH_PARENT: the child is killed when this
 * process ends.  Returns the child's pid, or -1 with why.
 */
enum { SC_SPAWN_STDOUT = 1, SC_SPAWN_DIE_WITH_PARENT = 2 };
pid_t sc_self_spawn(char *const argv[], const char *const add[], int pipe_w, unsigned flags, char *why, size_t n);

/*
 * Reads a child's answer from fd (closed here) into buf, up to size bytes, until the child closes its end or
 * limit_ns has passed, when the child is killed; then reaps the child.  Returns the bytes read, with
 * *timed_out and the child's wait *status.
 */
size_t sc_self_collect(pid_t pid, int fd, void *buf, size_t size, uint64_t limit_ns, int *timed_out, int *status);

/* The program a host process runs a rule for (sc_self_set), or NULL in a program of its own. */
const char *sc_self_hosted(void);

#endif
