import Binding

// Step 1 of the pipeline: what the controller hears becomes events in its queue.
//
// Every observation (the relation, each element's watch) is synchronous: it runs on the thread
// that made the change, after the write, and queues an event. The first event after a commit
// asks Binding to say when the transaction open on that thread ends (`_afterCurrentTransaction`:
// at once outside `coalesce`, after the outermost block inside one), and that end queues the
// commit and schedules a drain in the delivery context (RelationController+Transaction.swift).
//
// An element's watch fired: the element is re-evaluated and re-watched on the writing thread
// (as key-path observation does, following a replaced label or new tracks), and its observed
// attributes' fingerprint is read there, by the thread that changed them (`_rewatch`).

extension RelationController {
  /// One observed event, in the order it happened.
  @usableFromInline
  enum _Event {
    /// The relation was written (with the fine-grained edit, if it was one).
    case relation(_RelationValue<Element>, hint: _RelationHint?)
    /// Something the element's functions read changed; it was re-watched already, and
    /// `fingerprint` is its observed attributes' fingerprint just after the change.
    case element(Element, fingerprint: Int)
    /// The element announced its deletion.
    case deleted(ObjectIdentifier)
    /// The owner announced its deletion.
    case ownerDeleted
    /// A new configuration (a transaction of its own).
    case reconfigure(Configuration)
    /// The owner was deallocated: nothing is observed any more (a transaction of its own).
    case ownerGone
  }

  /// Queues an event of the transaction open on this thread (none once the owner is gone).
  @inlinable
  func _enqueue(_ event: _Event) {
    let thread = _currentThreadKey()
    _perform(_lock.withLock { $0.pipeline.receive(event, on: thread) })
  }

  /// The owner announced its deletion (`deleted`: the content empties in the transaction of
  /// the announcement, and its registration ends right after, which is not a deallocation), or
  /// was deallocated (the content stays as it is, no change set follows, the elements stop
  /// being observed). Whichever comes first decides.
  @inlinable
  func _ownerEnded(deleted: Bool) {
    let thread = _currentThreadKey()
    _perform(
      _lock.withLock { state in
        deleted
          ? state.pipeline.ownerDeleted(.ownerDeleted, on: thread)
          : state.pipeline.ownerDeallocated(.ownerGone)
      })
  }

  /// Queues a write of the relation and, unless a drain is running or scheduled, folds it at
  /// once on this thread (as the drainer): the event holds the relation's array, and folding it
  /// now lets it go, so that the next fine-grained edit in the same `coalesce` block edits the
  /// array in place instead of copying it (a run of inserts in one block stays O(k log n)).
  @inlinable
  func _enqueueRelation(_ event: _Event) {
    let thread = _currentThreadKey()
    let step = _lock.withLock { $0.pipeline.receiveAndFold(event, on: thread) }
    _perform(step.action)
    guard step.folds else { return }
    _beganDraining()
    for event in step.events { _fold(event) }
    _perform(_lock.withLock { state in _endDraining { state.pipeline.endFold() } })
  }

  /// Queues an event that is a transaction of its own.
  @inlinable
  func _enqueueTransaction(_ event: _Event) {
    let thread = _currentThreadKey()
    _perform(_lock.withLock { $0.pipeline.receiveTransaction(event, on: thread) })
  }

  /// Does what the pipeline asked for, outside the lock.
  @inlinable
  func _perform(_ action: _Pipeline<_Event>.Action) {
    switch action {
    case .none: break
    case .awaitTransactionEnd: _afterCurrentTransaction(_relay)
    case .scheduleDrain: _route.run { [weak self] in self?._drain() }
    // Synchronous delivery drains here, without making a job.
    case .drain:
      _beganDraining()
      _drainQueue()
    }
  }

  /// Watches what `config` reads of `element` (and its deletion), replacing `previous`; returns
  /// the watch (`nil` if the element announced its deletion) and the fingerprint of its
  /// observed attributes. Runs the configuration's functions: never call it with the lock held.
  @inlinable
  func _watch(
    _ element: Element, replacing previous: _WatchHandle?, _ config: Configuration
  ) -> (watch: _WatchHandle?, fingerprint: Int) {
    var fingerprint = 0
    // The caller ends `previous` once its re-watch is committed (see `_rewatch`).
    let watch = Binding._watch(element, sink: _sink, replacing: previous, endingPrevious: false) {
      fingerprint = config.readInputs(element)
    }
    return (watch, fingerprint)
  }

