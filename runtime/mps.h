/*
 * mps.h - running a program's cases under NVIDIA's Multi-Process Service.
 *
 * The build installs each rule program of several processes a second time as
 * tap/<rule>.mps.t.  Started under that name, the program starts a private MPS
 * control daemon (nvidia-cuda-mps-control -d, with its own pipe and log
 * directory, so nothing else on the machine becomes its client), runs itself
 * again as an MPS client (every process of every case connects to the
 * daemon's server), then tells the daemon to quit.  Where MPS cannot run, the
 * program reports 1..0 # SKIP with what to do about it.  Nothing changes the
 * GPU's compute mode.  Programs started in parallel take turns (a lock file in
 * /tmp): one MPS server at a time.
 *
 * A run tool (tools/lib/mps.sh) may instead start one daemon for the whole
 * run and name its pipe directory in STREAMCTS_MPS_DAEMON: then the program
 * takes no lock, stops and starts nothing, and runs itself again as a client
 * of that daemon, side by side with the run's other *.mps.t programs (the
 * tool holds the lock for the run).  A value that names no daemon (not an
 * absolute path, not a directory, no `control` socket or pipe in it) is bad
 * input: one line on stderr names the variable and the path, exit 2, nothing
 * started.  A daemon that was there and has ended (the process its
 * nvidia-cuda-mps-control.pid names is gone) fails the program instead:
 * `not ok 1 - MPS daemon` with the reason.  An empty value is unset.
 */
#ifndef SC_MPS_H
#define SC_MPS_H

#define SC_MPS_ENV "STREAMCTS_MPS" /* set in the client run: the daemon's directory */
#define SC_MPS_DAEMON_ENV "STREAMCTS_MPS_DAEMON" /* set by a run tool: its shared daemon's pipe directory */
#define SC_MPS_LOCK_MS 1800000u    /* how long a program waits for other programs' MPS runs, by default */

/* Was the program started as tap/<rule>.mps.t (and is not yet the client run)? */
int sc_mps_requested(const char *argv0);
/* The daemon's directory when this run is an MPS client, else NULL. */
const char *sc_mps_dir(void);
/* 1 when this MPS client run is the client of the run's shared daemon (STREAMCTS_MPS_DAEMON), 0 when of
 * a daemon this program started (or not an MPS client run). */
int sc_mps_shared(void);
/* With STREAMCTS_MPS_DAEMON set: checks that it names a daemon and runs argv again as its client in this
 * process (exec; returns only on failure: 2 for a bad value).  Else: waits up to lock_ms for the lock
 * (STREAMCTS_MPS_LOCK_MS, read by options.c), starts the daemon, runs argv again as its client, stops it;
 * returns the client's exit status. */
int sc_mps_run(char **argv, unsigned lock_ms);

#endif
