import Binding
import Dispatch
import Foundation

// How a relation controller turns observations into change sets.
//
// Every observation (the relation, each element, the transaction trigger) is synchronous: it
// runs on the thread that made the change and only appends an event to the controller's queue.
// Events are folded, in order, by one drainer at a time (on the delivery context): relation
// events update the members (and their order labels), element events mark elements dirty, and
// a commit turns the dirty elements into one change set through the engine, which the drainer
// then delivers outside the lock before it folds the next transaction's events. Events that
// arrive while a change set is being delivered wait in the queue, so the content a receiver
// reads is always the content of the change set it was handed.
//
// Transactions: the first event after a commit "arms" the trigger by writing a private
// `@Observed` value that the controller observes with `.coalesced`. Outside `coalesce` its
// observation runs at once (one change, one change set); inside, at the end of the outermost
// block, after every change of the block has queued its event (one block, one change set).

/// Where a controller's deliveries run.
enum _Route {
  case synchronous
  case mainActor
  case queue(DispatchQueue)

  init(_ delivery: RelationDelivery, isolation: (any Actor)?) {
    switch delivery.kind {
    case .synchronous: self = .synchronous
    case .mainActor: self = .mainActor
    case .queue(let queue): self = .queue(queue)
    case .automatic:
      if let isolation, isolation === MainActor.shared {
        self = .mainActor
      } else {
        self = .synchronous
      }
    }
  }
}

/// A value of the relation, as the relation's observation heard it.
enum _RelationValue<Element: AnyObject> {
  case array([Element])
  case unordered(_SetValue<Element>)

  static func set(_ set: Set<Element>) -> _RelationValue where Element: Hashable {
    .unordered(
      _SetValue(
        count: set.count, elements: { Array(set) },
        member: { element in set.firstIndex(of: element).map { set[$0] } }))
  }

  func elements() -> [Element] {
    switch self {
    case .array(let array): array
    case .unordered(let set): set.elements()
    }
  }
}

/// A set relation's value with its `Hashable` element type erased.
struct _SetValue<Element: AnyObject> {
  let count: Int
  let elements: () -> [Element]
  /// The member equal to an element, if any.
  let member: (Element) -> Element?
}

extension RelationController {
  /// One observed event, in the order it happened.
  enum _Event {
    case relation(_RelationValue<Element>, hint: _RelationHint?)
    /// Something the element's functions read changed; `fingerprint` is its observed
    /// attributes' fingerprint just after the change (read on the writing thread).
    case element(ObjectIdentifier, fingerprint: Int)
    case deleted(ObjectIdentifier)
    case ownerDeleted
    case reconfigure(_Config<Element, SectionKey>)
    case commit
  }

  typealias _Member = _RelationMember

  /// The element of a member (members only ever hold `Element`s).
  @inline(__always)
  func _element(_ member: _Member) -> Element {
    unsafeDowncast(member.object, to: Element.self)
  }

  /// A change set with what receivers need besides it.
  struct _Delivery {
    let changes: RelationChangeSet<Element>
    let deletedSectionKeys: [SectionKey]
    let insertedSectionKeys: [SectionKey]
    let sectionName: (SectionKey) -> String
  }

  /// Everything behind the controller's lock (a class, so that the index can be mutated while
  /// closures read the members).
  final class _State {
    var index: _OrderedIndex<Element, SectionKey>
    var config: _Config<Element, SectionKey>
    var members = _MemberTable()
    /// Extra occurrences in the array (an element held twice counts once here).
    var duplicates = 0
    /// The count and buffer identity of the array heard last (not the array itself: holding
    /// it would make every in-place edit of the relation copy it).
    var lastArrayCount = 0
    var lastArrayBase: UnsafeRawPointer?
    var lastSetCount = 0
    var nextSequence: UInt64 = 1
    var queue: [_Event] = []
    var eventsSinceCommit = 0
    var draining = false
    var scheduled = false
    var armed = false
    var writingTrigger = false
    var triggerFired = false
    /// The section names before the first reconfiguration of the pending transaction, if it
    /// has one (to report the sections it renamed).
    var namesBeforeReconfiguration: ((SectionKey) -> String)?
    var dirtyIndex: [ObjectIdentifier: Int] = [:]
    var dirty: [(element: Element, changedAttributes: Bool)] = []
    /// The observed attributes' fingerprint after the last change of each element changed in
    /// this transaction, compared with the member's when the transaction runs.
    var latestFingerprints: [ObjectIdentifier: Int] = [:]
    weak var delegate: (any RelationControllerDelegate<Owner, Element, SectionKey>)?
    var handlers: [(id: UInt64, call: (RelationChangeSet<Element>) -> Void)] = []
    var streams: [UInt64: AsyncStream<_Transfer<RelationChangeSet<Element>>>.Continuation] = [:]
    var nextHandlerID: UInt64 = 0

