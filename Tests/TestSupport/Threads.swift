import Foundation

/// Runs `body` on a new thread (not the cooperative pool, not the main thread) and returns
/// its result once it has finished.
///
/// A long synchronous test body run on the pool holds one of its threads (two on a 2-core
/// machine) for its whole length, and every other test, main-actor ones included, waits for a
/// thread to start or resume on; on a thread of its own, it only shares the cores.
@discardableResult
public func onNewThread<Value: Sendable>(_ body: @escaping @Sendable () -> Value) async -> Value {
  await withCheckedContinuation { (continuation: CheckedContinuation<Value, Never>) in
    let thread = Thread { continuation.resume(returning: body()) }
    thread.start()
  }
}
