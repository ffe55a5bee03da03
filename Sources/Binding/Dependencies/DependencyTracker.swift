import Observation

/// A set of observable objects that a screen or a task depends on, reporting once per
/// transaction when they change or are deleted, and closing the screen when one is deleted.
///
/// A tracker holds objects of any `ObservableModel` types, by identity. Per transaction (one
/// change made outside `coalesce`, or one outermost `coalesce` block on one thread) it
/// reports, in this order: one ``ModelEvent/deleted(_:)`` per dependency that announced its
/// deletion, sent after it left the set; then one ``ModelEvent/updated(_:_:)`` per dependency
/// whose `@Observed` properties changed, with the properties (``ChangedProperties``); then,
/// if the transaction deleted at least one dependency, the `onDismiss` action, **once** however
/// many were deleted, unless ``dismissesOnDeletion`` is off. The events are
/// `ModelEvent<any ObservableModel>`: the same type a model's `observeEvents` hands, over
/// models of any type.
///
/// ```swift
/// let tracker = DependencyTracker(onDismiss: { [weak self] in self?.close() }) { event in
///   switch event {
///   case .updated(let order as Order, let changes) where changes.contains(\Order.total):
///     print("total:", order.total)
///   case .updated(let object, let changes):
///     print(type(of: object), "changed:", changes.names)
///   case .deleted(let object):
///     print(type(of: object), "deleted")
///   }
/// }
/// tracker.add(customer)
/// tracker.add(order)
///
/// coalesce {
///   order.total = 42
///   order.status = .paid
///   customer.name = "Ada"
/// }
/// // updated(order, [total, status]), then updated(customer, [name])
///
/// order.announceDeletion()
/// // deleted(order), then onDismiss()
/// ```
///
/// ### Transactions
///
/// The tracker observes each dependency with one `observeEvents` registration, synchronously,
/// and collects what arrives in a transaction per thread. Binding tells it where the
/// transaction ends: with no `coalesce` block open on the thread, at the end of the change (so
/// a single change, or a single deletion, is its own transaction, with what the callbacks of
/// its observers change or delete meanwhile); inside a block, when the outermost block ends,
/// and the tracker then hands over the block's events as one batch.
/// Changes that other observers' callbacks make while a block is being delivered are reported
/// in the same batch or in the next one, never lost. A dependency deleted in a transaction is
/// reported deleted only, not updated too.
///
/// ### Delivery
///
/// `delivery` works as in Binding: by default events go where the creating code is isolated
/// (created on the main actor, the handler runs on the main actor, synchronously when the
/// change happens on the main thread); from nonisolated code, synchronously on the thread that
/// made the change. Batches are delivered in the order their transactions ended, one at a
/// time: a batch that ends while another thread is delivering synchronously is delivered by
/// that thread right after the current one. An update whose dependency you removed
/// (``remove(_:)``, ``removeAll()``) before its delivery is not delivered; updates recorded
/// before a dependency's deletion are delivered before the deletion.
///
/// ### What it does not do
///
/// It does not dismiss anything itself (there is no UI here): `onDismiss` is yours, for
/// example `navigationController?.popViewController(animated: true)`. It does not report the
/// old values (observe a key path for that), nor deallocation of a dependency (no event).
///
/// - Important: Dependencies are held **weakly**: the tracker never keeps a model alive (keep
///   your own strong reference to what the screen shows, as you already do). A dependency that
///   is deallocated leaves the set without an event. Dropping the tracker ends all of its
///   observation, and nothing is delivered afterwards, even if a batch was queued.
/// - Note: The tracker is `Sendable`: add, remove and query it from any thread. Its handler
///   and `onDismiss` run outside its lock, so they may use the tracker (add, remove, even
///   mutate a dependency: that is a new transaction, delivered after the current batch).
/// - Important: With synchronous delivery and several threads changing dependencies at once,
///   a batch may be delivered on the thread that is already delivering (see *Delivery*); a
///   handler that reads a model there is subject to the model's threading contract, as with
///   any asynchronous delivery.
/// - Note: The tracker is `Observable`: a SwiftUI view (or `withObservationTracking`) that
///   reads ``dependencies``, ``count``, ``isEmpty`` or ``contains(_:)`` is told when
///   ``add(_:)``, ``remove(_:)`` or ``removeAll()`` changes the set (on the calling thread) and
///   when a batch is delivered (a dependency changed or was deleted: in the delivery context,
///   before the handler runs). So a view that shows several models which do not adopt
///   `ObservationBridging` refreshes when any of them changes. A dependency that is
///   deallocated leaves the set without telling it, as it leaves without an event.
public final class DependencyTracker: Sendable, Observable {
  /// The set, the open transactions and the delivery queue.
  private let _state: _Lock<_TrackerState>
  /// Where batches are delivered (Binding's scheduler).
  private let _route: _Route
  /// The receivers, called in the delivery context only.
  private let _receivers:
    _Transfer<(handler: (ModelEvent<any ObservableModel>) -> Void, onDismiss: (() -> Void)?)>
  /// Waits for the ends of transactions for the tracker, without keeping it alive.
  private let _relay = _TransactionRelay()
  /// Swift Observation's view of the tracker: reads of the set, and what changes it.
  private let _registrar = ObservationRegistrar()

