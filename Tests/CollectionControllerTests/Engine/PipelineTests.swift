import TestSupport
import Testing

@testable import CollectionController

/// The relation controller's pipeline as a state machine: each method's returned action, the
/// phases, and which events a drainer takes with which commit.
@Suite struct PipelineTests {}

extension PipelineTests {
  @Test func theFirstEventOfATransactionWaitsForItsEnd() {
    var pipeline = _Pipeline<Int>()
    let step1 = pipeline.receive(1, on: 1)
    #expect(step1 == .awaitTransactionEnd)
    let step2 = pipeline.receive(2, on: 1)
    #expect(step2 == .none)  // the end is awaited already
    #expect(pipeline.phase == .idle)
    let step3 = pipeline.transactionEnded(on: 1)
    #expect(step3 == .scheduleDrain)
    #expect(pipeline.phase == .scheduled)
    let step4 = pipeline.beginDrain()
    #expect(step4)
    #expect(pipeline.phase == .draining)
    let transaction = pipeline.next()
    #expect(transaction?.events == [1, 2])
    let step5 = pipeline.next()
    #expect(step5 == nil)
    #expect(pipeline.phase == .idle)
    #expect(pipeline.isEmpty)
  }

  @Test func aPipelineThatDrainsWhereRequestedBeginsTheDrainAtOnce() {
    var pipeline = _Pipeline<Int>()
    pipeline.drainsWhereRequested = true
    _ = pipeline.receive(1, on: 1)
    let step1 = pipeline.transactionEnded(on: 1)
    #expect(step1 == .drain)
    #expect(pipeline.phase == .draining)  // the caller is the drainer: no `beginDrain()`
    // Another transaction's end while it drains: the same drain takes it.
    _ = pipeline.receive(2, on: 1)
    let step2 = pipeline.transactionEnded(on: 1)
    #expect(step2 == .none)
    let first = pipeline.next()
    #expect(first?.events == [1])
    let second = pipeline.next()
    #expect(second?.events == [2])
    let end = pipeline.next()
    #expect(end == nil)
    #expect(pipeline.phase == .idle)
    // A transaction of its own, and a fold's end with a commit, begin a drain the same way.
    let step3 = pipeline.receiveTransaction(3, on: 1)
    #expect(step3 == .drain)
    let own = pipeline.next()
    #expect(own?.events == [3])
    let ownEnd = pipeline.next()
    #expect(ownEnd == nil)
    let folds = pipeline.beginFold()
    #expect(folds)
    _ = pipeline.receive(4, on: 1)
    _ = pipeline.transactionEnded(on: 1)
    let step4 = pipeline.endFold()
    #expect(step4 == .drain)
    #expect(pipeline.phase == .draining)
  }

  @Test func aDrainIsScheduledOnceAndOnlyTheScheduledOneRuns() {
    var pipeline = _Pipeline<Int>()
    _ = pipeline.receive(1, on: 1)
    let step6 = pipeline.transactionEnded(on: 1)
    #expect(step6 == .scheduleDrain)
    _ = pipeline.receive(2, on: 1)
    let step7 = pipeline.transactionEnded(on: 1)
    #expect(step7 == .none)  // a drain is scheduled already
    let step8 = pipeline.beginDrain()
    #expect(step8)
    let step9 = pipeline.beginDrain()
    #expect(!step9)  // a second job finds the drain running
    let step10 = pipeline.next()
    #expect(step10?.events == [1])
    #expect(step10?.isWholeQueue == false)  // 2 waits behind it
    let step11 = pipeline.next()
    #expect(step11?.events == [2])
    #expect(step11?.isWholeQueue == true)
    let step12 = pipeline.next()
    #expect(step12 == nil)
  }

  /// Events that arrive while the drainer runs (a receiver's change) wait for their own
  /// transaction's end: the drainer takes committed transactions only.
  @Test func eventsOfAnOpenTransactionWaitForItsEnd() {
    var pipeline = _Pipeline<Int>()
    _ = pipeline.receive(1, on: 1)
    _ = pipeline.transactionEnded(on: 1)
    let step13 = pipeline.beginDrain()
    #expect(step13)
    let step14 = pipeline.next()
    #expect(step14?.events == [1])
    let step15 = pipeline.receive(2, on: 1)
    #expect(step15 == .awaitTransactionEnd)  // a receiver's change
    #expect(!pipeline.isEmpty)
    let step16 = pipeline.next()
    #expect(step16 == nil)  // the drain ends; the commit has not come yet
    let step17 = pipeline.transactionEnded(on: 1)
    #expect(step17 == .scheduleDrain)
    let step18 = pipeline.beginDrain()
    #expect(step18)
    let commit = pipeline.next()
    #expect(commit?.events == [2])
    let step19 = pipeline.next()
    #expect(step19 == nil)
  }

