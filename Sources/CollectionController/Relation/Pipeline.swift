/// The relation controller's pipeline as a state machine: events in, transactions out, one
/// drainer at a time, and the owner's end.
///
/// A value behind the controller's lock: it is what every thread shares about the flow of
/// events (the member claims of re-watches are the other part, see `_RewatchMark`). Each
/// method takes what happened and returns what the caller must do once it has unlocked
/// (``Action``); nothing here calls out, so no user code and no scheduling ever runs under the
/// lock.
///
/// ```
///                       receive: queued; the first event after a commit
///                       asks the caller to await the transaction's end
///
///            transactionEnded /                   beginDrain
///            receiveTransaction                   (in the delivery context)
///   idle ───────────────────────────▶ scheduled ──────────────────────────▶ draining
///    │ ▲ ▲                                                                   ▲ │
///    │ │ └──────────── next() finds no event and no commit ◀─────────────────┼─┘
///    │ └────────────── endFold() finds no commit ◀─────────────────────────┐ │
///    │                                                                     │ │
///    ├── transactionEnded / receiveTransaction, drainsWhereRequested ──────┼─▶ draining (.drain)
///    ├── beginFold (a relation write folds its open events here) ──────────┴─▶ draining
///    └── beginFirstDrain (the initialiser builds the first content) ─────────▶ draining
/// ```
///
/// `endFold()` with a commit queued meanwhile requests a drain as `transactionEnded` does.
///
/// Transactions: the first event after a commit asks the caller to wait for the end of the
/// transaction open on its thread (``Action/awaitTransactionEnd``: Binding's
/// `_afterCurrentTransaction`); when it ends, ``transactionEnded()`` queues the commit. An event
/// that is a transaction of its own (a reconfiguration) is queued with its commit at once.
///
/// The owner's end: its deletion is an event of the transaction open on the announcing thread;
/// its deallocation is a transaction of its own, after which nothing is queued any more.
/// Whichever comes first decides; the other is ignored.
@usableFromInline
struct _Pipeline<Event> {
  @inlinable
  init() {}

  /// Where the drain is.
  @usableFromInline
  enum Phase: Equatable {
    /// Nobody drains and no drain is scheduled.
    case idle
    /// A drain is scheduled in the delivery context and has not begun.
    case scheduled
    /// A drainer folds events and delivers change sets; it is the only writer of the content.
    case draining
  }

  /// What the caller does after unlocking.
  @usableFromInline
  enum Action: Equatable {
    case none
    /// Ask Binding to tell the controller when the current transaction ends.
    case awaitTransactionEnd
    /// Run a drain in the delivery context (the phase is now `scheduled`).
    case scheduleDrain
    /// Drain now, on this thread (the phase is now `draining`: the caller is the drainer).
    case drain
  }

  /// One transaction's events, as the drainer takes them.
  @usableFromInline
  struct Transaction {
    /// The events, in order.
    @usableFromInline
    var events: [Event]
    /// Whether the transaction ended (its commit was taken with the events): the drainer then
    /// turns what the events changed into a change set. Without it, the events are folded and
    /// their commit comes later.
    @usableFromInline
    var isCommitted: Bool
    /// Whether the events were all the queue held: no event waited behind them when the
    /// drainer took them.
    @usableFromInline
    var isWholeQueue: Bool
    /// Events of earlier transactions that the queue let go of with this one, for the drainer
    /// to release outside the lock (releasing an event may run an element's deinit).
    @usableFromInline
    var spent: [Event]

    @inlinable
    init(
      events: [Event], isCommitted: Bool, isWholeQueue: Bool = true, spent: [Event] = []
    ) {
      self.events = events
      self.isCommitted = isCommitted
      self.isWholeQueue = isWholeQueue
      self.spent = spent
    }
  }

  // The queue is an array read from `_start`: taking a transaction from its front moves the
  // start instead of shifting the rest, and the taken prefix is cut off once it is half the
  // array, so a backlog of K transactions is taken in O(K) in all. The slots before `_start`
  // still hold their events until then; they are handed to the drainer (`spent`) to release.

