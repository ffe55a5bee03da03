import Binding
import Foundation

// Step 2 of the pipeline: the drainer folds a transaction's events and turns what they changed
// into one change set, then delivers it (RelationController+Delivery.swift) before it takes the
// next transaction, so the content a receiver reads is always that of the change set it was
// handed.
//
// The drainer is the only writer of the content (see RelationController+State.swift). It runs
// every user function (filter, section function, comparator, section name) with no lock held,
// and takes the lock only to write: detaching the touched elements (each keeps its slot),
// inserting each again at the point found by comparisons made beforehand, then removing those
// that were not placed again. A reader on another thread may therefore see a
// transaction half applied (a valid content in which some touched elements are not placed
// yet); receivers, and anything else running in the delivery context, never do. A function of
// the configuration that reads the controller sees the content as it is being rebuilt.

extension RelationController {
  /// Drains the queue: folds events and delivers change sets until it is empty.
  @inlinable
  func _drain() {
    guard _lock.withLock({ $0.pipeline.beginDrain() }) else { return }
    _beganDraining()
    _drainQueue()
  }

  /// Folds and delivers transactions, starting with `first` if the caller took it already,
  /// until the queue is empty (the phase is then `idle`).
  @inlinable
  func _drainQueue(first: consuming _Pipeline<_Event>.Transaction? = nil) {
    var spare: [_Event] = []
    var taken = first
    while var transaction = taken.take() ?? _nextTransaction(recycling: &spare) {
      // Whether folding or releasing the events may have queued events: only a fold that
      // touched its element is known not to (see `_fold`); an element's event that touched
      // nothing may hold the element's last reference, whose deinit the release below runs.
      var foldsMayQueue = false
      for event in transaction.events where !_fold(event) { foldsMayQueue = true }
      // The events' buffer, emptied here (releasing an event may run user code: an element's
      // deinit), becomes the queue's again if it is small.
      var events: [_Event] = []
      swap(&events, &transaction.events)
      _recycle(&events, into: &spare)
      // Earlier transactions' events, let go of by the queue: released here, outside the lock.
      if !transaction.spent.isEmpty {
        transaction.spent = []
        foldsMayQueue = true
      }
      // None wait if the transaction took the whole queue and neither its folds nor the
      // release of its events queued anything (one lock fewer a move): an event another thread
      // queues since is one queued after the look.
      if !transaction.isWholeQueue || foldsMayQueue { _touchQueuedElements() }
      if !_work.entered.isEmpty { _checkEntered() }
      let delivery = _transaction()
      _checkInvariants()
      // Consumed: bound with a plain `if let`, the delivery (a change set of a dozen arrays)
      // was copied, then both copies destroyed.
      if let ready = consume delivery { _deliver(ready) }
    }
  }

  /// The drainer's next transaction, or `nil` when the queue is empty: the drain is over, and
  /// the calling thread is no longer the drainer.
  @inlinable
  func _nextTransaction(
    recycling spare: inout [_Event]
  ) -> _Pipeline<_Event>.Transaction? {
    _lock.withLock { state in
      guard let transaction = state.pipeline.next(recycling: &spare) else {
        return _endDraining { nil }
      }
      return transaction
    }
  }

  /// Touches the elements whose events are still queued (for later transactions) and were not
  /// touched so by an earlier transaction: they may already have new keys, so they are moved
  /// now (their own transaction then finds them in place), and no comparison reads a key that
  /// disagrees with the element's place.
  ///
  /// An element touched so is placed by its keys as they are then; any later change of them
  /// fires its watch and queues an event after those scanned, so each queued event is scanned
  /// once, and a backlog of K transactions costs O(K) scanning in all.
  @inlinable
  func _touchQueuedElements() {
    var queued: [Element] = []
    _lock.withLock { state in
      state.pipeline.scanQueued { event in
        guard case .element(let element, _) = event,
          state.members.glance(ObjectIdentifier(element))?.deleted == false
        else { return }
        queued.append(element)
      }
    }
    for element in queued { _touch(element) }
  }

  /// Checks the elements that entered against the functions that the creation (or the last
  /// reconfiguration) accepted without proof (see `_Work.checksEntering`): one that reads no
  /// `@Observed` property yet now decides differently for them is reported once, where runtime
  /// issues go (standard error), rather than going stale without a word; once every function
  /// was seen reading something observable, nothing more is checked.
  @inlinable
  func _checkEntered() {
    var sample: [Element] = []
    swap(&sample, &_work.entered)
    // One element of an earlier check, for the new ones' results to differ from (not a
    // lookup among the members: that would cost O(n) a transaction).
    if let earlier = _work.checkedBefore { sample.append(earlier) }
    _work.checkedBefore = sample.first
    let config = _state.config
    if let function = config.functionReadingNothing(sample) {
      _work.checksEntering = false
      _reportRuntimeIssue(
        "RelationController<\(Element.self), \(SectionKey.self)>: "
          + RelationController.Configuration.readsNothingMessage(function)
          + ". Found when elements entered the relation after the controller was created or "
          + "reconfigured (it was empty, or that function gave every element the same result "
          + "then); it is reported once")
    } else if !config.isUndecided(sample) {
      _work.checksEntering = false
    }
  }

