import Binding

// Folding events (the drainer's first step of a transaction): relation events update the
// members and their order labels, element events mark elements touched, a reconfiguration
// re-watches every member. Nothing is placed here; the transaction places every touched
// element (RelationController+Transaction.swift). Runs on the drainer only: it reads the
// shared state without the lock and writes it with the lock held, and calls user functions
// (through `_watch`) with no lock held.

extension RelationController {
  /// Folds `event` into the transaction under way.
  ///
  /// - Returns: Whether it was an element's event that touched its element. Only such a fold
  ///   is known to have run no user code and queued nothing, and the transaction then holds the
  ///   element, so releasing the event runs no deinit either (see `_drainQueue`).
  @inlinable
  @discardableResult
  func _fold(_ event: _Event) -> Bool {
    switch event {
    case .element(let element, let fingerprint):
      // Re-watched already (see `_rewatch`); placed when the transaction runs, and its observed
      // attributes compared then (see `_transaction`).
      let id = ObjectIdentifier(element)
      guard _lock.withLock({ $0.members.glance(id)?.deleted == false }) else { return false }
      // What the transaction reads first of the element's place (only the drainer writes the
      // index, so it reads it without the lock).
      _state.index.prefetchPlace(of: id)
      _work.latestFingerprints[id] = fingerprint
      _touch(element)
      return true
    case .deleted(let id):
      // The member may be marked deleted already (by a re-watch that found it deleted).
      let deleted = _write { state -> (Element, _WatchHandle?)? in
        guard let member = state.members[id] else { return nil }
        state.members.update(id) {
          $0?.watch = nil  // deleted from now on
          // A re-watch under way is overtaken: it ends only the watch it made.
          $0?.mark.overtake()
        }
        return (_element(member), member.watch)
      }
      guard let (element, watch) = deleted else { return false }
      watch?.end(of: element, sink: _sink)
      _touch(element)
    case .ownerGone:
      // The content stays; only the observation of the elements ends. A re-watch under way is
      // overtaken (its claim no longer matches), so it installs nothing and reports nothing.
      let members = _write { state in
        let members = state.members.values
        for member in members {
          let id = ObjectIdentifier(member.object)
          state.members.update(id) { $0?.mark.overtake() }
        }
        return members
      }
      for member in members { member.watch?.end(of: _element(member), sink: _sink) }
      // Nothing more is reported, not even what was folded but not yet committed.
      _work.removeAllTouches()
      _work.latestFingerprints = [:]
      _work.namesBeforeReconfiguration = nil
    case .ownerDeleted:
      for id in _write({ $0.members.keys }) { _leave(id) }
      _work.lastArrayCount = 0
      _work.lastArrayBase = nil
      _work.lastSetCount = 0
      _work.duplicates = 0
    case .relation(.array(let array), let hint):
      if hint == nil || !_applyArrayHint(hint.unsafelyUnwrapped, array) {
        _diffArray(array)
      }
      _work.lastArrayCount = array.count
      _work.lastArrayBase = _bufferIdentity(array)
    case .relation(.unordered(let set), let hint):
      if hint == nil || !_applySetHint(hint.unsafelyUnwrapped, set) {
        _diffSet(set)
      }
      _work.lastSetCount = set.count
    case .reconfigure(let config):
      if _work.namesBeforeReconfiguration == nil {
        _work.namesBeforeReconfiguration = _state.config.sectionName
      }
      // The old configuration's closures are released after the lock (their captures'
      // deinitialisers are user code).
      _ = _write { state in
        defer {
          state.config = config
          // The touched elements are all detached before any is placed with the new keys.
          state.index.keys = config.makeKeys()
        }
        return state.config
      }
      _comparator.compare = config.compare
      // Fingerprints of the old configuration's attributes compare with nothing now.
      _work.latestFingerprints = [:]
      _work.entered = []
      _work.checksEntering = config.isUndecided(_write { $0.members.values.map(_element) })
      for member in _write({ $0.members.values }) {
        let element = _element(member)
        let id = ObjectIdentifier(element)
        // With the new configuration (read under the lock). `nil`: deleted, or another thread
        // is re-watching it, and re-watches again with the new configuration and reports it.
        if let rewatched = _rewatch(id, commit: .setsBaseline) {
          // Another thread's write came in meanwhile and reported through this re-watch.
          _touch(element, changed: rewatched.firedMeanwhile)
        } else {
          _touch(element)
        }
      }
    }
    return false
  }

  /// The member `id`, read under the lock (writers re-watching an element change its watch).
  @inlinable
  func _member(_ id: ObjectIdentifier) -> _RelationMember? {
    _lock.withLock { $0.members[id] }
  }