    init(index: _OrderedIndex<Element, SectionKey>, config: _Config<Element, SectionKey>) {
      self.index = index
      self.config = config
    }
  }
}

// MARK: - Events in

extension RelationController {
  /// Queues an event; arms the transaction trigger for the first event after a commit.
  func _enqueue(_ event: _Event, commit: Bool = false) {
    let arm = _lock.withLock { state in _append(event, commit: commit, state) }
    _afterAppend(arming: arm, commit: commit)
  }

  /// Appends an event under the lock; returns whether the caller must arm the trigger.
  func _append(_ event: _Event, commit: Bool, _ state: _State) -> Bool {
    state.queue.append(event)
    if commit {
      state.queue.append(.commit)
      state.eventsSinceCommit = 0
      return false
    }
    state.eventsSinceCommit += 1
    guard !state.armed else { return false }
    state.armed = true
    state.writingTrigger = true
    return true
  }

  /// What follows an append, outside the lock: arming the trigger, or draining a commit.
  func _afterAppend(arming arm: Bool, commit: Bool) {
    if arm {
      _armTrigger()
    } else if commit {
      _requestDrain()
    }
  }

  /// Writes the trigger (only the thread that armed it writes, so writes never overlap).
  func _armTrigger() {
    while true {
      _trigger.generation &+= 1
      let again = _lock.withLock { state -> Bool in
        state.writingTrigger = false
        // Not fired: deferred to the end of the open coalesced block, which disarms it.
        guard state.triggerFired else { return false }
        state.triggerFired = false
        if state.eventsSinceCommit > 0 {
          // Another thread queued events during the write, relying on this trigger.
          state.writingTrigger = true
          return true
        }
        state.armed = false
        return false
      }
      if !again { break }
    }
    _requestDrain()
  }

  /// The trigger's coalesced observation: the transaction ends here.
  func _triggerFired() {
    let drain = _lock.withLock { state -> Bool in
      state.queue.append(.commit)
      state.eventsSinceCommit = 0
      if state.writingTrigger {
        state.triggerFired = true
        return false
      }
      state.armed = false
      return true
    }
    if drain { _requestDrain() }
  }

  /// Watches what the configuration reads of `element` (and its deletion), replacing
  /// `previous`; returns the watch (`nil` if the element announced its deletion) and the
  /// fingerprint of its observed attributes.
  func _watch(
    _ element: Element, replacing previous: _WatchHandle?, _ state: _State
  ) -> (watch: _WatchHandle?, fingerprint: Int) {
    var fingerprint = 0
    let config = state.config
    let watch = Binding._watch(element, sink: _sink, replacing: previous) {
      fingerprint = config.readInputs(element)
    }
    return (watch, fingerprint)
  }
}

extension RelationController: _WatchReceiver {
  /// Something an element's functions read changed, or the element was deleted.
  ///
  /// Runs on the writing thread, right after the write, as key-path observation does: the
  /// element is re-evaluated and re-watched here (following a replaced label or new tracks),
  /// and its observed attributes are read here, by the thread that changed them, not by
  /// whichever thread later drains the events.
  package func _watchFired(_ id: ObjectIdentifier, elementDeleted: Bool) {
    if elementDeleted {
      _enqueue(.deleted(id))
      return
    }
    // One lock: re-watch, then queue the event.
    let arm = _lock.withLock { state -> Bool? in
      guard var member = state.members[id], !member.deleted else { return nil }
      let previous = member.watch
      let (watch, fingerprint) = _watch(_element(member), replacing: previous, state)
      guard let watch else {
        // It announced its deletion meanwhile; that deletion may not tell us (it can run
        // between ending the previous watch and adding the new one, and then finds no live
        // watch).
        return _append(.deleted(id), commit: false, state)
      }
      if !watch.isSame(as: previous) {
        member.watch = watch
        state.members[id] = member
      }
      return _append(.element(id, fingerprint: fingerprint), commit: false, state)
    }
    // `nil`: not (or no longer) a member, nothing to tell.
    if let arm { _afterAppend(arming: arm, commit: false) }
  }
}

