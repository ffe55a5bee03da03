/// The state of a `DependencyTracker`, kept in its mutex: a pure state machine whose methods
/// return what the tracker must do after unlocking (tokens to release, whether to pump).
struct _TrackerState: Sendable {
  /// The set, by object identity.
  private(set) var entries: [ObjectIdentifier: _Entry] = [:]
  /// The transaction open on each thread that is recording one.
  private var transactions: [UInt: _Transaction] = [:]
  /// Finished batches not yet taken by a delivery, oldest first.
  private var outbox: [_Batch] = []
  /// Batches queued in `outbox` whose delivery was not yet triggered.
  private var unsignaled = 0
  /// Whether a thread is scheduling deliveries (it alone does, so they keep their order).
  private var isPumping = false
  private var nextSequence: UInt64 = 0
  /// The entry count at which entries of deallocated objects are next purged.
  private var purgeThreshold = 16
  /// The "dismiss on deletion" policy.
  var dismissesOnDeletion: Bool

  init(dismissesOnDeletion: Bool) { self.dismissesOnDeletion = dismissesOnDeletion }

  // MARK: The set

  /// Whether `dependency` is the current tracking of its object.
  func isCurrent(_ dependency: _Dependency) -> Bool {
    entries[dependency.id]?.dependency === dependency
  }

  /// The live dependencies in the order they were added.
  func live() -> [_Dependency] {
    entries.values.filter { $0.dependency.isAlive }.sorted { $0.sequence < $1.sequence }
      .map { $0.dependency }
  }

  /// Inserts `dependency` unless its object is already tracked; returns whether it did, and
  /// the tokens of entries of deallocated objects it purged.
  mutating func reserve(_ dependency: _Dependency) -> (Bool, [ObservationToken]) {
    var released: [ObservationToken] = []
    if let existing = entries[dependency.id] {
      // Same identity and alive means the same object; a dead entry's address was reused.
      if existing.dependency.isAlive { return (false, []) }
      if let token = existing.token { released.append(token) }
    }
    entries[dependency.id] = _Entry(dependency: dependency, sequence: nextSequence, token: nil)
    nextSequence &+= 1
    if entries.count >= purgeThreshold {
      released += purgeDeallocated()
      purgeThreshold = max(16, entries.count * 2)
    }
    return (true, released)
  }

  /// Stores the observation token of a reserved entry; returns the token if the entry left
  /// meanwhile (its object announced its deletion), for the caller to release.
  mutating func attach(_ token: ObservationToken, to dependency: _Dependency) -> ObservationToken? {
    guard isCurrent(dependency) else { return token }
    entries[dependency.id]?.token = token
    return nil
  }

  /// Removes the entry of `dependency` if it is current; returns whether it did.
  mutating func discard(_ dependency: _Dependency) -> Bool {
    guard isCurrent(dependency) else { return false }
    entries[dependency.id] = nil
    return true
  }

  /// Removes the live entry of `object` (the user's removal); returns it.
  mutating func remove(_ id: ObjectIdentifier, _ isObject: (_Dependency) -> Bool) -> _Entry? {
    guard let entry = entries[id], isObject(entry.dependency) else { return nil }
    entries[id] = nil
    entry.dependency.markRemoved()
    return entry
  }

  /// Removes every entry (the user's removal); returns them.
  mutating func removeAll() -> [_Entry] {
    let removed = Array(entries.values)
    entries = [:]
    for entry in removed { entry.dependency.markRemoved() }
    return removed
  }

  /// Drops entries whose object was deallocated; returns their tokens.
  private mutating func purgeDeallocated() -> [ObservationToken] {
    let dead = entries.filter { !$0.value.dependency.isAlive }
    for id in dead.keys { entries[id] = nil }
    return dead.values.compactMap { $0.token }
  }

  // MARK: Transactions

  /// What recording an event did.
  enum Recording {
    /// The dependency is no longer current: the event is not reported.
    case ignored
    /// The event joined the transaction open on the thread.
    case joined
    /// The event opened a transaction on the thread: the caller asks to hear where it ends.
    case opened
  }

  /// Records a change of `dependency` in the thread's transaction.
  mutating func recordUpdate(
    _ changes: ChangedProperties<any ObservableModel>, of object: _Transfer<any ObservableModel>,
    for dependency: _Dependency, thread: UInt
  ) -> Recording {
    guard isCurrent(dependency) else { return .ignored }
    let opened = transactions[thread] == nil
    transactions[thread, default: _Transaction()].batch.merge(
      changes, of: object, for: dependency)
    return opened ? .opened : .joined
  }

  /// Records the deletion of `dependency`, which leaves the set now; returns the recording
  /// and the dependency's token, for the caller to release.
  mutating func recordDeletion(
    of object: _Transfer<any ObservableModel>, for dependency: _Dependency, thread: UInt
  ) -> (Recording, ObservationToken?) {
    guard isCurrent(dependency) else { return (.ignored, nil) }
    let token = entries.removeValue(forKey: dependency.id)?.token
    let opened = transactions[thread] == nil
    transactions[thread, default: _Transaction()].batch.append(
      _PendingDeletion(dependency: dependency, object: object))
    return (opened ? .opened : .joined, token)
  }

  /// Ends the thread's transaction and queues its batch; returns whether the caller must pump
  /// (no other thread is scheduling deliveries).
  mutating func close(thread: UInt) -> Bool {
    guard let transaction = transactions.removeValue(forKey: thread) else { return false }
    let batch = transaction.batch.finished()
    guard !batch.isEmpty else { return false }
    outbox.append(batch)
    unsignaled += 1
    if isPumping { return false }
    isPumping = true
    return true
  }

  // MARK: Delivery

  /// Claims the trigger of one queued batch's delivery, or releases the pump when none is left.
  mutating func takeSignal() -> Bool {
    guard unsignaled > 0 else {
      isPumping = false
      return false
    }
    unsignaled -= 1
    return true
  }

  /// Takes the oldest queued batch.
  mutating func nextBatch() -> _Batch? {
    outbox.isEmpty ? nil : outbox.removeFirst()
  }
}
