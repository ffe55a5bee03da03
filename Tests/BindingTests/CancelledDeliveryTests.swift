import Binding
import Dispatch
import Foundation
import Testing

/// Cancel means never again, on every route: a delivery queued for the main actor or a queue
/// before `cancel()`, `removeTarget` or `unbind` returned re-checks the registration when its
/// turn comes, and does not run (issue 13, item 2: each of these heard the change before).
@Suite struct CancelledDeliveryTests {}

/// Lets the main queue run everything queued on it so far.
@MainActor
private func drainMainQueue() async {
  await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
    DispatchQueue.main.async { continuation.resume() }
  }
}

/// Writes `user.name` on another thread while the main actor waits, so that the main-actor
/// delivery is queued behind the caller.
@MainActor
private func renameFromAnotherThreadWhileMainWaits(_ user: User, to name: String) {
  let handoff = Handoff(user)
  DispatchQueue.global().sync { handoff.value.name = name }
}

extension CancelledDeliveryTests {
  @MainActor
  @Test func aMainActorDeliveryQueuedBeforeCancelDoesNotRun() async {
    let user = User()
    var heard: [String] = []
    let token = user.observe(\.name) { heard.append($0.newValue) }  // main-actor route
    renameFromAnotherThreadWhileMainWaits(user, to: "queued")
    token.cancel()
    await drainMainQueue()
    #expect(heard.isEmpty)
    // Control: without the cancel the same write is heard.
    let heardToken = user.observe(\.name) { heard.append($0.newValue) }
    renameFromAnotherThreadWhileMainWaits(user, to: "heard")
    await drainMainQueue()
    #expect(heard == ["heard"])
    heardToken.cancel()
  }

  @MainActor
  @Test func aMainActorTargetRemovedBeforeItsQueuedDeliveryHearsNothing() async {
    let user = User()
    let controller = ProfileViewController()
    user.addTarget(controller, for: \.name) { controller, change in
      controller.record(change.newValue)
    }
    renameFromAnotherThreadWhileMainWaits(user, to: "queued")
    user.removeTarget(controller, for: \.name)
    await drainMainQueue()
    #expect(controller.titles.isEmpty)
  }

  @MainActor
  @Test func anUnboundReceiverIsNotWrittenByAQueuedApply() async {
    let user = User()
    user.name = "first"
    let label = Label()
    label.bind(\.text, to: user, \.name)  // main-actor route
    #expect(label.text == "first")
    renameFromAnotherThreadWhileMainWaits(user, to: "queued")
    label.unbind(\.text)
    await drainMainQueue()
    #expect(label.text == "first")
    #expect(label.texts == ["first"])
  }

  @Test func aQueueDeliveryCancelledInItsOwnCallbackHearsNothingMore() {
    let queue = DispatchQueue(label: "CancelledDeliveryTests.serial")
    let user = User()
    let heard = _Lock<[String]>([])
    let registration = _Lock<ObservationToken?>(nil)
    let token = user.observe(\.name, delivery: .queue(queue)) { change in
      heard.withLock { $0.append(change.newValue) }
      registration.withLock { $0 }?.cancel()
    }
    registration.withLock { $0 = token }
    queue.suspend()  // the three deliveries are queued before the first one runs
    user.name = "1"
    user.name = "2"
    user.name = "3"
    queue.resume()
    queue.sync {}
    #expect(heard.withLock { $0 } == ["1"])
    registration.withLock { $0 = nil }
  }

  /// A deletion still reaches a registration whose delivery is queued: it ends the
  /// registration, but what was queued before it, and the deletion itself, arrive.
  @Test func queuedChangesAndTheDeletionStillArriveAfterTheObjectIsDeleted() {
    let queue = DispatchQueue(label: "CancelledDeliveryTests.deletion")
    let user = User()
    let heard = _Lock<[String]>([])
    let token = user.observe(
      \.name, delivery: .queue(queue), onDeletion: { heard.withLock { $0.append("deleted") } }
    ) { change in
      heard.withLock { $0.append(change.newValue) }
    }
    queue.suspend()
    user.name = "last"
    user.announceDeletion()
    queue.resume()
    queue.sync {}
    #expect(heard.withLock { $0 } == ["last", "deleted"])
    token.cancel()
  }

  /// A token cancelled by a synchronous observer of the deletion stays cancelled: the deletion
  /// that ends the registration afterwards does not let its queued deliveries run again.
  @Test func aTokenCancelledWhileItsObjectIsDeletedStaysCancelled() {
    let queue = DispatchQueue(label: "CancelledDeliveryTests.teardown")
    let user = User()
    let heard = _Lock<[String]>([])
    let token = user.observe(\.name, delivery: .queue(queue)) { change in
      heard.withLock { $0.append(change.newValue) }
    }
    let teardown = user.observeEvents(delivery: .synchronous) { event in
      if case .deleted = event { token.cancel() }
    }
    queue.suspend()
    user.name = "queued"
    user.announceDeletion()
    queue.resume()
    queue.sync {}
    #expect(heard.withLock { $0 }.isEmpty)
    teardown.cancel()
  }
}
