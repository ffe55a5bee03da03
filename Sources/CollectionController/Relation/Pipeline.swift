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
///                       receive: joins the caller's thread's open transaction;
///                       its first event asks the caller to await the transaction's end
///
///            transactionEnded /                   beginDrain
///            receiveTransaction                   (in the delivery context)
///   idle ───────────────────────────▶ scheduled ──────────────────────────▶ draining
///    │ ▲ ▲                                                                   ▲ │
///    │ │ └──────────── next() finds no commit it may take ◀──────────────────┼─┘
///    │ └────────────── endFold() finds no commit it may take ◀─────────────┐ │
///    │                                                                     │ │
///    ├── transactionEnded / receiveTransaction, drainsWhereRequested ──────┼─▶ draining (.drain)
///    ├── beginFold (a relation write folds its open events here) ──────────┴─▶ draining
///    └── beginFirstDrain (the initialiser builds the first content) ─────────▶ draining
/// ```
///
/// `endFold()` with a commit queued meanwhile requests a drain as `transactionEnded` does.
///
/// Transactions are kept per thread, as Binding keeps them: an event joins the transaction open
/// on the thread that queued it, and the first one asks the caller to wait for that
/// transaction's end (``Action/awaitTransactionEnd``: Binding's `_afterCurrentTransaction`);
/// when it ends, ``transactionEnded(on:)`` commits that thread's events alone. A write on one
/// thread therefore never joins, closes or splits a transaction open on another. An event that
/// is a transaction of its own (a reconfiguration) commits with the events open on its thread.
///
/// A fold (a relation write's events applied before their transaction ends, see `beginFold`)
/// puts that thread's changes in the content before its commit: until it commits, the commits
/// of other threads wait (each would otherwise report the folded changes too), and its commit
/// goes before them.
///
/// The owner's end: its deletion is an event of the transaction open on the announcing thread;
/// its deallocation is a transaction of its own, with every open transaction, after which
/// nothing is queued any more. Whichever comes first decides; the other is ignored.
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

  /// One committed transaction's events, as the drainer takes them: it folds them and turns
  /// what they changed into a change set.
  @usableFromInline
  struct Transaction {
    /// The events, in order.
    @usableFromInline
    var events: [Event]
    /// Whether the events were all that waited: no event, committed or open, waited behind
    /// them when the drainer took them.
    @usableFromInline
    var isWholeQueue: Bool
    /// Events of earlier transactions that the queue let go of with this one, for the drainer
    /// to release outside the lock (releasing an event may run an element's deinit).
    @usableFromInline
    var spent: [Event]

    @inlinable
    init(events: [Event], isWholeQueue: Bool = true, spent: [Event] = []) {
      self.events = events
      self.isWholeQueue = isWholeQueue
      self.spent = spent
    }
  }

  /// A thread's open transaction: the events it queued since its last commit.
  @usableFromInline
  struct _Open {
    /// The thread (Binding's `_currentThreadKey()`).
    @usableFromInline
    let thread: UInt
    @usableFromInline
    var events: [Event]
    /// How many of `events` `scanQueued(_:)` has read.
    @usableFromInline
    var scanned = 0

    @inlinable
    init(thread: UInt, events: [Event]) {
      self.thread = thread
      self.events = events
    }
  }

  // The committed events are an array read from `_start`: taking a transaction from its front
  // moves the start instead of shifting the rest, and the taken prefix is cut off once it is
  // half the array, so a backlog of K transactions is taken in O(K) in all. The slots before
  // `_start` still hold their events until then; they are handed to the drainer (`spent`).

  /// The committed events, in order, from `_start` (those before it were taken).
  @usableFromInline
  var _queue: [Event] = []
  /// Where the committed events begin in `_queue`.
  @usableFromInline
  var _start = 0
  /// How far `scanQueued(_:)` has read `_queue`: the events before were scanned already.
  @usableFromInline
  var _scanned = 0
  /// How many events each committed transaction holds, oldest first, from `_committedStart`.
  @usableFromInline
  var _committed: [Int] = []
  /// Where the committed transactions not taken yet begin in `_committed`.
  @usableFromInline
  var _committedStart = 0
  /// The open transactions, one per thread that queued an event since its transaction's end
  /// was awaited (usually one, or none).
  @usableFromInline
  var _opens: [_Open] = []
  /// An empty buffer for the next open transaction's events (buffers go round: an open
  /// transaction's becomes the queue's at its commit, the drainer's at its take, this one at
  /// the drain's end), so that a steady stream of one-event transactions allocates none.
  @usableFromInline
  var _spareEvents: [Event] = []
  /// The thread whose open transaction was folded into the content (see `beginFold()`): until
  /// it commits, no other commit is taken, and its commit goes before them.
  @usableFromInline
  var _foldedBy: UInt?
  @usableFromInline
  private(set) var phase = Phase.idle
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

  /// Whether no event waits, committed or open on any thread.
  @inlinable
  var isEmpty: Bool { _start == _queue.count && _opens.allSatisfy { $0.events.isEmpty } }

  /// Whether a committed transaction waits.
  @inlinable
  var _hasCommitted: Bool { _committedStart < _committed.count }

  /// Whether the drainer may take a committed transaction: one waits, and no fold holds it.
  @inlinable
  var _hasTakeable: Bool { _hasCommitted && _foldedBy == nil }

  /// The open transaction of `thread`, if it has one.
  @inlinable
  func _open(of thread: UInt) -> Int? {
    for index in _opens.indices where _opens[index].thread == thread { return index }
    return nil
  }

  /// Commits the open transaction at `index`: its events become a committed transaction, after
  /// the others, or before them if it was folded (the content holds its changes already).
  /// `keepsOpen`: its end is still awaited (a transaction of its own joined it).
  @inlinable
  mutating func _commitOpen(at index: Int, keepsOpen: Bool) {
    var events: [Event] = []
    swap(&events, &_opens[index].events)
    let scanned = _opens[index].scanned
    let thread = _opens[index].thread
    if keepsOpen { _opens[index].scanned = 0 } else { _opens.remove(at: index) }
    let count = events.count
    let folded = _foldedBy == thread
    if folded { _foldedBy = nil }
    if folded && _hasCommitted {
      // Before the commits the fold held back (they are scanned again: rarely).
      _queue.insert(contentsOf: events, at: _start)
      _committed.insert(count, at: _committedStart)
      _scanned = _start
    } else if _start == _queue.count {
      // Nothing committed waits (the queue is empty and starts at 0, see `_take`): the
      // events' buffer becomes the queue's, and the queue's empty one the spare.
      swap(&events, &_queue)
      _scanned = scanned
      _committed.append(count)
    } else {
      if _scanned == _queue.count { _scanned += scanned }
      _queue.append(contentsOf: events)
      events.removeAll(keepingCapacity: true)  // copies: the queue holds them
      _committed.append(count)
    }
    if events.isEmpty && events.capacity > _spareEvents.capacity { swap(&events, &_spareEvents) }
  }

  /// Queues an event of the transaction open on `thread`, the caller's (dropped once the owner
  /// is gone).
  @inlinable
  mutating func receive(_ event: Event, on thread: UInt) -> Action {
    guard ownerEnd != .deallocated else { return .none }
    if let index = _open(of: thread) {
      _opens[index].events.append(event)
      return .none
    }
    var events: [Event] = []
    swap(&events, &_spareEvents)
    events.append(event)
    _opens.append(_Open(thread: thread, events: events))
    return .awaitTransactionEnd
  }

  /// Queues an event that is a transaction of its own, committed at once with the events open
  /// on `thread`, the caller's (dropped once the owner is gone). That thread's transaction still
  /// ends later: its end commits what it queues meanwhile.
  @inlinable
  mutating func receiveTransaction(_ event: Event, on thread: UInt) -> Action {
    guard ownerEnd != .deallocated else { return .none }
    if let index = _open(of: thread) {
      _opens[index].events.append(event)
      _commitOpen(at: index, keepsOpen: true)
    } else {
      _opens.append(_Open(thread: thread, events: [event]))
      _commitOpen(at: _opens.count - 1, keepsOpen: false)
    }
    return _requestDrain()
  }

  /// The owner announced its deletion: `event` (which empties the content) joins the
  /// transaction open on `thread`, the caller's, unless the owner ended already.
  @inlinable
  mutating func ownerDeleted(_ event: Event, on thread: UInt) -> Action {
    guard ownerEnd == .none else { return .none }
    ownerEnd = .deleted
    return receive(event, on: thread)
  }

  /// The owner was deallocated: `event` is the last transaction, with every open one (nothing
  /// is reported after it), unless the owner ended already (its deletion decided).
  @inlinable
  mutating func ownerDeallocated(_ event: Event) -> Action {
    guard ownerEnd == .none else { return .none }
    // One transaction: what was open on any thread is not reported on its own either.
    var count = 1
    for open in _opens {
      _queue.append(contentsOf: open.events)
      count += open.events.count
    }
    _opens = []
    _foldedBy = nil
    _queue.append(event)
    _committed.append(count)
    ownerEnd = .deallocated
    return _requestDrain()
  }

  /// A relation write on `thread`: queues `event` and, if nobody drains and no drain is
  /// scheduled, makes the caller the drainer and hands it its open transaction's events to
  /// fold now (`folds`, with `endFold()` after). One lock trip for what `receive`, `beginFold`
  /// and `takeOpenEvents` do.
  @inlinable
  mutating func receiveAndFold(
    _ event: Event, on thread: UInt
  ) -> (action: Action, folds: Bool, events: [Event]) {
    guard ownerEnd != .deallocated else { return (.none, false, []) }
    let action = receive(event, on: thread)
    guard beginFold() else { return (action, false, []) }
    return (action, true, takeOpenEvents(of: thread))
  }

  /// The transaction open on `thread`, the caller's, ended: commits its events.
  @inlinable
  mutating func transactionEnded(on thread: UInt) -> Action {
    guard let index = _open(of: thread) else { return .none }
    _commitOpen(at: index, keepsOpen: false)
    return _hasTakeable ? _requestDrain() : .none
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

  /// The caller folds events now, as the drainer, if nobody drains and no drain is scheduled
  /// (`false` otherwise): a relation write's event holds the array, which the next in-place
  /// edit would have to copy while the event waits for the end of a `coalesce` block.
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
    guard _hasTakeable else { return .none }
    return _requestDrain()
  }

  /// Takes the events open on `thread`, the folder's, to fold before their commit, unless a
  /// commit waits that another fold does not hold (its change set must not hold them): the
  /// fold then holds back every other thread's commit until this thread's.
  @inlinable
  mutating func takeOpenEvents(of thread: UInt) -> [Event] {
    precondition(phase == .draining, "only the drainer takes events")
    guard _foldedBy == nil ? !_hasCommitted : _foldedBy == thread,
      let index = _open(of: thread), !_opens[index].events.isEmpty
    else { return [] }
    _foldedBy = thread
    _opens[index].scanned = 0
    var events: [Event] = []
    swap(&events, &_opens[index].events)
    return events
  }

  /// A scheduled drain begins; `false` if it has nothing to do (another drain is running).
  @inlinable
  mutating func beginDrain() -> Bool {
    guard phase == .scheduled else { return false }
    phase = .draining
    return true
  }

  /// The drainer takes the next committed transaction, or `nil` when none may be taken (none
  /// waits, or a fold holds them): the drain is over.
  ///
  /// - Parameter spare: An empty array whose buffer becomes the queue's when the whole queue is
  ///   handed over, or the next open transaction's when the drain ends (the drainer's last
  ///   transaction's, emptied), so that a steady stream of one-event transactions allocates no
  ///   queue.
  @inlinable
  mutating func next(recycling spare: inout [Event]) -> Transaction? {
    precondition(phase == .draining, "only the drainer takes events")
    guard _hasTakeable else {
      phase = .idle
      // The next event of the next drain goes into the spare buffer.
      if spare.isEmpty && spare.capacity > _spareEvents.capacity { swap(&_spareEvents, &spare) }
      return nil
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
    return Transaction(events: events, isWholeQueue: isEmpty, spent: spent)
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
    guard _start * 2 >= _queue.count else { return (events, []) }
    // The taken prefix is half the array: cut off. The copy keeps the events alive until the
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

  /// Calls `body` with each waiting event (of later transactions, committed or open) that no
  /// call before was given: over a backlog, each event is scanned once (twice at most, when
  /// its transaction commits between two scans).
  @inlinable
  mutating func scanQueued(_ body: (Event) -> Void) {
    for event in _queue[max(_scanned, _start)...] { body(event) }
    _scanned = _queue.count
    for index in _opens.indices {
      for event in _opens[index].events[_opens[index].scanned...] { body(event) }
      _opens[index].scanned = _opens[index].events.count
    }
  }
}
