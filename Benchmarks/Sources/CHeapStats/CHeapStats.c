#include <stdlib.h>
#include "CHeapStats.h"
#if defined(__GLIBC__)
#include <malloc.h>
size_t heap_bytes_in_use(void) { return mallinfo2().uordblks; }
size_t heap_bytes_in_use_with_mmap(void) {
  struct mallinfo2 info = mallinfo2();
  return info.uordblks + info.hblkhd;
}
#else
size_t heap_bytes_in_use(void) { return 0; }
size_t heap_bytes_in_use_with_mmap(void) { return 0; }
#endif
