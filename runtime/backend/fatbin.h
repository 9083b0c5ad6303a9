/* fatbin.h - the kernels of kernels/streamcts_kernels.cu (and streamcts_cond.cu, streamcts_devlaunch.cu), embedded at build time. */
#ifndef SC_FATBIN_H
#define SC_FATBIN_H
#include <stddef.h>

extern const unsigned char sc_fatbin[];
extern const size_t sc_fatbin_size;
/* kernels/streamcts_cond.cu: the kernels of conditional graph nodes, loaded only where one is added */
extern const unsigned char sc_cond_fatbin[];
extern const size_t sc_cond_fatbin_size;
/* kernels/streamcts_devlaunch.cu: the kernels that launch graphs from the device, loaded only where one is */
extern const unsigned char sc_devlaunch_fatbin[];
extern const size_t sc_devlaunch_fatbin_size;

#endif
