import Foundation

/// A value behind a lock that ThreadSanitizer understands, for the test targets.
///
/// `Synchronization.Mutex` locks with futex system calls on Linux, which ThreadSanitizer does not
/// see, so it reports every access it protects as a race; `NSLock` is a pthread mutex there.
public final class TSanVisibleLock<Value>: @unchecked Sendable {
  // Safe: `value` is only touched while `lock` is held.
  private let lock = NSLock()
  private var value: Value

  /// Creates the lock around `value`.
  ///
  /// - Parameter value: The initial value.
  public init(_ value: Value) { self.value = value }

  /// Runs `body` with the value, the lock held.
  ///
  /// - Parameter body: Reads or changes the value.
  /// - Returns: What `body` returns.
  public func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
    lock.lock()
    defer { lock.unlock() }
    return try body(&value)
  }
}