// MARK: - Draining

extension RelationController {
  func _requestDrain() {
    let action = _lock.withLock { state -> _DrainAction in
      guard !state.draining, !state.scheduled, !state.queue.isEmpty else { return .none }
      switch _route {
      case .synchronous:
        state.draining = true
        return .now
      case .mainActor:
        if _isOnMainQueue() {
          state.draining = true
          return .now
        }
        state.scheduled = true
        return .main
      case .queue(let queue):
        state.scheduled = true
        return .queue(queue)
      }
    }
    switch action {
    case .none: break
    case .now: _drain()
    case .main: _schedule(self, on: .main)
    case .queue(let queue): _schedule(self, on: queue)
    }
  }

  func _scheduledDrain() {
    let start = _lock.withLock { state -> Bool in
      state.scheduled = false
      guard !state.draining else { return false }
      state.draining = true
      return true
    }
    if start { _drain() }
  }

  /// Folds queued events and delivers change sets until the queue is empty.
  func _drain() {
    while true {
      let step = _lock.withLock { state -> _DrainStep in
        if state.queue.isEmpty {
          state.draining = false
          return .done
        }
        // One transaction at a time: the events up to the first commit.
        var commit = false
        var taken = 0
        for event in state.queue {
          taken += 1
          if case .commit = event {
            commit = true
            break
          }
          _fold(event, into: state)
        }
        state.queue.removeFirst(taken)
        if commit {
          // Elements whose events are still queued may already have new keys: move them now
          // (their own transaction then finds them in place), so that no comparison reads a
          // key that disagrees with the element's place in the index.
          for case .element(let id, _) in state.queue {
            if let member = state.members[id], !member.deleted {
              _touch(_element(member), state)
            }
          }
        }
        guard commit, let delivery = _transaction(state) else { return .again }
        return .deliver(delivery)
      }
      switch step {
      case .done: return
      case .again: continue
      case .deliver(let delivery): _deliver(delivery)
      }
    }
  }

  /// Runs the transaction over the dirty elements.
  func _transaction(_ state: _State) -> _Delivery? {
    let namesBefore = state.namesBeforeReconfiguration
    state.namesBeforeReconfiguration = nil
    guard !state.dirty.isEmpty || namesBefore != nil else { return nil }
    _healAroundTouched(state)
    // An observed attribute changed if its fingerprint after the transaction's last change of
    // the element differs from the one at the previous comparison. Only elements changed in
    // this transaction are compared (others may be here because a later transaction moved
    // them: that one reports their attributes).
    for (id, fingerprint) in state.latestFingerprints {
      guard let slot = state.dirtyIndex[id], let member = state.members[id], !member.deleted,
        fingerprint != member.fingerprint
      else { continue }
      state.dirty[slot].changedAttributes = true
      state.members[id]?.fingerprint = fingerprint
    }
    state.latestFingerprints = [:]
    let touched = state.dirty
    state.dirty = []
    state.dirtyIndex = [:]
    let oldKeys = state.index.sectionKeys
    let config = state.config
    let changes = state.index.applyTransaction(touching: touched) { element in
      guard let member = state.members[ObjectIdentifier(element)], !member.deleted,
        config.includes(element)
      else { return nil }
      return (config.sectionedBy(element), member.label)
    }
    guard var changes = changes ?? (namesBefore == nil ? nil : ChangeSet()) else { return nil }
    // The new keys only when needed: O(sections), on a path that is otherwise O(log n).
    let newKeys =
      changes.insertedSections.isEmpty && namesBefore == nil ? [] : state.index.sectionKeys
    if let namesBefore {
      for (index, key) in newKeys.enumerated()
      where !changes.insertedSections.contains(index) && namesBefore(key) != config.sectionName(key)
      {
        changes.renamedSections.insert(index)
      }
      if changes.isEmpty { return nil }
    }
    return _Delivery(
      changes: changes,
      deletedSectionKeys: changes.deletedSections.map { oldKeys[$0] },
      insertedSectionKeys: changes.insertedSections.map { newKeys[$0] },
      sectionName: config.sectionName)
  }
}

