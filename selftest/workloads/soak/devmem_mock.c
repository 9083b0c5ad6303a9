/* devmem_mock.c - the soak linked with the mock backend: no device memory to measure (see devmem.h). */
#include "devmem.h"
#include <stdio.h>

int soak_device_free(uint64_t *free_bytes, char *why, size_t n)
{
    *free_bytes = 0;
    snprintf(why, n, "the mock backend has no device memory");
    return -1;
}