  /// The queued events, in order, from `_start` (those before it were taken).
  @usableFromInline
  var _queue: [Event] = []
  /// Where the queued events begin in `_queue`.
  @usableFromInline
  var _start = 0
  /// How far `scanQueued(_:)` has read `_queue`: the events before were scanned already.
  @usableFromInline
  var _scanned = 0
  /// How many events each committed transaction in the queue holds, oldest first, from
  /// `_committedStart` (the events after them belong to the transaction still open).
  @usableFromInline
  var _committed: [Int] = []
  /// Where the committed transactions not taken yet begin in `_committed`.
  @usableFromInline
  var _committedStart = 0
  /// The events of the open transaction (queued after the last commit).
  @usableFromInline
  var _open = 0
  @usableFromInline
  private(set) var phase = Phase.idle
  /// Whether a transaction's end is awaited (an event came after the last commit).
  @usableFromInline
  var _awaitingEnd = false
  /// Whether whoever requests a drain runs it at once (synchronous delivery): the request then
  /// begins the drain (``Action/drain``) under the same lock, instead of scheduling it for a
  /// `beginDrain()` under another.
  @usableFromInline
  var drainsWhereRequested = false

  /// How the owner ended, if it did.
  @usableFromInline
  enum OwnerEnd: Equatable {
    /// The owner lives.
    case none
    /// The owner announced its deletion (its event is queued or folded).
    case deleted
    /// The owner was deallocated: nothing is queued any more.
    case deallocated
  }

  /// How the owner ended, if it did.
  @usableFromInline
  private(set) var ownerEnd = OwnerEnd.none

  /// Whether the owner was deallocated: events are dropped, nothing is observed any more.
  @inlinable
  var isOwnerGone: Bool { ownerEnd == .deallocated }

  /// Whether no event waits.
  @inlinable
  var isEmpty: Bool { _start == _queue.count }

  /// Whether a committed transaction waits.
  @inlinable
  var _hasCommitted: Bool { _committedStart < _committed.count }

  @inlinable
  mutating func _commit() {
    _committed.append(_open)
    _open = 0
  }

  /// Queues an event of the transaction open on the caller's thread (dropped once the owner
  /// is gone).
  @inlinable
  mutating func receive(_ event: Event) -> Action {
    guard ownerEnd != .deallocated else { return .none }
    _queue.append(event)
    _open += 1
    if _awaitingEnd { return .none }
    _awaitingEnd = true
    return .awaitTransactionEnd
  }

  /// Queues an event that is a transaction of its own, with its commit (dropped once the owner
  /// is gone).
  @inlinable
  mutating func receiveTransaction(_ event: Event) -> Action {
    guard ownerEnd != .deallocated else { return .none }
    _queue.append(event)
    _open += 1
    _commit()
    return _requestDrain()
  }

  /// The owner announced its deletion: `event` (which empties the content) joins the
  /// transaction open on the caller's thread, unless the owner ended already.
  @inlinable
  mutating func ownerDeleted(_ event: Event) -> Action {
    guard ownerEnd == .none else { return .none }
    ownerEnd = .deleted
    return receive(event)
  }

  /// The owner was deallocated: `event` is the last transaction, unless the owner ended
  /// already (its deletion decided).
  @inlinable
  mutating func ownerDeallocated(_ event: Event) -> Action {
    guard ownerEnd == .none else { return .none }
    let action = receiveTransaction(event)
    ownerEnd = .deallocated
    return action
  }

  /// A relation write: queues `event` and, if nobody drains and no drain is scheduled, makes
  /// the caller the drainer and hands it the open transaction's events to fold now
  /// (`folds`, with `endFold()` after). One lock trip for what `receive`, `beginFold` and
  /// `takeOpenEvents` do.
  @inlinable
  mutating func receiveAndFold(_ event: Event) -> (action: Action, folds: Bool, events: [Event]) {
    guard ownerEnd != .deallocated else { return (.none, false, []) }
    let action = receive(event)
    guard beginFold() else { return (action, false, []) }
    return (action, true, takeOpenEvents())
  }

  /// The awaited transaction ended: queues its commit.
  @inlinable
  mutating func transactionEnded() -> Action {
    _commit()
    _awaitingEnd = false
    return _requestDrain()
  }

  @inlinable
  mutating func _requestDrain() -> Action {
    guard phase == .idle else { return .none }
    if drainsWhereRequested {
      phase = .draining
      return .drain
    }
    phase = .scheduled
    return .scheduleDrain
  }

  /// The controller's initialiser drains first, before anyone can schedule a drain (an element
  /// watched while the initial content is built may already queue an event).
  @inlinable
  mutating func beginFirstDrain() {
    precondition(phase == .idle, "the first drain begins before anything else")
    phase = .draining
  }

  /// The caller folds the queued events now, as the drainer, if nobody drains and no drain is
  /// scheduled (`false` otherwise): a relation write's event holds the array, which the next
  /// in-place edit would have to copy while the event waits for the end of a `coalesce` block.
  @inlinable
  mutating func beginFold() -> Bool {
    guard phase == .idle else { return false }
    phase = .draining
    return true
  }