// MARK: - Stale neighbours

extension RelationController {
  /// Touches the untouched elements around each touched one that are out of order.
  ///
  /// One write of a shared object (a label that several albums sort by) notifies the elements
  /// that read it one after the other, and each notification is a transaction: while the first
  /// is placed, the others already have their new keys but not yet their new places. A
  /// comparison with such a stale element can put the placed element on the wrong side of it;
  /// the misplacement is always next to the stale element, so when the stale element's own
  /// transaction removes it, the elements on either side of the gap it leaves are compared and
  /// moved too while they are out of order.
  func _healAroundTouched(_ state: _State) {
    var scanned = 0
    while scanned < state.dirty.count {
      let element = state.dirty[scanned].element
      scanned += 1
      guard let position = state.index.position(of: ObjectIdentifier(element)) else { continue }
      let section = position.section
      let rows = state.index.count(inSection: section)
      func isTouched(_ row: Int) -> Bool {
        state.dirtyIndex[ObjectIdentifier(state.index.element(atSection: section, row: row))]
          != nil
      }
      var left = position.row - 1
      var right = position.row + 1
      while left >= 0 && isTouched(left) { left -= 1 }
      while right < rows && isTouched(right) { right += 1 }
      while left >= 0 && right < rows {
        let before = state.index.element(atSection: section, row: left)
        let after = state.index.element(atSection: section, row: right)
        guard _ordersAfter(before, after, state) else { break }
        _touch(before, state)
        _touch(after, state)
        while left >= 0 && isTouched(left) { left -= 1 }
        while right < rows && isTouched(right) { right += 1 }
      }
    }
  }

  /// Whether `a` belongs after `b` by the live sort keys and relation order.
  func _ordersAfter(_ a: Element, _ b: Element, _ state: _State) -> Bool {
    switch state.config.compare(a, b) {
    case .orderedDescending: return true
    case .orderedAscending: return false
    case .orderedSame:
      return _labelOf(a, state) > _labelOf(b, state)
    }
  }
}

// MARK: - Folding events

extension RelationController {
  func _fold(_ event: _Event, into state: _State) {
    switch event {
    case .element(let id, let fingerprint):
      // Already re-watched by `_watchFired`; placed when the transaction runs, and its observed
      // attributes compared then (see `_transaction`).
      guard let member = state.members[id], !member.deleted else { return }
      state.latestFingerprints[id] = fingerprint
      _touch(_element(member), state)
    case .deleted(let id):
      guard var member = state.members[id], !member.deleted else { return }
      member.watch?.end(of: _element(member), sink: _sink)
      member.watch = nil  // deleted from now on
      state.members[id] = member
      _touch(_element(member), state)
    case .ownerDeleted:
      for id in Array(state.members.keys) { _leave(id, state) }
      state.lastArrayCount = 0
      state.lastArrayBase = nil
      state.lastSetCount = 0
      state.duplicates = 0
    case .relation(.array(let array), let hint):
      if hint == nil || !_applyArrayHint(hint.unsafelyUnwrapped, array, state) {
        _diffArray(array, state)
      }
      state.lastArrayCount = array.count
      state.lastArrayBase = _bufferIdentity(array)
    case .relation(.unordered(let set), let hint):
      if hint == nil || !_applySetHint(hint.unsafelyUnwrapped, set, state) {
        _diffSet(set, state)
      }
      state.lastSetCount = set.count
    case .reconfigure(let config):
      if state.namesBeforeReconfiguration == nil {
        state.namesBeforeReconfiguration = state.config.sectionName
      }
      state.config = config
      // Fingerprints of the old configuration's attributes compare with nothing now.
      state.latestFingerprints = [:]
      _comparator.compare = config.compare
      for (id, member) in state.members {
        if !member.deleted {
          var member = member
          // No watch: deleted meanwhile (see `_watchFired`), and so a deleted member now.
          (member.watch, member.fingerprint) = _watch(
            _element(member), replacing: member.watch, state)
          state.members[id] = member
        }
        _touch(_element(member), state)
      }
    case .commit:
      break
    }
  }

