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

/// Hears the watches of one sink.
@usableFromInline
package protocol _WatchReceiver: AnyObject, Sendable {
  /// An object that the evaluation of the element `id` read changed, or, when
  /// `elementDeleted`, the element announced its deletion. Runs on the writing thread, after
  /// the write, with no lock of Binding's held (the receiver may take its own and evaluate the
  /// element there).
  func _watchFired(_ id: ObjectIdentifier, elementDeleted: Bool)
}

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

/// Evaluates `evaluate` with tracking and watches `element` and every object it read.
///
/// When the evaluation read only the element: keeps `previous` if it is still live, or else
/// makes a lone watch when nothing else observes the element. Otherwise makes a new watch, listed
/// by every object read. With `endingPrevious` (the default), ends `previous` afterwards (after,
/// so that a write on another thread in between reaches one of them: at worst both, one more
/// re-evaluation); without it, the caller ends `previous` itself once it knows the new watch is
/// kept (with `end(of:sink:except:)`, sparing the new watch).
///
/// - Returns: The watch, or `nil` when `element` announced its deletion: it is not watched
///   (and `previous` is ended, with `endingPrevious`).
@usableFromInline
package func _watch<Root: ObservableModel>(
  _ element: Root, sink: _WatchSink, replacing previous: _WatchHandle?,
  endingPrevious: Bool = true, _ evaluate: () -> Void
) -> _WatchHandle? {
  let id = ObjectIdentifier(element)
  let others = _AccessRecorder.trackObjects(excluding: id, evaluate)
  if others.isEmpty {
    switch previous {
    case .full(let watch)?:
      if watch.isLive, watch.readsOnlyElement, !element.isDeleted { return previous }
    case .lone?:
      if element.observation.hasLoneWatch(sink, element: id) { return previous }
    case nil:
      break
    }
    if element.observation.beginLoneWatch(sink) {
      // A previous lone watch is over (checked above): only a listed one needs ending.
      if endingPrevious, case .full(let watch)? = previous { watch.deactivate() }
      return .lone
    }
  }
  let state = element.observation.state(of: element)
  let watch = _Watch(sink: sink, element: id, readsOnlyElement: others.isEmpty)
  guard state.add(watch) else {
    watch.deactivate()
    if endingPrevious { previous?.end(of: element, sink: sink) }
    return nil
  }
  for other in others {
    // An object that announced its deletion has nothing more to tell.
    _ = other.add(watch)
  }
  if endingPrevious { previous?.end(of: element, sink: sink, except: watch) }
  return .full(watch)
}

/// Whether evaluating `body` for `element` reads any `@Observed` property (of the element, or
/// of an object it reaches): a function that reads none can never change its result as far as
/// observation can tell.
@usableFromInline
package func _readsObservedProperty<Root: ObservableModel>(
  of element: Root, _ body: () -> Void
) -> Bool {
  _AccessRecorder.readsAnything(of: ObjectIdentifier(element), body)
}

/// Bit 0 of an `ObservationStorage` word: the word holds a lone watch's sink.
let _loneWatchTag: UInt = 1

/// The sink of the lone watch `word` (unmanaged: the word holds one reference).
func _loneWatchSink(_ word: UInt) -> Unmanaged<_WatchSink> {
  // A tagged word is a retained sink's address with bit 0 set: non-zero once cleared.
  Unmanaged.fromOpaque(UnsafeRawPointer(bitPattern: word & ~_loneWatchTag)!)
}

/// The locks that order taking a sink out of a lone watch word with releasing it (striped by
/// the sink's address: the elements of one controller share one). They guard no state of their
/// own; an `Int`, not `Void`, so that ThreadSanitizer sees each lock's accesses at an address
/// of its own (all empty tuples may share one).
private let _loneWatchLocks: [_Lock<Int>] = (0..<16).map { _ in _Lock(0) }

func _loneWatchLock(_ word: UInt) -> _Lock<Int> {
  _loneWatchLocks[Int(truncatingIfNeeded: (word >> 6) ^ (word >> 12)) & 15]
}

/// A property of `object`, which has a lone watch (or had, a moment ago), changed: tells the
/// watch's receiver, as one write; `false` if the object's word holds no lone watch any more.
@inline(never)
func _loneWatchFired<Root: ObservableModel>(_ object: Root) -> Bool {
  guard let sink = object.observation.loneWatchSink() else { return false }
  _notifyingWrite {
    sink.fire(ObjectIdentifier(object), elementDeleted: false)
  }
  return true
}

extension ObservationStorage {
  /// Makes `sink`'s lone watch of the object, if nothing observes the object yet.
  func beginLoneWatch(_ sink: _WatchSink) -> Bool {
    let retained = Unmanaged.passRetained(sink)
    let word = UInt(bitPattern: retained.toOpaque()) | _loneWatchTag
    if _state.compareExchange(expected: 0, desired: word, ordering: .acquiringAndReleasing)
      .exchanged
    {
      return true
    }
    retained.release()
    return false
  }

  /// The sink of the object's lone watch, retained, if it has one.
  func loneWatchSink() -> _WatchSink? {
    let word = _state.load(ordering: .acquiring)
    guard word & _loneWatchTag != 0 else { return nil }
    return _loneWatchLock(word).withLock { _ in
      guard _state.load(ordering: .acquiring) == word else { return nil }
      return _loneWatchSink(word).takeUnretainedValue()
    }
  }

  /// Whether the object has a live lone watch of `sink`, in its word or taken over by its state.
  func hasLoneWatch(_ sink: _WatchSink, element: ObjectIdentifier) -> Bool {
    let word = _state.load(ordering: .acquiring)
    if word & _loneWatchTag != 0 {
      return _loneWatchSink(word).toOpaque() == Unmanaged.passUnretained(sink).toOpaque()
    }
    return existing?.loneWatch(of: sink, element: element, except: nil) != nil
  }

  /// Ends `sink`'s lone watch of the object, in its word or taken over by its state (sparing
  /// `except`, the watch replacing it).
  func endLoneWatch(_ sink: _WatchSink, element: ObjectIdentifier, _ except: _Watch?) {
    let sinkAddress = Unmanaged.passUnretained(sink).toOpaque()
    while true {
      let word = _state.load(ordering: .acquiring)
      guard word & _loneWatchTag != 0 else {
        existing?.loneWatch(of: sink, element: element, except: except)?.deactivate()
        return
      }
      guard _loneWatchSink(word).toOpaque() == sinkAddress else { return }
      let ended = _loneWatchLock(word).withLock { _ in
        _state.compareExchange(expected: word, desired: 0, ordering: .acquiringAndReleasing)
          .exchanged
      }
      if ended {
        _loneWatchSink(word).release()
        return
      }
      // Taken over by a state meanwhile: end it there.
    }
  }
}