  /// Re-watches the member `id` with the current configuration, the evaluation (user code)
  /// running with no lock held; returns the element, the fingerprint of its last evaluation and
  /// whether something fired while it ran (another thread's write, which then reports through
  /// this call), or `nil` when it is not (or no longer) a live member, or when another thread
  /// is re-watching it (that thread then re-watches once more, for this caller too).
  ///
  /// One thread at a time re-watches a member: it claims it under the lock (the member's
  /// `_RewatchMark`), evaluates with no lock held, and commits under the lock only if the member
  /// still carries its claim. So each re-watch replaces the watch the previous one
  /// left, a write that fires meanwhile is followed by another evaluation, and a re-watch
  /// overtaken by the drainer (the element left, came back, or was deleted) ends only the
  /// watch it made.
  ///
  /// The commit does what `commit` says, under the same lock: queue the element's event (so that
  /// the drainer never finds the queue empty while a re-watched element's event is on its way),
  /// or make the fingerprint the member's baseline (an element entering, a reconfiguration).
  @inlinable
  func _rewatch(_ id: ObjectIdentifier, commit: _RewatchCommit) -> _Rewatched? {
    // Only when the transaction will run on this thread (see `_prefetchesHere`).
    let prefetches = _prefetchesHere(commit)
    let claim = _lock.withLock { state -> _RewatchClaim? in
      guard !state.pipeline.isOwnerGone else { return nil }
      // The index's bucket for an element whose write fired, asked for now (its lookup comes
      // after the evaluation, see `.event` below), its miss overlapping the member's.
      if prefetches { state.index.prefetchBucket(of: id) }
      let config = state.config
      return state.members.update(id) { _claim(id, &$0, config: config) }
    }
    guard let claim else { return nil }
    return _rewatch(claim, commit: commit)
  }

  /// Whether a re-watch asks ahead for the index records its element's transaction reads: only
  /// for an event, and only when the transaction will run on this thread (synchronous delivery,
  /// or a main-actor controller written on the main actor), so that the records come into this
  /// core's cache, and the bucket read under the lock is one the transaction makes anyway.
  @inlinable
  func _prefetchesHere(_ commit: _RewatchCommit) -> Bool {
    guard case .reportsEvent = commit else { return false }
    return _route.runsHere
  }

  /// Claims `member` for a re-watch where it is stored (under the lock): one lookup, and no
  /// copy of the member (which retains its object and its watch); `nil` if it is not a member,
  /// announced its deletion, or is being re-watched (then marked to be re-watched once more).
  @inlinable
  func _claim(
    _ id: ObjectIdentifier, _ member: inout _RelationMember?, config: Configuration
  ) -> _RewatchClaim? {
    let isDeleted = member?.watch == nil
    guard let generation = member?.mark.claim(isDeleted: isDeleted),
      let watch = member?.watch, let object = member?.object
    else { return nil }
    // Safe: members only ever hold `Element`s (see `_element(_:)`).
    return _RewatchClaim(
      id: id, element: unsafeDowncast(object, to: Element.self), watch: watch, config: config,
      generation: generation)
  }

  /// Evaluates and commits a claimed re-watch, again while something fires meanwhile.
  @inlinable
  func _rewatch(_ claim: consuming _RewatchClaim, commit: _RewatchCommit) -> _Rewatched? {
    // Consumed, not copied: a copy retains the element, its watch and the configuration.
    var claim = claim
    var firedMeanwhile = false
    let thread = _currentThreadKey()
    while true {
      let element = claim.element
      let previous = claim.watch
      let (watch, fingerprint) = _watch(element, replacing: previous, claim.config)
      let outcome = _lock.withLock { state -> _RewatchOutcome in
        // Overtaken: the element left, came back as a new member, or was deleted.
        guard !state.pipeline.isOwnerGone else {
          return .overtaken(kept: state.members[claim.id]?.watch)
        }
        let decision = state.members.update(claim.id) {
          _commit(claim, watch: watch, fingerprint: fingerprint, commit, &$0)
        }
        switch decision {
        case .overtaken: return .overtaken(kept: state.members[claim.id]?.watch)
        case .deleted: return .deleted
        case .baseline: return .done(.none)
        case .event:
          // The element's index record, which its transaction reads first (for its old
          // position), asked for now: in a large index it is a cache miss of its own.
          if _prefetchesHere(commit) { state.index.prefetchRecord(of: claim.id) }
          return .done(
            state.pipeline.receive(.element(element, fingerprint: fingerprint), on: thread))
        case .again:
          return .again(
            _RewatchClaim(
              id: claim.id, element: element, watch: watch, config: state.config,
              generation: claim.generation))
        }
      }
      switch outcome {
      case .overtaken(let kept):
        // End only the watch this re-watch made (not the member's, not the previous one, which
        // the drainer ended when it overtook).
        if let watch, !watch.isSame(as: previous), !(kept.map { watch.isSame(as: $0) } ?? false) {
          watch.end(of: element, sink: _sink, except: kept?.listed)
        }
        return nil
      case .deleted:
        previous?.end(of: element, sink: _sink)
        // Its deletion may not tell us (it can run between ending the previous watch and adding
        // the new one, and then finds no live watch).
        _enqueue(.deleted(claim.id))
        return nil
      case .done(let action):
        _endPrevious(previous, replacedBy: watch, of: element)
        _perform(action)
        return _Rewatched(
          element: element, fingerprint: fingerprint, firedMeanwhile: firedMeanwhile)
      case .again(let next):
        _endPrevious(previous, replacedBy: watch, of: element)
        firedMeanwhile = true
        claim = next
      }
    }
  }

