/* fatbin.h - the kernels of kernels/streamcts_kernels.cu, embedded at build time. */
#ifndef SC_FATBIN_H
#define SC_FATBIN_H
#include <stddef.h>

extern const unsigned char sc_fatbin[];
extern const size_t sc_fatbin_size;

#endif
