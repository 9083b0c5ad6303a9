/*
 * processes.c - what the mock shares with other processes: a process started
 * by this same program, interprocess event handles, memory a memfd holds,
 * and the device lock of a serializing MPS server.
 */
#define _GNU_SOURCE
#include "mock.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <unistd.h>

/*
 * The break mps_serializes: under MPS every piece of work of every client process holds one lock
 * (a file in the MPS server's directory) while it runs.  -1: not broken so.
 */
int device_serial_lock(void)
{
    const char *dir = getenv("STREAMCTS_MPS");
    char path[512];
    if (!breaks(mps_serializes) || !dir || !*dir)
        return -1;
    snprintf(path, sizeof path, "%s/mock-device.lock", dir);
    int fd = open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0)
        while (flock(fd, LOCK_EX) != 0 && errno == EINTR)
            ;
    return fd;
}

/* memory a memfd holds, mapped shared; NULL on failure */
void *shared_map(int fd, size_t n)
{
    void *m = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    return m == MAP_FAILED ? NULL : m;
}
/* opens a memfd of process pid through /proc (the mock's stand-in for a handle the driver resolves) */
static int open_foreign(int pid, int fd)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd/%d", pid, fd);
    return open(path, O_RDWR | O_CLOEXEC);
}
/* Is this a process its parent program started (one of a case's others)? */
int started_by_itself(void)
{
    char self[4096], parent[4096], path[64];
    ssize_t a = readlink("/proc/self/exe", self, sizeof self - 1);
    snprintf(path, sizeof path, "/proc/%d/exe", (int)getppid());
    ssize_t b = readlink(path, parent, sizeof parent - 1);
    return a > 0 && a == b && !memcmp(self, parent, (size_t)a);
}
/* peer_dies: one of a case's other processes, the first time for this parent */
int dies_here(void)
{
    char mark[96];
    if (!started_by_itself())
        return 0;
    snprintf(mark, sizeof mark, "/tmp/streamcts-mock-peer-died-%d", (int)getppid());
    int fd = open(mark, O_CREAT | O_EXCL | O_WRONLY, 0600); /* once per parent */
    if (fd < 0)
        return 0;
    close(fd);
    return 1;
}
/* Host memory is the mock's device memory: registering it changes nothing.
 * Device memory lives in one process, so IPC memory handles are not modelled; interprocess events and
 * exportable pools are. */
int host_register(void *h, size_t n) { (void)h, (void)n; return 0; }
int host_unregister(void *h) { (void)h; return 0; }
int ipc_event_handle(void *e, void *h)
{
    struct mevent *ev = e;
    if (!ev->ipc)
        return refuse(1); /* invalid value: not an interprocess event */
    struct mipc_handle mh = { MOCK_IPC_MAGIC, (int32_t)getpid(), ev->ipc_fd };
    memset(h, 0, SC_IPC_HANDLE_BYTES);
    memcpy(h, &mh, sizeof mh);
    return 0;
}
int ipc_event_open(void **e, const void *h)
{
    struct mipc_handle mh;
    memcpy(&mh, h, sizeof mh);
    int fd = mh.magic == MOCK_IPC_MAGIC ? open_foreign(mh.pid, mh.fd) : -1;
    struct mipc *ipc = fd >= 0 ? shared_map(fd, 4096) : NULL;
    if (fd >= 0)
        close(fd);
    if (!ipc)
        return refuse(1); /* invalid value */
    struct mevent *ev = calloc(1, sizeof *ev);
    ev->flags = SC_EV_INTERPROCESS | SC_EV_DISABLE_TIMING;
    ev->ctx = cur_ctx;
    ev->ipc = ipc;
    ev->ipc_fd = -1;
    *e = ev;
    return 0;
}
int ipc_mem_handle(void *d, void *h) { (void)d, (void)h; return SC_UNSUPPORTED; }
int ipc_mem_open(void **d, const void *h) { (void)d, (void)h; return SC_UNSUPPORTED; }
int ipc_mem_close(void *d) { (void)d; return SC_UNSUPPORTED; }