  /// Coalescing is per thread: a thread's events join its own open transaction only, and
  /// each thread's end commits its events alone, whatever the order of the ends.
  @Test func eachThreadsTransactionIsCommittedAlone() {
    var pipeline = _Pipeline<Int>()
    #expect(pipeline.receive(1, on: 1) == .awaitTransactionEnd)  // thread 1 opens a block
    #expect(pipeline.receive(2, on: 2) == .awaitTransactionEnd)  // thread 2 too
    #expect(pipeline.receive(3, on: 1) == .none)
    #expect(pipeline.receive(4, on: 2) == .none)
    #expect(pipeline.transactionEnded(on: 2) == .scheduleDrain)  // 2's block ends first
    #expect(pipeline.transactionEnded(on: 3) == .none)  // nothing open on 3
    let began = pipeline.beginDrain()
    #expect(began)
    let second = pipeline.next()
    #expect(second?.events == [2, 4])
    #expect(second?.isWholeQueue == false)  // thread 1's events wait
    let paused = pipeline.next()
    #expect(paused == nil)
    #expect(pipeline.transactionEnded(on: 1) == .scheduleDrain)
    _ = pipeline.beginDrain()
    let first = pipeline.next()
    #expect(first?.events == [1, 3])
    #expect(first?.isWholeQueue == true)
  }

  /// A fold puts one thread's open events in the content before their commit: another
  /// thread's commit waits until that one, which goes first, so that neither change set
  /// reports the other's changes.
  @Test func aFoldHoldsOtherThreadsCommitsUntilItsOwn() {
    var pipeline = _Pipeline<Int>()
    let fold = pipeline.receiveAndFold(1, on: 1)
    #expect(fold.folds && fold.events == [1])
    #expect(pipeline.endFold() == .none)
    _ = pipeline.receive(2, on: 2)
    #expect(pipeline.transactionEnded(on: 2) == .none)  // held
    // The folding thread folds again: its own later events may.
    let again = pipeline.receiveAndFold(3, on: 1)
    #expect(again.folds && again.events == [3])
    #expect(pipeline.endFold() == .none)
    // Another thread may not fold while the first's fold is held.
    let other = pipeline.receiveAndFold(4, on: 2)
    #expect(other.folds && other.events.isEmpty)
    #expect(pipeline.endFold() == .none)
    _ = pipeline.receive(5, on: 1)
    #expect(pipeline.transactionEnded(on: 1) == .scheduleDrain)
    _ = pipeline.beginDrain()
    let first = pipeline.next()
    #expect(first?.events == [5])  // the fold's commit, before the held one
    let second = pipeline.next()
    #expect(second?.events == [2])
    let paused = pipeline.next()
    #expect(paused == nil)  // 4 is open on thread 2
    #expect(pipeline.transactionEnded(on: 2) == .scheduleDrain)
    _ = pipeline.beginDrain()
    let third = pipeline.next()
    #expect(third?.events == [4])
  }

  @Test func aTransactionOfItsOwnIsCommittedAtOnceAfterWhatCameBefore() {
    var pipeline = _Pipeline<Int>()
    _ = pipeline.receive(1, on: 1)  // an open transaction
    let step20 = pipeline.receiveTransaction(2, on: 1)
    #expect(step20 == .scheduleDrain)
    let step21 = pipeline.beginDrain()
    #expect(step21)
    let step22 = pipeline.next()
    #expect(step22?.events == [1, 2])  // what was open goes with it
    _ = pipeline.receive(3, on: 1)
    var seen: [Int] = []
    pipeline.scanQueued { seen.append($0) }
    #expect(seen == [3])
    pipeline.scanQueued { seen.append($0) }
    #expect(seen == [3])  // scanned once
    // The transaction of 1 still ends later: its end commits what came since.
    let step23 = pipeline.transactionEnded(on: 1)
    #expect(step23 == .none)
    let last = pipeline.next()
    #expect(last?.events == [3])
  }

