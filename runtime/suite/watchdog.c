/* watchdog.c - hard limits and fatal signals (see watchdog.h). */
#define _POSIX_C_SOURCE 200809L
#include "watchdog.h"
#include "clock.h"
#include "tap.h"
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

static uint64_t deadline; /* atomic; 0: disarmed */
static const char *why;   /* what the armed limit is for */

static void *watch(void *arg)
{
    (void)arg;
    for (;;) {
        uint64_t d = __atomic_load_n(&deadline, __ATOMIC_ACQUIRE);
        if (d && sc_now_ns() > d) {
            sc_tap_abandon(__atomic_load_n(&why, __ATOMIC_ACQUIRE));
            _exit(1);
        }
        sc_pause_ns(50000000u);
    }
    return NULL;
}

static void on_signal(int sig)
{
    const char *why = "crashed: fatal signal";
    switch (sig) {
    case SIGSEGV: why = "crashed: SIGSEGV"; break;
    case SIGBUS: why = "crashed: SIGBUS"; break;
    case SIGFPE: why = "crashed: SIGFPE"; break;
    case SIGILL: why = "crashed: SIGILL"; break;
    case SIGABRT: why = "crashed: SIGABRT"; break;
    }
    sc_tap_abandon(why);
    _exit(1);
}

void sc_watchdog_start(void)
{
    static const int sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
    struct sigaction sa;
    static int started; /* once per process, however many programs it runs (host.h) */
    pthread_t tid;
    if (started++)
        return;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sigaction(sigs[i], &sa, NULL);
    if (pthread_create(&tid, NULL, watch, NULL) == 0)
        pthread_detach(tid);
}

void sc_watchdog_arm(uint64_t limit_ns, const char *reason)
{
    __atomic_store_n(&why, reason, __ATOMIC_RELEASE);
    __atomic_store_n(&deadline, sc_now_ns() + limit_ns, __ATOMIC_RELEASE);
}
void sc_watchdog_disarm(void) { __atomic_store_n(&deadline, 0, __ATOMIC_RELEASE); }