  /// Marks `element` for the transaction (with `changed`, its observed attributes changed;
  /// `distinct`: the caller knows it is not marked yet, so it is not looked up).
  @inlinable
  func _touch(_ element: Element, changed: Bool = false, distinct: Bool = false) {
    if distinct {
      _work.touchDistinct(element)
    } else {
      _work.touch(element, changed: changed)
    }
  }

  /// Lists `element` as a member with `label`, watches it and touches it (`distinctTouch`:
  /// the caller knows it is not touched yet).
  @inlinable
  func _enter(
    _ element: Element, label: UInt64, occurrences: Int = 1, distinctTouch: Bool = false
  ) {
    let id = ObjectIdentifier(element)
    // The member is listed first, claimed by this re-watch, so that a write landing while its
    // watch is made is followed (it marks the claim) instead of finding no member. A new
    // member's claims start far from any earlier member's, so a stale re-watch of an element
    // that left and came back cannot take them for its own.
    _work.claimSeed &+= 4_099
    var member = _RelationMember(
      object: element, label: label, occurrences: occurrences, watch: nil, fingerprint: 0)
    member.mark = .entering(seed: _work.claimSeed)
    let claim = _write { state in
      state.members[id] = member
      return _RewatchClaim(
        id: id, element: element, watch: nil, config: state.config,
        generation: member.mark.generation)
    }
    // An element that announced its deletion gets no watch, and is a deleted member.
    _ = _rewatch(claim, commit: .setsBaseline)
    _touch(element, distinct: distinctTouch)
    if _work.checksEntering { _work.entered.append(element) }
  }

  /// Removes the member `id`, ends its watch and touches its element (`distinctTouch`: the
  /// caller knows it is not touched yet, as `_enter` does).
  @inlinable
  func _leave(_ id: ObjectIdentifier, distinctTouch: Bool = false) {
    guard let member = _write({ $0.members.removeValue(forKey: id) }) else { return }
    member.watch?.end(of: _element(member), sink: _sink)
    _touch(_element(member), distinct: distinctTouch)
  }

  @inlinable
  func _setLabel(_ label: UInt64, of id: ObjectIdentifier) {
    _write { state in
      state.members.update(id) { $0?.label = label }
      state.index.setSequence(id, to: label)
    }
  }

  @inlinable
  func _labelOf(_ element: Element) -> UInt64 {
    _member(ObjectIdentifier(element))?.label ?? 0
  }

  // MARK: Arrays

  /// Diffs a whole new array by identity: O(n) for an array whose retained elements kept their
  /// relative order (1% churn: elements removed and inserted), O(n log n) otherwise (an
  /// increasing-subsequence pass keeps the elements whose relative order did not change
  /// untouched). Only elements that enter, leave or move are touched.
  @inlinable
  func _diffArray(_ array: [Element]) {
    // The identities, read as the references' bits: a loop over generic elements would
    // retain and release each one.
    // Safe: `Element` is a class, so each element is one object reference, whose bits are its
    // `ObjectIdentifier`'s.
    precondition(MemoryLayout<Element>.stride == MemoryLayout<UInt>.stride)
    let ids = array.withUnsafeBytes { bytes in
      [ObjectIdentifier](_uninitializedCount: array.count) { ids, count in
        for offset in 0..<array.count {
          let bits = bytes.load(fromByteOffset: offset * MemoryLayout<UInt>.stride, as: UInt.self)
          ids.initializeElement(at: offset, to: unsafeBitCast(bits, to: ObjectIdentifier.self))
        }
        count = array.count
      }
    }
    // One pass under the lock: no user code runs in it.
    let recount = _write { state in
      // A sixteenth more, so that the first appends after a whole array do not grow the
      // table at once (a growth copies every member).
      state.members.reserveCapacity(ids.count + ids.count / 16)
      return state.members.recount(ids)
    }
    // The elements this diff touches are distinct (those leaving are not in the array, the
    // others are in it once), so when nothing was touched before, none needs looking up.
    let distinct = _work.dirty.isEmpty
    for id in recount.leaving { _leave(id, distinctTouch: distinct) }
    let firstOccurrences = recount.firstOccurrences
    // Room for the elements this diff touches at most (the first array: all of them).
    let entering = recount.labels.reduce(0) { $0 + ($1 == .max ? 1 : 0) }
    _work.dirty.reserveCapacity(_work.dirty.count + entering)
    // Retained elements whose order relative to the others changed are touched; the others
    // keep their relative order, so their new labels keep the index valid.
    // Written through buffers: appending checked each array's uniqueness at every element.
    // Safe: `entering` counts the `.max` labels, so `retainedCount` is exactly the number of
    // labels the loop writes.
    let retainedCount = recount.labels.count - entering
    var labels: [UInt64] = []
    let retained = [Int](_uninitializedCount: retainedCount) { retained, count in
      labels = [UInt64](_uninitializedCount: retainedCount) { labels, labelCount in
        for (k, label) in recount.labels.enumerated() where label != .max {
          retained.initializeElement(at: count, to: k)
          labels.initializeElement(at: count, to: label)
          count += 1
        }
        labelCount = count
      }
    }
    let keep = _longestIncreasingSubsequence(labels)
    for (k, offset) in retained.enumerated() where !keep[k] {
      _touch(array[firstOccurrences[offset]], distinct: distinct)
    }
    _work.duplicates = array.count - firstOccurrences.count
    func enter(_ k: Int, label: UInt64) {
      let element = array[firstOccurrences[k]]
      _enter(
        element, label: label,
        occurrences: recount.newDuplicates[ObjectIdentifier(element)] ?? 1,
        distinctTouch: distinct)
    }
    // The kept elements keep their labels; the others get labels between their kept
    // neighbours', when there is room (O(changes) index work instead of relabeling all).
    if let placed = _OrderLabels.between(
      kept: keep, retained: retained, labels: labels, count: firstOccurrences.count)
    {
      for (k, label) in placed {
        if recount.labels[k] != .max {
          _setLabel(label, of: ids[firstOccurrences[k]])
        } else {
          enter(k, label: label)
        }
      }
      return
    }
    for k in firstOccurrences.indices {
      let label = _OrderLabels.evenlySpaced(k, of: firstOccurrences.count)
      if recount.labels[k] != .max {
        _setLabel(label, of: ids[firstOccurrences[k]])
      } else {
        enter(k, label: label)
      }
    }
  }