  /// A backlog of one-event transactions (writes made while the delivery context is busy),
  /// taken one by one with a scan of what waits after each, as the drainer does.
  private func drainBacklog(of count: Int) -> (taken: [Int], scanned: Int, spent: Int) {
    var pipeline = _Pipeline<Int>()
    for event in 0..<count {
      _ = pipeline.receive(event, on: 1)
      _ = pipeline.transactionEnded(on: 1)
    }
    _ = pipeline.receive(count, on: 2)  // an open transaction behind the backlog
    let began = pipeline.beginDrain()
    #expect(began)
    var taken: [Int] = []
    var scanned = 0
    var spent = 0
    while let transaction = pipeline.next() {
      #expect(transaction.events.count == 1)
      taken += transaction.events
      spent += transaction.spent.count
      pipeline.scanQueued { _ in scanned += 1 }
    }
    return (taken, scanned, spent)
  }

  @Test func aBacklogIsTakenInOrderAndEachWaitingEventIsScannedOnce() {
    let (taken, scanned, spent) = drainBacklog(of: 1_000)
    #expect(taken == Array(0..<1_000))  // the open transaction waits for its end
    // Scanning all that waits after each transaction read 500,500 events.
    #expect(scanned == 1_000)  // 999 committed, 1 open
    // Every taken slot but the last is handed back exactly once, to be released outside the
    // lock; the last goes with the array, taken whole.
    #expect(spent == 999)
  }

  @Test func aTransactionTakenFromTheMiddleOfTheQueueLeavesTheRestInOrder() {
    var pipeline = _Pipeline<Int>()
    for event in 0..<3 {
      _ = pipeline.receive(event, on: 1)
      _ = pipeline.transactionEnded(on: 1)
    }
    _ = pipeline.receive(3, on: 1)
    _ = pipeline.receive(4, on: 1)
    let began = pipeline.beginDrain()
    #expect(began)
    let first = pipeline.next()
    #expect(first?.isWholeQueue == false)
    _ = pipeline.receive(5, on: 1)  // joins the open transaction
    var seen: [Int] = []
    pipeline.scanQueued { seen.append($0) }
    #expect(seen == [1, 2, 3, 4, 5])
    let second = pipeline.next()
    #expect(second?.events == [1])
    _ = pipeline.transactionEnded(on: 1)
    let third = pipeline.next()
    #expect(third?.events == [2])
    let last = pipeline.next()
    #expect(last?.events == [3, 4, 5])
    #expect(last?.isWholeQueue == true)
    let end = pipeline.next()
    #expect(end == nil)
    #expect(pipeline.isEmpty)
  }

  @Test func aFoldAfterABacklogTakesTheOpenEventsAlone() {
    var pipeline = _Pipeline<Int>()
    for event in 0..<4 {
      _ = pipeline.receive(event, on: 1)
      _ = pipeline.transactionEnded(on: 1)
    }
    _ = pipeline.receive(4, on: 1)
    let began = pipeline.beginDrain()
    #expect(began)
    for expected in 0..<4 {
      let transaction = pipeline.next()
      #expect(transaction?.events == [expected])
    }
    // The drain pauses here as a fold would find it: only the open event waits.
    let open = pipeline.takeOpenEvents(of: 1)
    #expect(open == [4])
    #expect(pipeline.isEmpty)
  }

  @Test func theFirstDrainBeginsBeforeAnythingElse() {
    var pipeline = _Pipeline<Int>()
    pipeline.beginFirstDrain()
    #expect(pipeline.phase == .draining)
    _ = pipeline.receive(1, on: 1)
    let step24 = pipeline.transactionEnded(on: 1)
    #expect(step24 == .none)  // the first drain takes it
    let step25 = pipeline.next()
    #expect(step25?.events == [1])
    let step26 = pipeline.next()
    #expect(step26 == nil)
    #expect(pipeline.phase == .idle)
  }
}

/// Order labels: a label between neighbours, relabeling a window when there is no room, and
/// the labels of a whole new array between the kept ones, always in array order.
@Suite struct OrderLabelsTests {}

extension OrderLabelsTests {
  @Test func aLabelGoesBetweenItsNeighbours() {
    let labels: [UInt64] = [100, 0, 200]
    let neighbourhood = _OrderLabels.Neighbourhood(count: 3) { labels[$0] }
    #expect(neighbourhood.between(around: 1) == 150)
    let full = _OrderLabels.Neighbourhood(count: 3) { [100, 0, 101][$0] }
    #expect(full.between(around: 1) == nil)
  }

