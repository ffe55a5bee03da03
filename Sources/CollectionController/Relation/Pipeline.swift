/// The relation controller's pipeline as a state machine: events in, transactions out, one
/// drainer at a time.
///
/// A value behind the controller's lock. Each method takes what happened and returns what the
/// caller must do once it has unlocked (``Action``); nothing here calls out, so no user code and
/// no scheduling ever runs under the lock.
///
/// ```
///            receive / transactionEnded            beginDrain
///   idle ───────────────────────────────▶ scheduled ──────────▶ draining
///    ▲                                                             │
///    └──────────────────── next() finds the queue empty ◀──────────┘
/// ```
///
/// Transactions: the first event after a commit asks the caller to wait for the end of the
/// transaction open on its thread (``Action/awaitTransactionEnd``: Binding's
/// `_afterCurrentTransaction`); when it ends, ``transactionEnded()`` queues the commit. An event
/// that is a transaction of its own (a reconfiguration) is queued with its commit at once.
struct _Pipeline<Event> {
  /// Where the drain is.
  enum Phase: Equatable {
    /// Nobody drains and no drain is scheduled.
    case idle
    /// A drain is scheduled in the delivery context and has not begun.
    case scheduled
    /// A drainer folds events and delivers change sets; it is the only writer of the content.
    case draining
  }

  /// What the caller does after unlocking.
  enum Action: Equatable {
    case none
    /// Ask Binding to tell the controller when the current transaction ends.
    case awaitTransactionEnd
    /// Run a drain in the delivery context (the phase is now `scheduled`).
    case scheduleDrain
  }

  /// One transaction's events, as the drainer takes them.
  struct Transaction {
    /// The events, in order.
    var events: [Event]
    /// Whether the transaction ended (its commit was taken with the events): the drainer then
    /// turns what the events changed into a change set. Without it, the events are folded and
    /// their commit comes later.
    var isCommitted: Bool
  }

  private enum _Entry {
    case event(Event)
    case commit
  }

  private(set) var phase = Phase.idle
  private var _queue: [_Entry] = []
  /// Whether a transaction's end is awaited (an event came after the last commit).
  private var _awaitingEnd = false

  /// Whether no event waits.
  var isEmpty: Bool { _queue.isEmpty }

  /// Queues an event of the transaction open on the caller's thread.
  mutating func receive(_ event: Event) -> Action {
    _queue.append(.event(event))
    if _awaitingEnd { return .none }
    _awaitingEnd = true
    return .awaitTransactionEnd
  }

  /// Queues an event that is a transaction of its own, with its commit.
  mutating func receiveTransaction(_ event: Event) -> Action {
    _queue.append(.event(event))
    _queue.append(.commit)
    return _requestDrain()
  }

  /// The awaited transaction ended: queues its commit.
  mutating func transactionEnded() -> Action {
    _queue.append(.commit)
    _awaitingEnd = false
    return _requestDrain()
  }

  private mutating func _requestDrain() -> Action {
    guard phase == .idle else { return .none }
    phase = .scheduled
    return .scheduleDrain
  }

  /// The controller's initialiser drains first, before anyone can schedule a drain (an element
  /// watched while the initial content is built may already queue an event).
  mutating func beginFirstDrain() {
    precondition(phase == .idle, "the first drain begins before anything else")
    phase = .draining
  }

  /// A scheduled drain begins; `false` if it has nothing to do (another drain is running).
  mutating func beginDrain() -> Bool {
    guard phase == .scheduled else { return false }
    phase = .draining
    return true
  }

  /// The drainer takes the events up to the next commit (all of them if none is queued), or
  /// `nil` when the queue is empty: the drain is over.
  mutating func next() -> Transaction? {
    precondition(phase == .draining, "only the drainer takes events")
    guard !_queue.isEmpty else {
      phase = .idle
      return nil
    }
    var events: [Event] = []
    var taken = 0
    var isCommitted = false
    for entry in _queue {
      taken += 1
      switch entry {
      case .event(let event): events.append(event)
      case .commit: isCommitted = true
      }
      if isCommitted { break }
    }
    _queue.removeFirst(taken)
    return Transaction(events: events, isCommitted: isCommitted)
  }

  /// Calls `body` with each queued event (of later transactions), in order.
  func forEachQueued(_ body: (Event) -> Void) {
    for case .event(let event) in _queue { body(event) }
  }
}
