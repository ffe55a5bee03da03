#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE  // RTLD_DEFAULT
#endif
#include <dlfcn.h>

#include "BindingThreadLocal.h"

_Thread_local intptr_t _binding_tracking_depth = 0;
_Thread_local void *_Nullable _binding_thread_state = 0;
_Thread_local intptr_t _binding_locks_held = 0;

void (*_Nullable _binding_tsan_acquire)(const void *_Nullable) = 0;
void (*_Nullable _binding_tsan_release)(const void *_Nullable) = 0;

/// Looks ThreadSanitizer's annotations up once, when the library is loaded (a lock taken by
/// another constructor that runs earlier goes unannotated: at worst a false report).
__attribute__((constructor)) static void _binding_findThreadSanitizer(void) {
  _binding_tsan_acquire = (void (*)(const void *))dlsym(RTLD_DEFAULT, "__tsan_acquire");
  _binding_tsan_release = (void (*)(const void *))dlsym(RTLD_DEFAULT, "__tsan_release");
}