  func _touch(_ element: Element, _ state: _State) {
    let id = ObjectIdentifier(element)
    guard state.dirtyIndex[id] == nil else { return }
    state.dirtyIndex[id] = state.dirty.count
    state.dirty.append((element, false))
  }

  func _enter(_ element: Element, label: UInt64, occurrences: Int = 1, _ state: _State) {
    // An element that announced its deletion gets no watch, and is a deleted member.
    let (watch, fingerprint) = _watch(element, replacing: nil, state)
    state.members[ObjectIdentifier(element)] = _Member(
      object: element, label: label, occurrences: occurrences, watch: watch,
      fingerprint: fingerprint)
    _touch(element, state)
  }

  func _leave(_ id: ObjectIdentifier, _ state: _State) {
    guard let member = state.members.removeValue(forKey: id) else { return }
    member.watch?.end(of: _element(member), sink: _sink)
    _touch(_element(member), state)
  }

  func _setLabel(_ label: UInt64, of id: ObjectIdentifier, _ state: _State) {
    state.members[id]?.label = label
    state.index.setSequence(id, to: label)
  }

  // MARK: Arrays

  /// Diffs a whole new array by identity: O(n log n) (an increasing-subsequence pass keeps
  /// the elements whose relative order did not change untouched).
  func _diffArray(_ array: [Element], _ state: _State) {
    var occurrences: [ObjectIdentifier: Int] = [:]
    occurrences.reserveCapacity(array.count)
    var unique: [Element] = []
    unique.reserveCapacity(array.count)
    for element in array {
      let id = ObjectIdentifier(element)
      if let count = occurrences[id] {
        occurrences[id] = count + 1
      } else {
        occurrences[id] = 1
        unique.append(element)
      }
    }
    let leaving = state.members.keys.filter { occurrences[$0] == nil }
    for id in leaving { _leave(id, state) }
    // Room for the new members at once (the first array: one allocation, no rehashing).
    state.members.reserveCapacity(unique.count)
    // Retained elements whose order relative to the others changed are touched; the others
    // keep their relative order, so their new labels keep the index valid.
    var retained: [Int] = []
    var labels: [UInt64] = []
    for (offset, element) in unique.enumerated() {
      if let member = state.members[ObjectIdentifier(element)] {
        retained.append(offset)
        labels.append(member.label)
      }
    }
    let keep = _longestIncreasingSubsequence(labels)
    for (k, offset) in retained.enumerated() where !keep[k] {
      _touch(unique[offset], state)
    }
    let hadDuplicates = state.duplicates > 0
    state.duplicates = array.count - unique.count
    // The kept elements keep their labels; the others get labels between their kept
    // neighbours', when there is room (O(changes) index work instead of relabeling all).
    if let placed = _labelsBetweenKept(unique.count, retained, labels, keep) {
      for (offset, label) in placed {
        let element = unique[offset]
        let id = ObjectIdentifier(element)
        if state.members[id] != nil {
          _setLabel(label, of: id, state)
        } else {
          _enter(element, label: label, occurrences: occurrences[id] ?? 1, state)
        }
      }
      // Without duplicates before and after, every retained element occurs once, as before.
      if hadDuplicates || state.duplicates > 0 {
        for (id, count) in occurrences { state.members[id]?.occurrences = count }
      }
      return
    }
    let step = UInt64.max / UInt64(unique.count + 1)
    for (offset, element) in unique.enumerated() {
      let id = ObjectIdentifier(element)
      let label = step * UInt64(offset + 1)
      let count = occurrences[id] ?? 1
      if state.members[id] != nil {
        state.members[id]?.occurrences = count
        _setLabel(label, of: id, state)
      } else {
        _enter(element, label: label, occurrences: count, state)
      }
    }
  }

