import Synchronization

// Bulk observation, for relation controllers: one small watch per element instead of a
// registration (token, record, closure, slot entries) per element.
//
// A watch hears every change of every `@Observed` property, and the deletion, of each object
// that the evaluation it was made from read (the element itself, and any object reached from
// it). It carries no value: its receiver re-evaluates the element, which is exact because an
// evaluation reads current values, and re-watches, which follows what the new evaluation reads.
// Changes of properties the evaluation did not read also fire it (the object is watched as a
// whole): receivers must treat a firing as "may have changed".

/// Hears the watches of one sink.
package protocol _WatchReceiver: AnyObject, Sendable {
  /// An object that the evaluation of the element `id` read changed, or, when
  /// `elementDeleted`, the element announced its deletion. Runs on the writing thread, after
  /// the write, with no lock of Binding's held (the receiver may take its own and evaluate the
  /// element there).
  func _watchFired(_ id: ObjectIdentifier, elementDeleted: Bool)
}

/// Where the watches of one receiver (a controller) report; it holds the receiver weakly, so
/// a watch that fires while its receiver is being released reaches nothing.
package final class _WatchSink: Sendable {
  private struct Weak {
    weak var receiver: (any _WatchReceiver)?
  }

  private let _receiver = _Locked(Weak())

  package init() {}

  /// Sets the receiver (once, when it is initialised).
  package func attach(_ receiver: any _WatchReceiver) {
    _receiver.withLock { $0.receiver = receiver }
  }

  var receiver: (any _WatchReceiver)? { _receiver.withLock { $0.receiver } }
}

/// One element's bulk registration: listed by the state of every object its last evaluation
/// read; live until deactivated (dead entries are unlinked lazily, by the objects' next change
/// or watch).
package final class _Watch: Sendable {
  let sink: _WatchSink
  /// The element's address with bit 0 set while live and bit 1 set when the evaluation read
  /// nothing but the element (objects are at least 16-byte aligned, so those bits are free).
  private let _bits: Atomic<UInt>

  init(sink: _WatchSink, element: ObjectIdentifier, readsOnlyElement: Bool) {
    self.sink = sink
    _bits = Atomic(UInt(bitPattern: element) | 1 | (readsOnlyElement ? 2 : 0))
  }

  var isLive: Bool { _bits.load(ordering: .acquiring) & 1 != 0 }
  var readsOnlyElement: Bool { _bits.load(ordering: .relaxed) & 2 != 0 }

  /// Ends the watch: it fires no more. Idempotent; any thread.
  package func deactivate() { _bits.bitwiseAnd(~1, ordering: .releasing) }

  /// Tells the receiver that `object`, which the evaluation read, changed or was deleted.
  func fire(_ object: AnyObject, deleted: Bool) {
    let bits = _bits.load(ordering: .acquiring)
    guard bits & 1 != 0, let receiver = sink.receiver else { return }
    let address = bits & ~3
    let isElement = UInt(bitPattern: ObjectIdentifier(object)) == address
    // `address` is `UInt(bitPattern:)` of an `ObjectIdentifier`, a single pointer-sized field,
    // so the cast rebuilds the same identifier.
    receiver._watchFired(
      unsafeBitCast(address, to: ObjectIdentifier.self), elementDeleted: deleted && isElement)
  }
}

/// Evaluates `evaluate` with tracking and watches `element` and every object it read.
///
/// Keeps `previous` when it is live and both evaluations read only the element (nothing to
/// re-attach, nothing allocated); otherwise ends it and returns a new watch.
///
/// - Returns: The watch, or `nil` (and `previous` ended) when `element` announced its
///   deletion: it is not watched.
package func _watch<Root: ObservableModel>(
  _ element: Root, sink: _WatchSink, replacing previous: _Watch?, _ evaluate: () -> Void
) -> _Watch? {
  let read = _AccessRecorder.trackObjects(evaluate)
  let state = element.observation.state()
  let readsOnlyElement = read.allSatisfy { $0 === state }
  if let previous, previous.isLive, previous.readsOnlyElement, readsOnlyElement {
    if !state.isDeleted { return previous }
  }
  // The new watch is listed before the previous one ends, so that a write on another thread in
  // between reaches one of them (at worst both: one more re-evaluation).
  let watch = _Watch(
    sink: sink, element: ObjectIdentifier(element), readsOnlyElement: readsOnlyElement)
  guard state.add(watch) else {
    watch.deactivate()
    previous?.deactivate()
    return nil
  }
  for other in read where other !== state {
    // An object that announced its deletion has nothing more to tell.
    _ = other.add(watch)
  }
  previous?.deactivate()
  return watch
}
