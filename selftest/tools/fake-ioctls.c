/*
 * fake-ioctls.c - a stand-in for libcuda in selftest/tools/driver-profile.t:
 * it makes the kernel driver's kinds of request of /dev/null (which refuses
 * them all), so that tools/driver-profile has something to count: 3 channel
 * allocations, 5 video memory allocations, 2 RM controls, 3 UVM channel
 * registrations and a terminal request that is not the driver's.  Like the
 * runtime (procs.c), it unsets STREAMCTS_PROCESS first: the library must have
 * read it when it was loaded.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static void request(int fd, unsigned long req, uint32_t at8, uint32_t at12)
{
    uint32_t params[16];
    memset(params, 0, sizeof params);
    params[2] = at8, params[3] = at12;
    (void)ioctl(fd, req, params);
}

int main(void)
{
    unsetenv("STREAMCTS_PROCESS");
    int fd = open("/dev/null", O_RDWR);
    if (fd < 0) {
        perror("/dev/null");
        return 1;
    }
    for (int i = 0; i < 3; i++)
        request(fd, 0xc030462bul, 0, 0xc86f); /* NV_ESC_RM_ALLOC of HOPPER_CHANNEL_GPFIFO_A */
    for (int i = 0; i < 5; i++)
        request(fd, 0xc030462bul, 0, 0x40); /* NV_ESC_RM_ALLOC of NV01_MEMORY_LOCAL_USER */
    for (int i = 0; i < 2; i++)
        request(fd, 0xc020462aul, 0x1234, 0); /* NV_ESC_RM_CONTROL, command 0x1234 */
    for (int i = 0; i < 3; i++)
        request(fd, 0x1bul, 0, 0); /* UVM_REGISTER_CHANNEL */
    request(fd, 0x5401ul, 0, 0); /* TCGETS: not the driver's */
    close(fd);
    return 0;
}