  /// Runs the transaction over the touched elements; `nil` when nothing visible changed (or
  /// when `reports` is `false`: the initial content, which nobody is told about).
  @inlinable
  func _transaction(reports: Bool = true) -> _Delivery? {
    let work = _work
    let namesBefore = work.namesBeforeReconfiguration
    work.namesBeforeReconfiguration = nil
    guard !work.dirty.isEmpty || namesBefore != nil else { return nil }
    // Kept keys change only when their element is placed, so no element is ever out of order
    // by them: there are no stale neighbours to heal.
    if _state.index.keys == nil { _healAroundTouched() }
    var touched: [(element: Element, changedAttributes: Bool)] = []
    defer {
      // Emptied first: releasing an element may run its deinit, which must not run inside an
      // access to `work.dirty` (see Binding's `_recycle`).
      touched.removeAll(keepingCapacity: true)
      _recycle(&touched, into: &work.dirty)
    }
    let config = _state.config
    // The labels of the touched elements that are live members; `.max`, which no label takes,
    // for the others.
    var labels = work.takeLabels()
    defer { _recycle(&labels, into: &work._labels) }
    // Every event of an element counts as a change of what it shows (see `RelationUpdates`).
    let everyEvent = config.updatesOnEveryEvent
    // One lock, and one lookup of each member, for its label and its fingerprint.
    _write { state in
      touched = work.takeTouches()
      labels.reserveCapacity(touched.count)
      let fingerprints = work.latestFingerprints
      for offset in touched.indices {
        let id = ObjectIdentifier(touched[offset].element)
        // What the element shows changed if its fingerprint after the transaction's last
        // change of the element differs from the one at the previous comparison (or, with
        // `everyEvent`, if it changed at all). Only elements changed in this transaction are
        // compared: their events gave them a fingerprint (others may be here because a later
        // transaction moved them, or a neighbour's placement: that one reports them).
        let latest = fingerprints.isEmpty ? nil : fingerprints[id]
        var changed = false
        // Field by field: binding the member would copy it (retaining its object and watch).
        let label = state.members.update(id) { member -> UInt64 in
          guard let deleted = member?.deleted, !deleted, let label = member?.label else {
            return .max
          }
          if let latest, everyEvent || latest != member?.fingerprint {
            member?.fingerprint = latest
            changed = true
          }
          return label
        }
        if changed { touched[offset].changedAttributes = true }
        labels.append(label)
      }
    }
    if !work.latestFingerprints.isEmpty { work.removeAllFingerprints() }
    var builder = _ChangeSetBuilder(before: _state.index)
    if reports {
      for (element, changed) in touched {
        builder.touch(element, changedAttributes: changed, in: _state.index)
      }
    }
    // All at once: the sections they leave empty go in one pass, not one shift each. Detached,
    // not removed: each keeps its slot for its insertion below (a move frees and allocates
    // nothing); those that are not placed again are removed after.
    // With the slots the builder found (see `_OrderedIndex.slot(of:)`): one lookup of each
    // element's identity for the whole transaction.
    if reports {
      _write { $0.index.detach(contentsOf: builder.touchedSlots) }
    } else {
      _write { $0.index.detach(contentsOf: touched.lazy.map { ObjectIdentifier($0.element) }) }
    }
    // In bulk only with kept keys: a live comparison that is not a total order (NaN) would
    // give the sort no consistent answer, while inserting one by one still places each
    // element consistently with its neighbours.
    if _state.index.isEmpty && _state.index.keys != nil && touched.count > 1 {
      _load(touched.map(\.element), labels: labels, config: config)
    } else {
      for offset in touched.indices where labels[offset] != .max {
        let element = touched[offset].element
        // The filter, the section function and the comparisons (user code) run with no lock
        // held; only the drainer writes the index, so the point is still valid when it
        // inserts.
        guard config.includes(element) else { continue }
        let point = _state.index.insertionPoint(
          for: element, sectionKey: config.sectionedBy(element), sequence: labels[offset])
        let hint = reports ? builder.slotHint(offset) : -1
        _write { $0.index.insert(element, sequence: labels[offset], at: point, hint: hint) }
      }
    }
    // Filtered out, deleted or no longer members. (Only the drainer writes the index, so it
    // reads this without the lock.)
    if _state.index.hasDetached { _write { $0.index.removeDetached() } }
    guard reports else { return nil }
    // Moved, never copied, from here to the delivery: a copy retains each of its arrays.
    var changes = RelationChangeSet<Element>()
    guard builder.finish(after: _state.index, into: &changes) || namesBefore != nil else {
      return nil
    }
    // The new keys only when needed: O(sections), on a path that is otherwise O(log n).
    let newKeys =
      changes._insertedSections.isEmpty && namesBefore == nil ? [] : _state.index.sectionKeys
    if let namesBefore {
      for (index, key) in newKeys.enumerated()
      where !changes._insertedSections.contains(index)
        && namesBefore(key) != config.sectionName(key)
      {
        changes._renamedSections.insert(index)
      }
      if changes.isEmpty { return nil }
    }
    let insertedSectionKeys = changes._insertedSections.map { newKeys[$0] }
    return _Delivery(
      changes: consume changes,
      deletedSectionKeys: builder.deletedSectionKeys,
      insertedSectionKeys: insertedSectionKeys,
      sectionName: config.sectionName)
  }