  /// Creates an empty tracker that reports to `handler`.
  ///
  /// The handler receives each event (a `ModelEvent<any ObservableModel>`); `onDismiss` runs
  /// after the events of each transaction that deleted at least one dependency (once per
  /// transaction), while `dismissOnDeletion` is `true`.
  ///
  /// ```swift
  /// let tracker = DependencyTracker(onDismiss: { dismiss() }) { event in
  ///   if case .updated(_, let changes) = event, changes.contains(\Order.status) { reload() }
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - dismissOnDeletion: Whether `onDismiss` runs when a transaction deletes a dependency
  ///     (the initial value of ``dismissesOnDeletion``).
  ///   - delivery: Where `handler` and `onDismiss` run; by default, where the creating code is
  ///     isolated.
  ///   - isolation: The creating code's isolation; leave the default.
  ///   - onDismiss: What "dismiss" means for you, such as closing the screen.
  ///   - handler: Receives the events.
  /// - Complexity: O(1).
  public init(
    dismissOnDeletion: Bool = true,
    delivery: ObservationDelivery = .automatic,
    isolation: (any Actor)? = #isolation,
    onDismiss: (() -> Void)? = nil,
    _ handler: @escaping (ModelEvent<any ObservableModel>) -> Void
  ) {
    _state = _Lock(_TrackerState(dismissesOnDeletion: dismissOnDeletion))
    _route = _Route(delivery, isolation: isolation)
    _receivers = _Transfer((handler, onDismiss))
    _relay.attach(self)
  }

  /// Whether a transaction that deletes a dependency runs `onDismiss` (once per transaction).
  ///
  /// Turn it off while the screen must stay, for example during its own delete animation; the
  /// deletion events are still delivered.
  ///
  /// ```swift
  /// tracker.dismissesOnDeletion = false
  /// ```
  ///
  /// - Complexity: O(1).
  /// - Note: Read when a batch is delivered, so turning it off also spares batches queued for
  ///   an asynchronous delivery.
  public var dismissesOnDeletion: Bool {
    get { _state.withLock { $0.dismissesOnDeletion } }
    set { _state.withLock { $0.dismissesOnDeletion = newValue } }
  }

  // MARK: The set

  /// Adds `model` to the dependencies; adding a dependency again does nothing.
  ///
  /// From now on, changes of the model's `@Observed` properties and its deletion are reported.
  /// The model is held weakly. A model that already announced its deletion is not added.
  ///
  /// ```swift
  /// tracker.add(order)
  /// tracker.add(order)  // false: already tracked
  /// ```
  ///
  /// - Parameter model: The object to depend on.
  /// - Returns: `true` if the model was added; `false` if it was already a dependency or is
  ///   deleted.
  /// - Complexity: Amortised O(1) (entries of deallocated objects are purged as the set
  ///   grows), plus one registration on the model.
  @discardableResult
  public func add<Model: ObservableModel>(_ model: Model) -> Bool {
    let dependency = _Dependency(model)
    let (reserved, released) = _state.withLock { $0.reserve(dependency) }
    for token in released { token.cancel() }
    guard reserved else { return false }
    let token = model.observeEvents(delivery: .synchronous, isolation: nil) {
      [weak self] event in
      self?._record(event, of: dependency)
    }
    guard token.isActive else {
      // Deleted before the registration: not added (unless its deletion event already took
      // the entry, in which case it was added and reported deleted).
      return !_state.withLock { $0.discard(dependency) }
    }
    _state.withLock { $0.attach(token, to: dependency) }?.cancel()
    _changed()
    return true
  }

  /// Removes `model` from the dependencies, if it is one.
  ///
  /// Its observation ends now: no later change is reported, and an update of it that was
  /// recorded but not yet delivered is dropped.
  ///
  /// ```swift
  /// tracker.remove(order)
  /// ```
  ///
  /// - Parameter model: The object to stop depending on.
  /// - Returns: `true` if it was a dependency.
  /// - Complexity: Expected O(1).
  @discardableResult
  public func remove(_ model: any ObservableModel) -> Bool {
    let removed = _state.withLock { state in
      state.remove(ObjectIdentifier(model)) { $0.object === model }
    }
    removed?.token?.cancel()
    if removed != nil { _changed() }
    return removed != nil
  }

  /// Removes every dependency, ending their observation.
  ///
  /// ```swift
  /// tracker.removeAll()
  /// print(tracker.isEmpty)  // true
  /// ```
  ///
  /// - Complexity: O(*n*), where *n* is the number of dependencies.
  public func removeAll() {
    let removed = _state.withLock { $0.removeAll() }
    for entry in removed { entry.token?.cancel() }
    if !removed.isEmpty { _changed() }
  }

