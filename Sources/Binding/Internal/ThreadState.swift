internal import _BindingThreadLocal

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Per-thread state of the observation core: the access recorder used to resolve key paths,
/// the open coalescing scope, and the bindings being applied (to stop re-entrant loops).
///
/// The state is per thread rather than per task because everything here is synchronous and per
/// thread by contract (coalescing does not span `await`). A POSIX thread-specific key owns it
/// (its destructor releases the state when the thread exits); a C thread-local pointer
/// (`_BindingThreadLocal`) finds it, with one load (in a Linux executable; see the header for
/// other platforms) instead of a `pthread_getspecific` call on every write.
final class _ThreadState {
  /// The innermost access recorder, if key-path tracking is running on this thread (unowned:
  /// the recorder is owned by `recorders`, and reading it on every tracked read must not
  /// retain).
  @exclusivity(unchecked) var recorder: Unmanaged<_AccessRecorder>?
  /// The recorder of the outermost tracking on this thread (owned by `primaryOwner`).
  let primaryRecorder: Unmanaged<_AccessRecorder>
  private let primaryOwner: _AccessRecorder
  /// The recorders of nested trackings on this thread, one per level, reused.
  @exclusivity(unchecked) var recorders: [_AccessRecorder] = []

  init() {
    primaryOwner = _AccessRecorder()
    primaryRecorder = Unmanaged.passUnretained(primaryOwner)
  }
  /// How many recorders are in use (the nesting depth of tracking).
  @exclusivity(unchecked) var depth = 0
  /// The coalescing scope open on this thread, if any.
  @exclusivity(unchecked) var coalescing: _CoalescingScope?
  /// How many writes of `@Observed` properties are notifying their observers on this thread
  /// (a callback's write nests in the write that called it).
  @exclusivity(unchecked) var writeDepth = 0
  /// The transaction of the outermost write, created when a coalesced registration hears it
  /// outside any `coalesce` block, and delivered when that write's observers have all run;
  /// then kept, empty, for the thread's next write.
  @exclusivity(unchecked) var writeScope: _CoalescingScope?
  /// How many `_withoutNotifications` blocks are open on this thread: writes made inside them
  /// notify nobody.
  @exclusivity(unchecked) var silentWrites = 0
  /// The innermost binding being applied on this thread, linked to the ones it runs inside
  /// (see `_BindingGuard.apply`: each lives on the stack frame applying it).
  @exclusivity(unchecked) var applying: UnsafeMutablePointer<_Applying>?

  /// A binding being applied on this thread.
  struct _Applying {
    /// The binding's guard.
    let binding: ObjectIdentifier
    /// Applies the newest value that came back to the binding while it applied, if any.
    var next: (() -> Void)?
    /// The application this one runs inside, if any.
    let outer: UnsafeMutablePointer<_Applying>?

    init(binding: ObjectIdentifier, outer: UnsafeMutablePointer<_Applying>?) {
      self.binding = binding
      self.outer = outer
    }
  }

  /// A value the package's other modules set around a write (see `_withThreadValue`).
  var clientValue: AnyObject?
  /// Whether this is the process's main thread, found on first use (`Thread.isMainThread`
  /// costs two system calls on Linux).
  private(set) lazy var isMainThread: Bool = _currentThreadIsMain()

  /// The calling thread's state, created on first use and released when the thread exits.
  static var current: _ThreadState { currentUnmanaged.takeUnretainedValue() }

  /// The calling thread's state, unretained (the thread owns it until it exits).
  static var currentUnmanaged: Unmanaged<_ThreadState> {
    if let raw = _binding_threadState() { return Unmanaged<_ThreadState>.fromOpaque(raw) }
    let state = Unmanaged.passRetained(_ThreadState())
    pthread_setspecific(_threadStateKey, state.toOpaque())
    _binding_setThreadState(state.toOpaque())
    return state
  }

  /// The calling thread's state if it was already created, without creating it.
  static var existing: _ThreadState? { existingUnmanaged?.takeUnretainedValue() }

  /// The calling thread's state if it was already created, unretained.
  static var existingUnmanaged: Unmanaged<_ThreadState>? {
    guard let raw = _binding_threadState() else { return nil }
    return Unmanaged<_ThreadState>.fromOpaque(raw)
  }
}

#if canImport(Darwin)
  private func _releaseThreadState(_ raw: UnsafeMutableRawPointer) {
    _binding_setThreadState(nil)
    Unmanaged<_ThreadState>.fromOpaque(raw).release()
  }
#else
  private func _releaseThreadState(_ raw: UnsafeMutableRawPointer?) {
    guard let raw else { return }
    _binding_setThreadState(nil)
    Unmanaged<_ThreadState>.fromOpaque(raw).release()
  }
#endif

/// The thread-specific key holding each thread's `_ThreadState` (retained once per thread), so
/// that it is released when the thread exits; the destructor also clears the thread-local
/// pointer, so a later use on the exiting thread makes a new state instead of following it.
private let _threadStateKey: pthread_key_t = {
  var key = pthread_key_t()
  let result = pthread_key_create(&key, _releaseThreadState)
  precondition(result == 0, "Binding: pthread_key_create failed (\(result))")
  return key
}()

/// Runs `body` with `value` visible on this thread (`_currentThreadValue`), for the package's
/// other modules: a relation edit tells the relation's observers, which run synchronously inside
/// the write on the same thread, what it did. The one per-thread mechanism of the package (the
/// thread state above), not a task local: everything here is synchronous.
@usableFromInline
package func _withThreadValue<R>(_ value: AnyObject, _ body: () throws -> R) rethrows -> R {
  let thread = _ThreadState.current
  let outer = thread.clientValue
  thread.clientValue = value
  defer { thread.clientValue = outer }
  return try body()
}

/// The value set by the innermost `_withThreadValue` running on this thread, if any.
@usableFromInline
package var _currentThreadValue: AnyObject? { _ThreadState.existing?.clientValue }