  @Test func relabelingSpreadsAWindowInOrder() {
    var labels: [UInt64] = [10, 11, 0, 12, 13]
    let neighbourhood = _OrderLabels.Neighbourhood(count: labels.count) { labels[$0] }
    let (label, others) = neighbourhood.relabel(around: 2)
    labels[2] = label
    for (offset, new) in others { labels[offset] = new }
    #expect(labels == labels.sorted())
    #expect(Set(labels).count == labels.count)
  }

  /// Random inserts into an array keep the labels strictly increasing, with relabeling.
  @Test func randomInsertsKeepLabelsInOrder() {
    var rng = SplitMix64(seed: 42)  // seeded: a failure replays
    var labels: [UInt64] = []
    for _ in 0..<3_000 {
      let index = Int.random(in: 0...labels.count, using: &rng)
      labels.insert(0, at: index)
      let snapshot = labels
      let neighbourhood = _OrderLabels.Neighbourhood(count: snapshot.count) { snapshot[$0] }
      if let label = neighbourhood.between(around: index) {
        labels[index] = label
      } else {
        let (label, others) = neighbourhood.relabel(around: index)
        labels[index] = label
        for (offset, new) in others { labels[offset] = new }
      }
    }
    #expect(zip(labels, labels.dropFirst()).allSatisfy { $0 < $1 })
  }

  @Test func newElementsGoBetweenTheKeptOnes() throws {
    // New array: [kept 100, new, new, kept 400, new]
    let placed = try #require(
      _OrderLabels.between(kept: [true, true], retained: [0, 3], labels: [100, 400], count: 5))
    #expect(placed.map(\.offset) == [1, 2, 4])
    let all = [100, placed[0].label, placed[1].label, 400, placed[2].label]
    #expect(zip(all, all.dropFirst()).allSatisfy { $0 < $1 })
    // No room between two kept labels: everything is relabeled instead.
    #expect(
      _OrderLabels.between(kept: [true, true], retained: [0, 2], labels: [100, 101], count: 3)
        == nil)
  }

  /// `between`, on random arrays with runs of new elements at the start, the end and between,
  /// retained elements not kept, and gaps with and without room, against what it promises
  /// (checked gap by gap, not by a second copy of its walk): it refuses exactly when some gap
  /// between kept labels (0 before the first, `UInt64.max` after the last) leaves fewer than 2
  /// per element to place; otherwise it places every offset that is not kept, in order, with
  /// labels that keep the whole array strictly increasing.
  @Test func betweenPlacesEveryElementNotKeptInOrderOrRefusesWhenAGapIsFull() {
    var rng = SplitMix64(seed: 7)  // seeded: a failure replays
    var placedSome = 0
    var refused = 0
    for _ in 0..<2_000 {
      let count = Int.random(in: 0...40, using: &rng)
      let retained = (0..<count).filter { _ in Int.random(in: 0..<4, using: &rng) != 0 }
      let keep = retained.map { _ in Int.random(in: 0..<5, using: &rng) != 0 }
      // Increasing labels, tightly packed sometimes, so that some gaps have no room.
      let spacing = UInt64.random(in: 1...1_000, using: &rng)
      var label: UInt64 = UInt64.random(in: 0...10, using: &rng)
      let labels = retained.map { _ in
        label += UInt64.random(in: 1...spacing, using: &rng)
        return label
      }
      var keptLabel: [Int: UInt64] = [:]  // offset → label, for the kept elements
      for (k, offset) in retained.enumerated() where keep[k] { keptLabel[offset] = labels[k] }
      // The gaps: the number of elements to place between two kept labels.
      var fullGap = false
      var (low, waiting) = (UInt64(0), 0)
      for offset in 0..<count {
        if let high = keptLabel[offset] {
          if waiting > 0 && (high <= low || (high - low) / UInt64(waiting + 1) < 2) {
            fullGap = true
          }
          (low, waiting) = (high, 0)
        } else {
          waiting += 1
        }
      }
      if waiting > 0 && (UInt64.max - low) / UInt64(waiting + 1) < 2 { fullGap = true }

      let placed = _OrderLabels.between(
        kept: keep, retained: retained, labels: labels, count: count)
      #expect((placed == nil) == fullGap)
      if let placed {
        #expect(placed.map(\.offset) == (0..<count).filter { keptLabel[$0] == nil })
        var all = keptLabel
        for (offset, label) in placed { all[offset] = label }
        let inOrder = (0..<count).compactMap { all[$0] }
        #expect(inOrder.count == count)
        #expect(zip(inOrder, inOrder.dropFirst()).allSatisfy { $0 < $1 })
        if !placed.isEmpty { placedSome += 1 }
      } else {
        refused += 1
      }
    }
    // Both outcomes were exercised.
    #expect(placedSome > 50)
    #expect(refused > 50)
  }
}