  /// The fold begun by `beginFold()` ended: what to do now (a commit that came meanwhile is
  /// drained as usual).
  @inlinable
  mutating func endFold() -> Action {
    precondition(phase == .draining, "only the folder ends its fold")
    phase = .idle
    guard _hasCommitted else { return .none }
    return _requestDrain()
  }

  /// Takes the events of the open transaction only (not those of committed ones), for a fold.
  @inlinable
  mutating func takeOpenEvents() -> [Event] {
    precondition(phase == .draining, "only the drainer takes events")
    // With no commit queued the taken prefix was cut off already (see `_take`): the queue
    // holds the open transaction's events alone.
    guard !_hasCommitted, !isEmpty else { return [] }
    assert(_start == 0, "the queue holds the open transaction's events alone")
    defer {
      _queue = []
      _scanned = 0
      _open = 0
    }
    return _queue
  }

  /// A scheduled drain begins; `false` if it has nothing to do (another drain is running).
  @inlinable
  mutating func beginDrain() -> Bool {
    guard phase == .scheduled else { return false }
    phase = .draining
    return true
  }

  /// The drainer takes the events up to the next commit (all of them if none is queued), or
  /// `nil` when the queue is empty: the drain is over.
  ///
  /// - Parameter spare: An empty array whose buffer becomes the queue's when the whole queue is
  ///   handed over, or when the queue is empty (the drainer's last transaction's, emptied), so
  ///   that a steady stream of one-event transactions allocates no queue.
  @inlinable
  mutating func next(recycling spare: inout [Event]) -> Transaction? {
    precondition(phase == .draining, "only the drainer takes events")
    guard !isEmpty || _hasCommitted else {
      phase = .idle
      // The next event of the next drain goes into the spare buffer.
      if spare.isEmpty && spare.capacity > _queue.capacity { swap(&_queue, &spare) }
      return nil
    }
    guard _hasCommitted else {
      // Only the open transaction's events: fold them now, commit later.
      let (events, spent) = _take(_queue.count - _start, recycling: &spare)
      _open = 0
      return Transaction(events: events, isCommitted: false, spent: spent)
    }
    let count = _committed[_committedStart]
    _committedStart += 1
    if _committedStart == _committed.count {
      _committed.removeAll(keepingCapacity: true)
      _committedStart = 0
    } else if _committedStart * 2 >= _committed.count {
      _committed.removeFirst(_committedStart)
      _committedStart = 0
    }
    let (events, spent) = _take(count, recycling: &spare)
    return Transaction(events: events, isCommitted: true, isWholeQueue: isEmpty, spent: spent)
  }

  /// Takes the first `count` queued events; `spent` holds the slots of earlier transactions
  /// that the queue let go of meanwhile (the caller releases them outside the lock).
  @inlinable
  mutating func _take(
    _ count: Int, recycling spare: inout [Event]
  ) -> (events: [Event], spent: [Event]) {
    if _start == 0 && count == _queue.count {
      // The common case, the whole queue: handed over without copying.
      var events: [Event] = []
      if spare.isEmpty { swap(&events, &spare) }  // moved, not shared: the queue owns it
      swap(&events, &_queue)
      _scanned = 0
      return (events, [])
    }
    let end = _start + count
    let events = Array(_queue[_start..<end])
    _start = end
    if _start == _queue.count {
      // Everything taken: the whole array goes to the drainer.
      var spent: [Event] = []
      swap(&spent, &_queue)
      _start = 0
      _scanned = 0
      return (events, spent)
    }
    guard _start * 2 >= _queue.count || !_hasCommitted else { return (events, []) }
    // The taken prefix is half the array, or only the open transaction's events remain (a
    // fold takes them from the start): cut off. The copy keeps the events alive until the
    // drainer releases it, so that no element's deinit runs here, under the lock.
    let spent = Array(_queue[..<_start])
    _queue.removeFirst(_start)
    _scanned = max(0, _scanned - _start)
    _start = 0
    return (events, spent)
  }

  /// `next(recycling:)` with no buffer to recycle.
  @inlinable
  mutating func next() -> Transaction? {
    var none: [Event] = []
    return next(recycling: &none)
  }

  /// Calls `body` with each queued event (of later transactions) that no call before was
  /// given, in order: over a backlog, each event is scanned once.
  @inlinable
  mutating func scanQueued(_ body: (Event) -> Void) {
    for event in _queue[max(_scanned, _start)...] { body(event) }
    _scanned = _queue.count
  }
}
