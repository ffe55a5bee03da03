import Synchronization

// An object's observation word (`ObservationStorage._state`): the one place where Binding
// stores a reference in an integer with a tag in it.
//
// The word is one of:
// - 0: nothing observes the object;
// - the address of the object's `_ModelState`, retained once by the word;
// - while one relation controller alone watches the object as an element whose evaluation read
//   nothing else (a lone watch), the address of that controller's `_WatchSink`, retained once
//   by the word, with bit 0 set (`_loneWatchTag`), so that no state is allocated for it.
//
// Invariants: bit 0 of an object's address is always clear (objects are at least 16-byte
// aligned), so the tag never hides an address bit, and no other bit is touched: an address is
// stored and loaded whole, whatever the platform puts in its top bits. The word changes from 0
// to a state or a lone watch by compare-and-exchange, from a lone watch to a state by a store
// under the lone watch's lock after checking the word is unchanged (`_promoteLoneWatch`), and
// from a lone watch back to 0 by compare-and-exchange under that lock (`endLoneWatch`); a
// state stays until the object dies. Its reference is released exactly once: by the object's `deinit`
// (`_objectDidDie(word:)`), or by whoever takes a lone watch out of the word.
// `StateWordTests` and `WatchTests` check the transitions.

/// Bit 0 of an `ObservationStorage` word: the word holds a lone watch's sink.
let _loneWatchTag: UInt = 1

/// The state that `word` holds, if it holds one (not 0, not a lone watch); unretained, alive
/// as long as the object whose word it is.
@inline(__always)
func _modelState(inWord word: UInt) -> _Unretained<_ModelState>? {
  guard word & _loneWatchTag == 0, word != 0 else { return nil }
  return _Unretained(address: word)
}

/// Ends what the word of an object that is being destroyed holds.
func _objectDidDie(word: UInt) {
  if word & _loneWatchTag != 0 {
    // Nothing else can touch the word of an object being destroyed: a controller holds its
    // elements strongly, and ends their lone watches before releasing them.
    _loneWatchSink(word).release()
    return
  }
  guard word != 0 else { return }
  let state = _Retained<_ModelState>(address: word)
  state.with { $0.objectDidDie() }
  state.release()
}

extension ObservationStorage {
  /// The state, if something has observed the object (a lone watch has none).
  var existing: _ModelState? {
    _modelState(inWord: _state.load(ordering: .acquiring))?.object
  }

  /// The state of `owner` (the object holding this storage), created on first use
  /// (thread-safe: concurrent creators agree on one). A lone watch moves into the new state.
  func state(of owner: AnyObject) -> _ModelState {
    while true {
      if let existing { return existing }
      let word = _state.load(ordering: .acquiring)
      let created = _ModelState()
      if word & _loneWatchTag != 0 {
        if _promoteLoneWatch(word, into: created, owner: owner) { return created }
        continue
      }
      let retained = _Retained(created)
      if _state.compareExchange(
        expected: 0, desired: retained.address, ordering: .acquiringAndReleasing
      ).exchanged {
        return created
      }
      // Another thread stored a state or a lone watch first: use or promote it.
      retained.release()
    }
  }

  /// Replaces the lone watch `word` with `state`, which takes it over as a watch; `false` if
  /// the word changed meanwhile.
  private func _promoteLoneWatch(_ word: UInt, into state: _ModelState, owner: AnyObject) -> Bool {
    _loneWatchLock(word).withLock { _ in
      guard _state.load(ordering: .acquiring) == word else { return false }
      // The word's reference to the sink moves into the watch.
      let sink = _loneWatchSink(word).take()
      let watch = _Watch(sink: sink, element: ObjectIdentifier(owner), readsOnlyElement: true)
      // Not shared yet: it cannot be deleted, so the watch is added.
      _ = state.add(watch)
      _state.store(_Retained(state).address, ordering: .releasing)
      return true
    }
  }
}

/// The sink of the lone watch `word`: the word's reference.
func _loneWatchSink(_ word: UInt) -> _Retained<_WatchSink> {
  _Retained(address: word & ~_loneWatchTag)
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
    let retained = _Retained(sink)
    let word = retained.address | _loneWatchTag
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
      return _loneWatchSink(word).object
    }
  }

  /// Whether the object has a live lone watch of `sink`, in its word or taken over by its state.
  func hasLoneWatch(_ sink: _WatchSink, element: ObjectIdentifier) -> Bool {
    let word = _state.load(ordering: .acquiring)
    if word & _loneWatchTag != 0 {
      return _loneWatchSink(word).unretained.isSame(as: _Unretained(sink))
    }
    return existing?.loneWatch(of: sink, element: element, except: nil) != nil
  }

  /// Ends `sink`'s lone watch of the object, in its word or taken over by its state (sparing
  /// `except`, the watch replacing it).
  func endLoneWatch(_ sink: _WatchSink, element: ObjectIdentifier, _ except: _Watch?) {
    let sinkAddress = _Unretained(sink).address
    while true {
      let word = _state.load(ordering: .acquiring)
      guard word & _loneWatchTag != 0 else {
        existing?.loneWatch(of: sink, element: element, except: except)?.deactivate()
        return
      }
      guard _loneWatchSink(word).address == sinkAddress else { return }
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