  /// Applies a fine-grained edit in O(log n) (amortized, with relabeling); `false` when the
  /// change heard is not exactly that edit (then the caller diffs).
  @inlinable
  func _applyArrayHint(_ hint: _RelationHint, _ array: [Element]) -> Bool {
    let work = _work
    guard work.duplicates == 0, hint.oldCount == work.lastArrayCount,
      hint.newCount == array.count, hint.oldBase == work.lastArrayBase,
      hint.newBase == _bufferIdentity(array)
    else { return false }
    switch hint.edit {
    case .insert(let object, let index):
      let id = ObjectIdentifier(object)
      guard array[index] === object, _member(id) == nil else { return false }
      _enter(array[index], label: _label(at: index, in: array))
    case .remove(let object, _):
      let id = ObjectIdentifier(object)
      guard let member = _member(id), member.occurrences == 1 else { return false }
      _leave(id)
    case .replace(let index, let old, let new):
      guard array[index] === new else { return false }
      if old === new { return true }
      let oldID = ObjectIdentifier(old)
      guard let member = _member(oldID), member.occurrences == 1,
        _member(ObjectIdentifier(new)) == nil
      else { return false }
      _leave(oldID)
      _enter(array[index], label: member.label)
    case .move(let object, let from, let to):
      let id = ObjectIdentifier(object)
      guard array[to] === object, let member = _member(id) else { return false }
      if from == to { return true }
      _setLabel(_label(at: to, in: array), of: id)
      _touch(_element(member))
    case .setInsert, .setRemove:
      return false
    }
    return true
  }

  /// A label for the element at `index` of `array` between its neighbours' labels, relabeling
  /// a window around it when they leave no room.
  @inlinable
  func _label(at index: Int, in array: [Element]) -> UInt64 {
    let labels = _OrderLabels.Neighbourhood(count: array.count) { self._labelOf(array[$0]) }
    if let label = labels.between(around: index) { return label }
    let (label, relabeled) = labels.relabel(around: index)
    for (offset, label) in relabeled { _setLabel(label, of: ObjectIdentifier(array[offset])) }
    return label
  }

  // MARK: Sets

  @inlinable
  func _diffSet(_ set: _SetValue<Element>) {
    let elements = set.elements()
    var present = Set<ObjectIdentifier>(minimumCapacity: elements.count)
    for element in elements {
      let id = ObjectIdentifier(element)
      present.insert(id)
      if _member(id) == nil {
        _enter(element, label: _work.nextSequence)
        _work.nextSequence += 1
      }
    }
    let leaving = _write({ $0.members.keys }).filter { !present.contains($0) }
    for id in leaving { _leave(id) }
  }

  @inlinable
  func _applySetHint(_ hint: _RelationHint, _ set: _SetValue<Element>) -> Bool {
    guard hint.oldCount == _work.lastSetCount, hint.newCount == set.count else { return false }
    switch hint.edit {
    case .setInsert(let object):
      // The hint is for this relation, whose elements are `Element`.
      let element = unsafeDowncast(object, to: Element.self)
      guard set.member(element) === object, _member(ObjectIdentifier(object)) == nil
      else { return false }
      _enter(element, label: _work.nextSequence)
      _work.nextSequence += 1
    case .setRemove(let object):
      let id = ObjectIdentifier(object)
      guard let member = _member(id), set.member(_element(member)) !== object else {
        return false
      }
      _leave(id)
    default:
      return false
    }
    return true
  }
}
