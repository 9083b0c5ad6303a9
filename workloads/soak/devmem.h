/*
 * devmem.h - the device's free memory, as the soak samples it.
 * workloads/soak/devmem.c asks the driver (cuMemGetInfo on the current
 * context); selftest/workloads/soak/devmem_mock.c, linked with the mock
 * backend, has no device memory to measure and says so.
 */
#ifndef SOAK_DEVMEM_H
#define SOAK_DEVMEM_H
#include <stddef.h>
#include <stdint.h>

/* 0 with the free bytes, or -1 with why it cannot be measured. */
int soak_device_free(uint64_t *free_bytes, char *why, size_t n);

#endif
