// Thread-local storage for Binding, which Swift cannot declare: the calling thread's tracking
// depth, read by every `@Observed` getter, and its `_ThreadState`, read by every observed write.
// Not API: the module is public only because the getters that Binding inlines into its clients
// read the depth. The functions are inline, so each access is one load or store (a
// thread-pointer-relative move once the linker has placed the variables).
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

#endif
