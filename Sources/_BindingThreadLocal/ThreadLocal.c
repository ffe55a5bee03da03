#include "BindingThreadLocal.h"

_Thread_local intptr_t _binding_tracking_depth = 0;
_Thread_local void *_Nullable _binding_thread_state = 0;
