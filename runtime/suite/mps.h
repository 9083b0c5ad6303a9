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
 * GPU's compute mode.  Programs started in parallel each have their daemon and
 * server at once (NVIDIA documents several control/server pairs of one user); a
 * lock file in /tmp serializes only their setting up and the stopping of a
 * daemon a killed program left behind.
 */
#ifndef SC_MPS_H
#define SC_MPS_H

#define SC_MPS_ENV "STREAMCTS_MPS" /* set in the client run: the daemon's directory */
#define SC_MPS_LOCK_MS 120000u     /* how long a program waits for others setting up their MPS daemons, by default */

/* Was the program started as tap/<rule>.mps.t (and is not yet the client run)? */
int sc_mps_requested(const char *argv0);
/* The daemon's directory when this run is an MPS client, else NULL. */
const char *sc_mps_dir(void);
/* Waits up to lock_ms for the set-up lock (STREAMCTS_MPS_LOCK_MS, read by options.c), stops daemons that
 * killed programs left, starts its own daemon, runs argv again as its client, stops the daemon; returns
 * the client's exit status. */
int sc_mps_run(char **argv, unsigned lock_ms);

#endif
