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
    case reconfigure(_Config<Element, SectionKey>)
  }

  /// Queues an event of the transaction open on this thread.
  func _enqueue(_ event: _Event) {
    _perform(_lock.withLock { $0.pipeline.receive(event) })
  }

  /// Queues an event that is a transaction of its own.
  func _enqueueTransaction(_ event: _Event) {
    _perform(_lock.withLock { $0.pipeline.receiveTransaction(event) })
  }

  /// Does what the pipeline asked for, outside the lock.
  func _perform(_ action: _Pipeline<_Event>.Action) {
    switch action {
    case .none: break
    case .awaitTransactionEnd: _afterCurrentTransaction(_relay)
    case .scheduleDrain: _route.run { [weak self] in self?._drain() }
    }
  }

  /// Watches what `config` reads of `element` (and its deletion), replacing `previous`; returns
  /// the watch (`nil` if the element announced its deletion) and the fingerprint of its
  /// observed attributes. Runs the configuration's functions: never call it with the lock held.
  func _watch(
    _ element: Element, replacing previous: _WatchHandle?, _ config: _Config<Element, SectionKey>
  ) -> (watch: _WatchHandle?, fingerprint: Int) {
    var fingerprint = 0
    let watch = Binding._watch(element, sink: _sink, replacing: previous) {
      fingerprint = config.readInputs(element)
    }
    return (watch, fingerprint)
  }

  /// Re-watches the member `id` with the current configuration, the evaluation (user code)
  /// running with no lock held; returns the element and the fingerprint of its last
  /// evaluation, or `nil` when it is not (or no longer) a live member, or when another thread
  /// is re-watching it (that thread then re-watches once more, for this caller too).
  ///
  /// One thread at a time re-watches a member (its `rewatching` mark, taken and released under
  /// the lock), so each re-watch replaces the watch the previous one left, and a write that
  /// fires during a re-watch is followed by another.
  func _rewatch(_ id: ObjectIdentifier) -> (element: Element, fingerprint: Int)? {
    var claim = _lock.withLock { state -> _RewatchClaim? in
      guard let member = state.members[id], let watch = member.watch else { return nil }
      guard member.rewatching == 0 else {
        state.members[id]?.rewatching = 2
        return nil
      }
      state.members[id]?.rewatching = 1
      return _RewatchClaim(element: _element(member), watch: watch, config: state.config)
    }
    while let current = claim {
      let (watch, fingerprint) = _watch(current.element, replacing: current.watch, current.config)
      let outcome = _lock.withLock { state -> _RewatchOutcome in
        // Gone, re-entered (a new member, not claimed), or deleted by the drainer meanwhile:
        // the new watch is not the member's.
        guard let member = state.members[id], member.rewatching != 0, member.watch != nil else {
          return .discard(except: state.members[id]?.watch)
        }
        state.members[id]?.watch = watch
        guard let watch else {
          // It announced its deletion meanwhile; that deletion may not tell us (it can run
          // between ending the previous watch and adding the new one, and then finds no live
          // watch).
          state.members[id]?.rewatching = 0
          return .deleted
        }
        guard member.rewatching == 2 else {
          state.members[id]?.rewatching = 0
          return .done
        }
        state.members[id]?.rewatching = 1
        return .again(_RewatchClaim(element: current.element, watch: watch, config: state.config))
      }
      switch outcome {
      case .done:
        return (current.element, fingerprint)
      case .again(let next):
        claim = next
      case .deleted:
        _enqueue(.deleted(id))
        return nil
      case .discard(let kept):
        if let watch, !(kept.map { watch.isSame(as: $0) } ?? false) {
          watch.end(of: current.element, sink: _sink, except: kept?.listed)
        }
        return nil
      }
    }
    return nil
  }

  /// What a re-watch does once it evaluated the element.
  enum _RewatchOutcome {
    /// The new watch is the member's.
    case done
    /// Something fired meanwhile (or the configuration changed): re-watch again.
    case again(_RewatchClaim)
    /// The element announced its deletion.
    case deleted
    /// The member is gone or changed hands: end the new watch, sparing the member's.
    case discard(except: _WatchHandle?)
  }

  /// A re-watch's hold on a member: what it re-watches, and with what.
  struct _RewatchClaim {
    let element: Element
    let watch: _WatchHandle
    let config: _Config<Element, SectionKey>
  }
}

extension RelationController: _TransactionObserver {
  /// The transaction that queued the first event since the last commit ended.
  package func _transactionEnded() {
    _perform(_lock.withLock { $0.pipeline.transactionEnded() })
  }
}

extension RelationController: _WatchReceiver {
  /// Something an element's functions read changed, or the element was deleted.
  ///
  /// Runs on the writing thread, right after the write, with no lock held; the element is
  /// re-evaluated (user code) with no lock held either.
  package func _watchFired(_ id: ObjectIdentifier, elementDeleted: Bool) {
    if elementDeleted {
      _enqueue(.deleted(id))
      return
    }
    guard let (element, fingerprint) = _rewatch(id) else { return }
    _enqueue(.element(element, fingerprint: fingerprint))
  }
}