  /// The labels for the elements of `unique` that are not kept (new, or retained but out of
  /// order), spaced evenly between the labels of the kept elements around them; `nil` when some
  /// gap has no room (then everything is relabeled).
  ///
  /// - Parameters:
  ///   - count: The number of distinct elements of the new array.
  ///   - retained: The offsets (in the new array) of the elements that were members.
  ///   - labels: Their labels, parallel to `retained`.
  ///   - keep: Whether each keeps its label, parallel to `retained` (an increasing run).
  func _labelsBetweenKept(
    _ count: Int, _ retained: [Int], _ labels: [UInt64], _ keep: [Bool]
  ) -> [(offset: Int, label: UInt64)]? {
    var placed: [(offset: Int, label: UInt64)] = []
    var run: [Int] = []
    var low: UInt64 = 0
    var next = 0  // index into `retained`
    func flush(below high: UInt64) -> Bool {
      guard !run.isEmpty else { return true }
      let count = UInt64(run.count)
      guard high > low, (high - low) / (count + 1) >= 2 else { return false }
      let step = (high - low) / (count + 1)
      for (k, offset) in run.enumerated() { placed.append((offset, low + step * UInt64(k + 1))) }
      run.removeAll(keepingCapacity: true)
      return true
    }
    for offset in 0..<count {
      while next < retained.count && retained[next] < offset { next += 1 }
      if next < retained.count && retained[next] == offset && keep[next] {
        let label = labels[next]
        guard flush(below: label) else { return nil }
        low = label
      } else {
        run.append(offset)
      }
    }
    guard flush(below: .max) else { return nil }
    return placed
  }

  /// Applies a fine-grained edit in O(log n) (amortized, with relabeling); `false` when the
  /// change heard is not exactly that edit (then the caller diffs).
  func _applyArrayHint(_ hint: _RelationHint, _ array: [Element], _ state: _State) -> Bool {
    guard state.duplicates == 0, hint.oldCount == state.lastArrayCount,
      hint.newCount == array.count, hint.oldBase == state.lastArrayBase,
      hint.newBase == _bufferIdentity(array)
    else { return false }
    switch hint.edit {
    case .insert(let object, let index):
      let id = ObjectIdentifier(object)
      guard array[index] === object, state.members[id] == nil else { return false }
      _enter(array[index], label: _label(at: index, in: array, state), state)
    case .remove(let object, _):
      let id = ObjectIdentifier(object)
      guard let member = state.members[id], member.occurrences == 1 else { return false }
      _leave(id, state)
    case .replace(let index, let old, let new):
      guard array[index] === new else { return false }
      if old === new { return true }
      let oldID = ObjectIdentifier(old)
      guard let member = state.members[oldID], member.occurrences == 1,
        state.members[ObjectIdentifier(new)] == nil
      else { return false }
      _leave(oldID, state)
      _enter(array[index], label: member.label, state)
    case .move(let object, let from, let to):
      let id = ObjectIdentifier(object)
      guard array[to] === object, let member = state.members[id] else { return false }
      if from == to { return true }
      _setLabel(_label(at: to, in: array, state), of: id, state)
      _touch(_element(member), state)
    case .setInsert, .setRemove:
      return false
    }
    return true
  }

  /// A label for the element at `index` of `array` between its neighbours' labels, relabeling
  /// a window around it when they leave no room.
  func _label(at index: Int, in array: [Element], _ state: _State) -> UInt64 {
    let low: UInt64 = index > 0 ? _labelOf(array[index - 1], state) : 0
    let high: UInt64 = index + 1 < array.count ? _labelOf(array[index + 1], state) : .max
    if high > low && high - low >= 2 {
      let gap = high - low
      // Appends and prepends leave room for more of the same.
      if index + 1 >= array.count { return low + min(gap / 2, 1 << 32) }
      if index == 0 { return high - min(gap / 2, 1 << 32) }
      return low + gap / 2
    }
    return _relabel(around: index, in: array, state)
  }

  func _labelOf(_ element: Element, _ state: _State) -> UInt64 {
    state.members[ObjectIdentifier(element)]?.label ?? 0
  }

