// What Binding keeps in C: thread-local storage, which Swift cannot declare (the calling
// thread's tracking depth, read by every `@Observed` getter, and its `_ThreadState`, read by
// every observed write), ThreadSanitizer's lock annotations, looked up once when the library
// loads, and a prefetch hint for CollectionController. Not API: the module is public only
// because code that Binding and CollectionController inline into their clients (the getters,
// the lock, a relation's recount) uses it. The functions are inline. How a thread-local is
// reached depends on the platform: one thread-pointer-relative load in a Linux executable (the
// linker relaxes the access), a `__tls_get_addr` call in a Linux shared library, a call through
// the variable's `tlv_get_addr` thunk on Apple platforms. Measured on Linux executables only.
#ifndef BINDING_THREAD_LOCAL_H
#define BINDING_THREAD_LOCAL_H

#include <stdint.h>

/// How deeply the calling thread is tracking key-path reads (Binding's `_AccessRecorder`
/// nesting): 0 when it is not. Each thread has its own, so entering and leaving tracking costs
/// a plain store, and an `@Observed` getter learns whether to record its read with one load.
/// The reader is `pure` (it reads memory, writes none), so Swift does not retain the object whose
/// getter asks around the question.
extern _Thread_local intptr_t _binding_tracking_depth;

static inline __attribute__((always_inline, pure)) intptr_t _binding_trackingDepth(void) {
  return _binding_tracking_depth;
}

static inline __attribute__((always_inline)) void _binding_setTrackingDepth(intptr_t depth) {
  _binding_tracking_depth = depth;
}

/// The calling thread's `_ThreadState` (unretained; the thread-specific key that releases it
/// when the thread exits owns it), or null before its first use and after its release.
extern _Thread_local void *_Nullable _binding_thread_state;

static inline __attribute__((always_inline)) void *_Nullable _binding_threadState(void) {
  return _binding_thread_state;
}

static inline __attribute__((always_inline)) void _binding_setThreadState(void *_Nullable state) {
  _binding_thread_state = state;
}

/// How many of the package's locks the calling thread holds; counted by debug builds only, so
/// that tests can check that no user code (a `deinit` above all) runs under a lock.
extern _Thread_local intptr_t _binding_locks_held;

static inline __attribute__((always_inline)) intptr_t _binding_locksHeld(void) {
  return _binding_locks_held;
}

static inline __attribute__((always_inline)) void _binding_addLocksHeld(intptr_t delta) {
  _binding_locks_held += delta;
}

/// ThreadSanitizer's `__tsan_acquire` and `__tsan_release`, found when the library is loaded
/// in a process built with `-sanitize=thread`, null in any other (see Binding's `_Lock`).
extern void (*_Nullable _binding_tsan_acquire)(const void *_Nullable);
extern void (*_Nullable _binding_tsan_release)(const void *_Nullable);

/// Tells ThreadSanitizer that a lock at `address` was acquired; one load and a branch in a
/// process without it.
static inline __attribute__((always_inline)) void
_binding_tsanAcquire(const void *_Nullable address) {
  if (_binding_tsan_acquire) _binding_tsan_acquire(address);
}

/// Tells ThreadSanitizer that the lock at `address` is about to be released.
static inline __attribute__((always_inline)) void
_binding_tsanRelease(const void *_Nullable address) {
  if (_binding_tsan_release) _binding_tsan_release(address);
}

/// Asks the processor to bring the cache line at `address` in for reading, without waiting for
/// it (CollectionController's identity lookups over a whole array, whose next buckets are known
/// ahead). A hint: it never faults, whatever the address.
static inline __attribute__((always_inline)) void _binding_prefetch(const void *_Nullable address) {
  __builtin_prefetch(address, 0, 3);
}

#endif