  /// Whether `model` is a dependency (by identity, never by `==`).
  ///
  /// ```swift
  /// if !tracker.contains(order) { tracker.add(order) }
  /// ```
  ///
  /// - Parameter model: The object to look for.
  /// - Returns: `true` if the tracker holds this very object.
  /// - Complexity: Expected O(1).
  public func contains(_ model: any ObservableModel) -> Bool {
    _accessed()
    let dependency = _state.withLock { $0.entries[ObjectIdentifier(model)]?.dependency }
    return dependency?.object === model
  }

  /// The current dependencies, in the order they were added.
  ///
  /// A snapshot: later additions and removals do not change the array. Deallocated and
  /// deleted objects are not in it.
  ///
  /// ```swift
  /// for case let order as Order in tracker.dependencies { print(order.total) }
  /// ```
  ///
  /// - Complexity: O(*n* log *n*), where *n* is the number of dependencies.
  public var dependencies: [any ObservableModel] {
    _accessed()
    return _state.withLock { $0.live() }.compactMap { $0.object }
  }

  /// The number of dependencies.
  ///
  /// ```swift
  /// print(tracker.count)
  /// ```
  ///
  /// - Complexity: O(*n*), where *n* is the number of dependencies (deallocated objects are
  ///   not counted).
  public var count: Int {
    _accessed()
    return _state.withLock { state in state.entries.values.count { $0.dependency.isAlive } }
  }

  /// Whether there are no dependencies.
  ///
  /// ```swift
  /// if tracker.isEmpty { showPlaceholder() }
  /// ```
  ///
  /// - Complexity: O(*n*), where *n* is the number of dependencies.
  public var isEmpty: Bool { count == 0 }

  // MARK: Recording and delivering

  /// Tells Swift Observation that the set was read.
  private func _accessed() { _registrar.access(self, keyPath: \.dependencies) }

  /// Tells Swift Observation that the set, or a dependency, changed.
  private func _changed() { _registrar.withMutation(of: self, keyPath: \.dependencies) {} }

  /// Records an event of a dependency in the calling thread's transaction (Binding calls this
  /// synchronously, on the thread that made the change).
  private func _record<Model: ObservableModel>(
    _ event: ModelEvent<Model>, of dependency: _Dependency
  ) {
    let thread = _currentThreadKey()
    let recording: _TrackerState.Recording
    switch event {
    case .updated(let object, let changes):
      let object = _Transfer(object as any ObservableModel)
      let changes = _Transfer(
        ChangedProperties<any ObservableModel>(object: object.value, slots: changes.slots))
      recording = _state.withLock { state in
        state.recordUpdate(changes.value, of: object, for: dependency, thread: thread)
      }
    case .deleted(let object):
      let object = _Transfer(object as any ObservableModel)
      let (recorded, token) = _state.withLock { state in
        state.recordDeletion(of: object, for: dependency, thread: thread)
      }
      token?.cancel()
      recording = recorded
    }
    // The first event of this thread's transaction: hear where it ends.
    if case .opened = recording { _afterCurrentTransaction(_relay) }
  }

  /// Queues the thread's batch and, unless another thread is delivering, delivers it.
  private func _closeTransaction(on thread: UInt) {
    guard _state.withLock({ $0.close(thread: thread) }) else { return }
    // This thread alone schedules deliveries until `takeSignal()` releases the pump, so
    // batches reach the delivery context in the order their transactions ended.
    while _state.withLock({ $0.takeSignal() }) {
      _route.run { [weak self] in self?._deliverNextBatch() }
    }
  }

  /// Delivers the oldest queued batch (in the delivery context): deletions, updates of
  /// dependencies the user did not remove meanwhile, then the dismissal.
  private func _deliverNextBatch() {
    let (handler, onDismiss) = _receivers.value
    guard let batch = _state.withLock({ $0.nextBatch() }) else { return }
    // Only when it delivers something (updates of removed dependencies are dropped).
    if !batch.deletions.isEmpty || batch.updates.contains(where: { !$0.dependency.isRemoved }) {
      _changed()
    }
    for deletion in batch.deletions { handler(.deleted(deletion.object.value)) }
    for update in batch.updates where !update.dependency.isRemoved {
      handler(.updated(update.object.value, update.changes.value))
    }
    guard !batch.deletions.isEmpty, let onDismiss else { return }
    if _state.withLock({ $0.dismissesOnDeletion }) { onDismiss() }
  }
}

extension DependencyTracker: _TransactionObserver {
  /// The transaction this thread opened ended (Binding calls this on that thread).
  @usableFromInline
  package func _transactionEnded() {
    _closeTransaction(on: _currentThreadKey())
  }
}
