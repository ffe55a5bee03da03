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
//
// Lone watches: most elements are watched by one controller and their evaluation reads only
// themselves (a filter and a sort on the element's own properties). Such a watch is kept in the
// element's `ObservationStorage` word itself, as the address of the controller's sink with
// bit 0 set, so that the element needs no `_ModelState` and no `_Watch` (about 140 bytes at
// 10^6 elements). Anything else that observes the element (a registration, another watch, a
// deletion) creates the state, which takes the lone watch over as an ordinary `_Watch`.
// Whoever takes the sink out of a word, or drops the word's reference to it, holds the stripe
// lock of that sink (`_loneWatchLock`), so a writer that finds the tag can retain the sink
// before it can be released.

/// Where the watches of one receiver (a controller) report; it holds the receiver weakly, so
/// a watch that fires while its receiver is being released reaches nothing.
@usableFromInline
package final class _WatchSink: Sendable {
  /// Calls the receiver's `_watchFired` while the receiver is alive. (In a struct: a closure
  /// stored directly in the generic lock would be re-abstracted, and wrapped in one more
  /// thunk, on every access.)
  @usableFromInline
  struct _Receiver: Sendable {
    @usableFromInline let fire: @Sendable (ObjectIdentifier, _ elementDeleted: Bool) -> Void

    @inlinable
    init(fire: @escaping @Sendable (ObjectIdentifier, _ elementDeleted: Bool) -> Void) {
      self.fire = fire
    }
  }

  private let _receiver = _Lock<_Receiver?>(nil)

  @usableFromInline
  package init() {}

  /// Sets the receiver (once, when it is initialised).
  ///
  /// Generic and inlinable so that the call is made where the receiver's type is known: a
  /// generic controller calls this from its inlinable initialiser, which the client compiles
  /// for its own element types, so a fired watch enters code specialised for them instead of
  /// the controller's unspecialised protocol witness.
  @inlinable
  package func attach<Receiver: _WatchReceiver>(_ receiver: Receiver) {
    _setReceiver(
      _Receiver { [weak receiver] id, elementDeleted in
        receiver?._watchFired(id, elementDeleted: elementDeleted)
      })
  }

  @usableFromInline
  func _setReceiver(_ receiver: _Receiver) {
    _receiver.withLock { $0 = receiver }
  }

  /// Tells the receiver, if it is still alive, that the element `id` (or an object its
  /// evaluation read) changed, or that the element was deleted.
  func fire(_ id: ObjectIdentifier, elementDeleted: Bool) {
    _receiver.withLock { $0 }?.fire(id, elementDeleted)
  }
}

/// One element's bulk registration: listed by the state of every object its last evaluation
/// read; live until deactivated (dead entries are unlinked lazily, by the objects' next change
/// or watch).
@usableFromInline
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
  /// The element's identity, as bits.
  var elementBits: UInt { _bits.load(ordering: .relaxed) & ~3 }

  /// Ends the watch: it fires no more. Idempotent; any thread.
  @usableFromInline
  package func deactivate() { _bits.bitwiseAnd(~1, ordering: .releasing) }

  /// Tells the receiver that `object`, which the evaluation read, changed or was deleted.
  func fire(_ object: AnyObject, deleted: Bool) {
    let bits = _bits.load(ordering: .acquiring)
    guard bits & 1 != 0 else { return }
    let address = bits & ~3
    let isElement = UInt(bitPattern: ObjectIdentifier(object)) == address
    // `address` is `UInt(bitPattern:)` of an `ObjectIdentifier`, a single pointer-sized field,
    // so the cast rebuilds the same identifier.
    sink.fire(
      unsafeBitCast(address, to: ObjectIdentifier.self), elementDeleted: deleted && isElement)
  }
}

/// How a controller watches one element: a `_Watch`, or a lone watch kept in the element's
/// own observation word (see above), which the element's state may have taken over since.
@usableFromInline
package enum _WatchHandle: Sendable {
  case full(_Watch)
  case lone

  /// The listed watch, if the handle is one (`nil` for a lone watch).
  @usableFromInline
  package var listed: _Watch? {
    if case .full(let watch) = self { watch } else { nil }
  }

  /// Whether two handles are the same watch.
  @usableFromInline
  package func isSame(as other: _WatchHandle?) -> Bool {
    switch (self, other) {
    case (.full(let lhs), .full(let rhs)?): lhs === rhs
    case (.lone, .lone?): true
    default: false
    }
  }

  /// Ends the watch (of `element`, reporting to `sink`): it fires no more. Idempotent.
  @usableFromInline
  package func end<Element: ObservableModel>(of element: Element, sink: _WatchSink) {
    end(of: element, sink: sink, except: nil)
  }

  /// Ends the watch, sparing `except` (a `.lone` handle ends whichever watch of the sink reads
  /// only the element, which may be another handle's `.full` watch: name that one here).
  @usableFromInline
  package func end<Element: ObservableModel>(
    of element: Element, sink: _WatchSink, except: _Watch?
  ) {
    switch self {
    case .full(let watch): watch.deactivate()
    case .lone: element.observation.endLoneWatch(sink, element: ObjectIdentifier(element), except)
    }
  }
}
