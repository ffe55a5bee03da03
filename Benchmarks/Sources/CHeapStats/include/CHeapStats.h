#ifndef CHEAPSTATS_H
#define CHEAPSTATS_H
#include <stddef.h>

/// Bytes of heap in use, from glibc's mallinfo2() (0 where it is unavailable). Chunks that
/// malloc serves with mmap (128 KiB and more by default) are not included.
size_t heap_bytes_in_use(void);

/// Bytes of heap in use including the chunks served with mmap (`uordblks + hblkhd`), for
/// measurements that allocate large buffers (dictionaries, arrays of 10^5 and more).
size_t heap_bytes_in_use_with_mmap(void);

#endif
