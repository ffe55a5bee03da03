extension Array {
  /// `Array(unsafeUninitializedCapacity:initializingWith:)`, except that a capacity of zero
  /// never touches the storage that every empty array shares.
  ///
  /// With a capacity of zero the standard library (Swift 6.3.1) still writes the initialised
  /// count, zero, into the empty-array singleton. That write is harmless, but it is a write to
  /// shared memory without synchronisation, and ThreadSanitizer reports it when two threads do it
  /// at once (it did, in the controller stress test: two controllers diffing empty relations).
  /// The standard library avoids the write on its other paths (swiftlang/swift#27808). Here,
  /// `initializer` still runs (callers do other work in it), with an empty buffer of its own.
  @inlinable
  init(
    _uninitializedCount capacity: Int,
    initializingWith initializer: (
      _ buffer: inout UnsafeMutableBufferPointer<Element>, _ initializedCount: inout Int
    ) throws -> Void
  ) rethrows {
    guard capacity > 0 else {
      var buffer = UnsafeMutableBufferPointer<Element>(start: nil, count: 0)
      var count = 0
      try initializer(&buffer, &count)
      precondition(count == 0, "initialised \(count) elements of an empty buffer")
      self = []
      return
    }
    try self.init(unsafeUninitializedCapacity: capacity, initializingWith: initializer)
  }
}
