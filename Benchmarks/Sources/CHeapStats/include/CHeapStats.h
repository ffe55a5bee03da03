#ifndef CHEAPSTATS_H
#define CHEAPSTATS_H
#include <stddef.h>

/// Bytes of heap in use, from glibc's mallinfo2() (0 where it is unavailable).
size_t heap_bytes_in_use(void);

#endif
