/* devmem.c - the device's free memory from the driver API (see devmem.h). */
#include "devmem.h"
#include "cu_loader.h"
#include <stdio.h>

int soak_device_free(uint64_t *free_bytes, char *why, size_t n)
{
    size_t f = 0, t = 0;
    int rc = SC_CALL(cuMemGetInfo, &f, &t);
    if (rc) {
        snprintf(why, n, "cuMemGetInfo answered %s", sc_driver_backend.error_name(rc));
        return -1;
    }
    *free_bytes = f;
    return 0;
}