  /// Spreads the labels of the smallest window around `index` (doubling) whose label range
  /// leaves a gap of about its size between neighbours; returns the label for `index`.
  func _relabel(around index: Int, in array: [Element], _ state: _State) -> UInt64 {
    var size = 2
    while true {
      let lo = max(0, index - size / 2)
      let hi = min(array.count, lo + size + 1)
      let low: UInt64 = lo > 0 ? _labelOf(array[lo - 1], state) : 0
      let high: UInt64 = hi < array.count ? _labelOf(array[hi], state) : .max
      let count = UInt64(hi - lo)
      let step = high > low ? (high - low) / (count + 1) : 0
      if step >= 2 * count + 2 || (lo == 0 && hi == array.count) {
        var result: UInt64 = 0
        for offset in lo..<hi {
          let label = low + step * UInt64(offset - lo + 1)
          if offset == index {
            result = label
          } else {
            _setLabel(label, of: ObjectIdentifier(array[offset]), state)
          }
        }
        return result
      }
      size *= 2
    }
  }

  // MARK: Sets

  func _diffSet(_ set: _SetValue<Element>, _ state: _State) {
    let elements = set.elements()
    var present = Set<ObjectIdentifier>(minimumCapacity: elements.count)
    for element in elements {
      let id = ObjectIdentifier(element)
      present.insert(id)
      if state.members[id] == nil {
        _enter(element, label: state.nextSequence, state)
        state.nextSequence += 1
      }
    }
    let leaving = state.members.keys.filter { !present.contains($0) }
    for id in leaving { _leave(id, state) }
  }

  func _applySetHint(_ hint: _RelationHint, _ set: _SetValue<Element>, _ state: _State) -> Bool {
    guard hint.oldCount == state.lastSetCount, hint.newCount == set.count else { return false }
    switch hint.edit {
    case .setInsert(let object):
      // The hint is for this relation, whose elements are `Element`.
      let element = unsafeDowncast(object, to: Element.self)
      guard set.member(element) === object, state.members[ObjectIdentifier(object)] == nil
      else { return false }
      _enter(element, label: state.nextSequence, state)
      state.nextSequence += 1
    case .setRemove(let object):
      let id = ObjectIdentifier(object)
      guard let member = state.members[id], set.member(_element(member)) !== object else {
        return false
      }
      _leave(id, state)
    default:
      return false
    }
    return true
  }
}

/// What a request to drain does.
enum _DrainAction {
  case none, now, main
  case queue(DispatchQueue)
}

extension RelationController {
  /// One step of the drain loop.
  enum _DrainStep {
    case done, again
    case deliver(_Delivery)
  }
}

/// A controller that a scheduled drain runs on (non-generic, so that the `@Sendable` closure
/// that schedules it captures no generic metatype).
protocol _Drainable: AnyObject, Sendable {
  func _scheduledDrain()
}

extension RelationController: _Drainable {}

/// Runs `controller`'s drain on `queue`, unless the controller is gone by then.
func _schedule(_ controller: any _Drainable, on queue: DispatchQueue) {
  queue.async { [weak controller] in controller?._scheduledDrain() }
}

/// One element of a relation, as a controller keeps it.
///
/// Not generic (the element is kept as `AnyObject` and read back as the controller's
/// `Element`), so that the controller's table of members (`_MemberTable`) is compiled once
/// here instead of running through generic metadata on every lookup.
struct _RelationMember {
  // Stored in this order so that the member takes 40 bytes (its slot in the table's pool).
  let object: AnyObject
  /// The element's place in relation order (a sequence for the index's tie-breaks): an
  /// order-maintenance label for arrays, the order of entry for sets.
  var label: UInt64
  /// What re-evaluates the element when something its functions read changes; `nil` once it
  /// announced its deletion (see `deleted`).
  var watch: _WatchHandle?
  /// The hash of the observed attributes at the last transaction (see `_Config.fingerprint`).
  var fingerprint: Int
  private var _occurrences: Int32

  init(
    object: AnyObject, label: UInt64, occurrences: Int, watch: _WatchHandle?, fingerprint: Int
  ) {
    self.object = object
    self.label = label
    self.watch = watch
    self.fingerprint = fingerprint
    _occurrences = Int32(clamping: occurrences)
  }

  /// Whether the element announced its deletion: it stays a member (the relation may still
  /// hold it) but is not shown, and nothing watches it.
  var deleted: Bool { watch == nil }

  /// How many times an array holds the element.
  var occurrences: Int {
    get { Int(_occurrences) }
    set { _occurrences = Int32(clamping: newValue) }
  }
}