  /// Places `elements` (those with a label other than `.max` that the filter includes) in the
  /// empty index at once: one sort (user code, no lock held), then a linear load under the
  /// lock.
  @inlinable
  func _load(_ elements: [Element], labels: [UInt64], config: Configuration) {
    var placed: [Element] = []
    var sectionKeys: [SectionKey] = []
    var sequences: [UInt64] = []
    placed.reserveCapacity(elements.count)
    sectionKeys.reserveCapacity(elements.count)
    sequences.reserveCapacity(elements.count)
    // Index loops: `enumerated()` over generic elements runs generic iterator code.
    for offset in elements.indices where labels[offset] != .max {
      let element = elements[offset]
      guard config.includes(element) else { continue }
      placed.append(element)
      sectionKeys.append(config.sectionedBy(element))
      sequences.append(labels[offset])
    }
    let load = _state.index.prepareLoad(placed, sectionKeys: sectionKeys, sequences: sequences)
    _write { $0.index.load(load) }
  }

  /// Checks the structure of the index and of the members after a transaction (debug builds,
  /// see Package.swift), so that every test that drives a controller checks them too. The
  /// order of the elements, and that no deleted element is shown, are checked only when no
  /// event waits: a queued event may be an element whose keys already changed, or a deletion.
  @inlinable
  func _checkInvariants() {
    #if COLLECTION_CONTROLLER_INTERNAL_CHECKS
      let settled = _lock.withLock { $0.pipeline.isEmpty }
      _state.index._checkInvariants(order: settled)
      let members = _write { $0.members }
      members._checkInvariants()
      for section in 0..<_state.index.sectionCount {
        _state.index.forEach(inSection: section) { element in
          let member = members[ObjectIdentifier(element)]
          precondition(member != nil, "an element of the index is not a member")
          // A deletion still queued may have marked its member already (see `_rewatch`).
          precondition(!settled || member?.deleted == false, "a deleted member is in the index")
        }
      }
    #endif
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
  ///
  /// Each run of touched neighbours is walked once: an element of a run already walked is
  /// skipped (the run's boundaries, the only elements its members could be misplaced against,
  /// were checked then, and a later walk that grows the run checks its new ones), so touching
  /// nearly every element (a reversal, a reconfiguration) costs O(k log n), not O(k²).
  @inlinable
  func _healAroundTouched() {
    let work = _work
    var walked: [Bool] = []
    walked.reserveCapacity(work.dirty.count)
    func markWalked(_ element: Element) {
      guard let slot = work.slot(of: ObjectIdentifier(element)) else { return }
      while walked.count <= slot { walked.append(false) }
      walked[slot] = true
    }
    var scanned = 0
    while scanned < work.dirty.count {
      let slot = scanned
      scanned += 1
      if slot < walked.count && walked[slot] { continue }
      let element = work.dirty[slot].element
      guard let position = _state.index.position(of: ObjectIdentifier(element)) else { continue }
      markWalked(element)
      let section = position.section
      let rows = _state.index.count(inSection: section)
      func touchedElement(_ row: Int) -> Element? {
        let element = _state.index.element(atSection: section, row: row)
        return work.slot(of: ObjectIdentifier(element)) == nil ? nil : element
      }
      var left = position.row - 1
      var right = position.row + 1
      func walkRun() {
        while left >= 0, let touched = touchedElement(left) {
          markWalked(touched)
          left -= 1
        }
        while right < rows, let touched = touchedElement(right) {
          markWalked(touched)
          right += 1
        }
      }
      walkRun()
      while left >= 0 && right < rows {
        let before = _state.index.element(atSection: section, row: left)
        let after = _state.index.element(atSection: section, row: right)
        guard _ordersAfter(before, after) else { break }
        _touch(before)
        _touch(after)
        walkRun()
      }
    }
  }

  /// Whether `a` belongs after `b` by the live sort keys and relation order.
  @inlinable
  func _ordersAfter(_ a: Element, _ b: Element) -> Bool {
    switch _state.config.compare(a, b) {
    case .orderedDescending: return true
    case .orderedAscending: return false
    case .orderedSame: return _labelOf(a) > _labelOf(b)
    }
  }
}
