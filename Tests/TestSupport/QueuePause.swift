import Dispatch

/// Pauses a serial queue at will: once ``toggle()`` pauses it, nothing else runs on the queue
/// until the next ``toggle()`` (unlike `suspend()`, which lets a block already running finish),
/// so that tests can cancel registrations while their deliveries wait.
public final class QueuePause {
  private let queue: DispatchQueue
  private let gate = DispatchSemaphore(value: 0)
  private let entered = DispatchSemaphore(value: 0)
  /// Whether the queue is paused now.
  public private(set) var isPaused = false

  /// - Parameter queue: A serial queue.
  public init(_ queue: DispatchQueue) { self.queue = queue }

  /// Pauses the queue (returning once a block holding it runs), or lets it go.
  public func toggle() {
    if isPaused {
      gate.signal()
    } else {
      queue.async { [entered, gate] in
        entered.signal()
        gate.wait()
      }
      entered.wait()
    }
    isPaused.toggle()
  }

  /// Lets the queue go if it is paused, and waits until everything queued so far ran.
  public func finish() {
    if isPaused { toggle() }
    queue.sync {}
  }
}