  /// Commits a re-watch's `watch` to `member` where it is stored (under the lock), if the member
  /// still carries the claim (see `_RewatchMark`): one lookup, and no copy of the member.
  @inlinable
  func _commit(
    _ claim: _RewatchClaim, watch: _WatchHandle?, fingerprint: Int, _ commit: _RewatchCommit,
    _ member: inout _RelationMember?
  ) -> _RewatchDecision {
    guard let decision = member?.mark.commit(claim.generation, madeWatch: watch != nil) else {
      return .overtaken
    }
    switch decision {
    case .overtaken: return .overtaken
    case .deleted:
      member?.watch = nil  // it announced its deletion meanwhile
      return .deleted
    case .again:
      member?.watch = watch
      return .again
    case .committed:
      member?.watch = watch
      switch commit {
      case .reportsEvent: return .event
      case .setsBaseline:
        member?.fingerprint = fingerprint
        return .baseline
      }
    }
  }

  /// What `_commit` decided.
  @usableFromInline
  enum _RewatchDecision {
    /// The member no longer carries the claim.
    case overtaken
    /// The element announced its deletion.
    case deleted
    /// Committed; the fingerprint is the member's baseline now.
    case baseline
    /// Committed; the element's event is to be queued.
    case event
    /// Committed, and something fired meanwhile: re-watch again.
    case again
  }

  /// Ends the watch a committed re-watch replaced (sparing the new one, which a `.lone` handle
  /// could otherwise end too).
  @inlinable
  func _endPrevious(_ previous: _WatchHandle?, replacedBy watch: _WatchHandle?, of element: Element)
  {
    guard let previous, let watch, !watch.isSame(as: previous) else { return }
    previous.end(of: element, sink: _sink, except: watch.listed)
  }

  /// What a committed re-watch does besides installing its watch.
  @usableFromInline
  enum _RewatchCommit {
    /// Queue the element's event (a write fired its watch).
    case reportsEvent
    /// Make the fingerprint the member's baseline (it entered, or the configuration changed).
    case setsBaseline
  }

  /// A re-watch's hold on a member: what it re-watches, with what, and its claim's generation.
  @usableFromInline
  struct _RewatchClaim {
    @usableFromInline
    let id: ObjectIdentifier
    @usableFromInline
    let element: Element
    /// The watch to replace (`nil` for an element entering the relation).
    @usableFromInline
    let watch: _WatchHandle?
    @usableFromInline
    let config: Configuration
    @usableFromInline
    let generation: UInt16

    @inlinable
    init(
      id: ObjectIdentifier, element: Element, watch: _WatchHandle?,
      config: Configuration, generation: UInt16
    ) {
      self.id = id
      self.element = element
      self.watch = watch
      self.config = config
      self.generation = generation
    }
  }

  /// What a re-watch does once it evaluated the element.
  @usableFromInline
  enum _RewatchOutcome {
    /// The new watch is the member's (and, when reporting, the element's event is queued: what
    /// the pipeline asks for next).
    case done(_Pipeline<_Event>.Action)
    /// Something fired meanwhile (or the configuration changed): re-watch again.
    case again(_RewatchClaim)
    /// The element announced its deletion.
    case deleted
    /// The member is gone or changed hands: end the new watch, sparing the member's.
    case overtaken(kept: _WatchHandle?)
  }

  /// What a committed re-watch gives back.
  @usableFromInline
  struct _Rewatched {
    @usableFromInline
    let element: Element
    /// The fingerprint of the observed attributes at the last evaluation.
    @usableFromInline
    let fingerprint: Int
    /// Whether another write fired while the re-watch ran (and was followed by it).
    @usableFromInline
    let firedMeanwhile: Bool

    @inlinable
    init(element: Element, fingerprint: Int, firedMeanwhile: Bool) {
      self.element = element
      self.fingerprint = fingerprint
      self.firedMeanwhile = firedMeanwhile
    }
  }
}

extension RelationController: _TransactionObserver {
  /// The transaction that queued the first event since the last commit ended.
  @inlinable
  package func _transactionEnded() {
    // A drain that begins here takes its first transaction in the same lock trip.
    let thread = _currentThreadKey()
    let (action, first) = _lock.withLock { state in
      let action = state.pipeline.transactionEnded(on: thread)
      guard action == .drain else { return (action, nil as _Pipeline<_Event>.Transaction?) }
      return (action, state.pipeline.next())
    }
    guard action == .drain else { return _perform(action) }
    _beganDraining()
    _drainQueue(first: first)
  }
}

extension RelationController: _WatchReceiver {
  /// Something an element's functions read changed, or the element was deleted.
  ///
  /// Runs on the writing thread, right after the write, with no lock held; the element is
  /// re-evaluated (user code) with no lock held either.
  @inlinable
  package func _watchFired(_ id: ObjectIdentifier, elementDeleted: Bool) {
    if elementDeleted {
      _enqueue(.deleted(id))
      return
    }
    // The commit queues the element's event.
    _ = _rewatch(id, commit: .reportsEvent)
  }
}