extension PipelineTests {
  /// Buffers go round, moved and never shared: the drainer hands back the buffer of the events
  /// it folded; at the drain's end it becomes the next open transaction's, which becomes the
  /// queue's at its commit, which the drainer takes whole. A non-empty spare is never taken
  /// (it would lose events).
  @Test func aSpareBufferGoesRound() {
    func base(_ array: [Int]) -> UnsafeRawPointer? {
      array.withUnsafeBufferPointer { $0.baseAddress.map { UnsafeRawPointer($0) } }
    }
    var pipeline = _Pipeline<Int>()
    _ = pipeline.receiveTransaction(1, on: 1)
    _ = pipeline.beginDrain()
    let first = pipeline.next()
    #expect(first?.events == [1])
    // The drainer empties the events it folded and hands them back at the drain's end.
    var spare = first?.events ?? []
    spare.removeAll(keepingCapacity: true)
    let spareBase = base(spare)
    let end = pipeline.next(recycling: &spare)
    #expect(end == nil)
    #expect(spareBase != nil && base(pipeline._spareEvents) == spareBase)
    _ = pipeline.receive(2, on: 1)
    #expect(base(pipeline._opens[0].events) == spareBase, "the event went into the spare")
    _ = pipeline.transactionEnded(on: 1)
    #expect(base(pipeline._queue) == spareBase, "the open events became the queue")
    _ = pipeline.beginDrain()
    var none: [Int] = []
    let second = pipeline.next(recycling: &none)
    #expect(second?.events == [2])
    #expect(second.map { base($0.events) } == spareBase, "taken whole, not copied")
    // A spare that still holds events is left to its owner.
    var full = [7]
    #expect(pipeline.next(recycling: &full) == nil)
    #expect(full == [7])
  }
}

extension PipelineTests {
  @Test func theOwnersDeletionIsAnEventOfTheOpenTransaction() {
    var pipeline = _Pipeline<Int>()
    let step1 = pipeline.ownerDeleted(-1, on: 1)
    #expect(step1 == .awaitTransactionEnd)
    #expect(pipeline.ownerEnd == .deleted)
    // Whichever end comes first decides: a deallocation after it queues nothing.
    let step2 = pipeline.ownerDeallocated(-2)
    #expect(step2 == .none)
    #expect(pipeline.ownerEnd == .deleted)
    _ = pipeline.transactionEnded(on: 1)
    _ = pipeline.beginDrain()
    let transaction = pipeline.next()
    #expect(transaction?.events == [-1])
  }

  @Test func afterTheOwnersDeallocationNothingIsQueued() {
    var pipeline = _Pipeline<Int>()
    _ = pipeline.receive(1, on: 1)
    let step1 = pipeline.ownerDeallocated(-2)
    #expect(step1 == .scheduleDrain)  // a transaction of its own, with what was open
    #expect(pipeline.isOwnerGone)
    let step2 = pipeline.receive(3, on: 1)
    #expect(step2 == .none)
    let step3 = pipeline.receiveTransaction(4, on: 1)
    #expect(step3 == .none)
    let step4 = pipeline.ownerDeleted(-1, on: 1)
    #expect(step4 == .none)
    let step5 = pipeline.receiveAndFold(5, on: 1)
    #expect(step5.action == .none && !step5.folds && step5.events.isEmpty)
    _ = pipeline.beginDrain()
    let last = pipeline.next()
    #expect(last?.events == [1, -2])
    let end = pipeline.next()
    #expect(end == nil)
  }

  @Test func aRelationWriteFoldsItsOpenTransactionInOneStep() {
    var pipeline = _Pipeline<Int>()
    let first = pipeline.receiveAndFold(1, on: 1)
    #expect(first.action == .awaitTransactionEnd)
    #expect(first.folds)
    #expect(first.events == [1])
    #expect(pipeline.phase == .draining)
    let end = pipeline.endFold()
    #expect(end == .none)  // no commit yet
    // While a drain is scheduled, a write is only queued.
    _ = pipeline.transactionEnded(on: 1)
    #expect(pipeline.phase == .scheduled)
    let second = pipeline.receiveAndFold(2, on: 1)
    #expect(second.action == .awaitTransactionEnd)
    #expect(!second.folds && second.events.isEmpty)
    #expect(pipeline.phase == .scheduled)
  }
}
