import Binding
import Foundation
import TestSupport
import Testing

/// `ObservationDelivery`: automatic (follows the registering isolation), `.synchronous`,
/// `.mainActor`, `.queue`, with main-actor targets and receivers.
@Suite struct ObservationDeliveryTests {}

private let changeCount = 200
private let expectedTitles = (1...changeCount).map { "name \($0)" }

/// Sets `user.name` to "name 1" … "name \(count)" on a new thread.
private func renameOnAnotherThread(_ handoff: Handoff<User>, count: Int = changeCount) async {
  await onNewThread {
    for index in 1...count { handoff.value.name = "name \(index)" }
  }
}

// MARK: - Main-actor targets and receivers

extension ObservationDeliveryTests {
  @MainActor
  @Test func mainActorTargetHearsChangesMadeOnTheMainActor() async {
    let user = User()
    let controller = ProfileViewController()
    user.addTarget(controller, for: \.name) { controller, change in
      controller.record(change.newValue)
    }
    user.name = "Ada"
    user.name = "Grace"
    #expect(await eventually { controller.titles.count == 2 })
    #expect(controller.titles == ["Ada", "Grace"])
    #expect(controller.allOnMainThread)
  }

  @MainActor
  @Test func mainActorMethodReferenceTarget() async {
    let user = User()
    let controller = ProfileViewController()
    user.addTarget(controller, action: ProfileViewController.nameChanged, for: \.name)
    user.name = "Ada"
    #expect(await eventually { controller.title == "Ada" })
    #expect(controller.titles == ["Ada"])
    #expect(controller.allOnMainThread)
  }

  @MainActor
  @Test func mainActorNoArgumentMethodForSeveralKeyPaths() async {
    let user = User()
    let controller = ProfileViewController()
    user.addTarget(
      controller, action: ProfileViewController.refresh, for: [\.name, \.age], options: .initial)
    #expect(await eventually { controller.refreshCount == 1 })
    user.age = 3
    #expect(await eventually { controller.refreshCount == 2 })
    #expect(controller.allOnMainThread)
  }

  @MainActor
  @Test func mainActorTargetHearsBackgroundChangesOnTheMainActorInOrder() async {
    let user = User()
    let controller = ProfileViewController()
    user.addTarget(controller, for: \.name) { controller, change in
      controller.record(change.newValue)
    }
    await renameOnAnotherThread(Handoff(user))
    #expect(await eventually { controller.titles.count == changeCount })
    #expect(controller.titles == expectedTitles)
    #expect(controller.allOnMainThread)
  }

  @MainActor
  @Test func mainActorChangesQueueBehindPendingBackgroundDeliveries() async {
    let user = User()
    let controller = ProfileViewController()
    user.addTarget(controller, for: \.name) { controller, change in
      controller.record(change.newValue)
    }
    await renameOnAnotherThread(Handoff(user))
    user.name = "last"  // may be queued behind the hops: order is kept either way
    #expect(await eventually { controller.titles.count == changeCount + 1 })
    #expect(controller.titles == expectedTitles + ["last"])
  }

  @MainActor
  @Test func mainActorReceiverIsSetAtOnceThenOnTheMainActor() async {
    let user = User(name: "Ada")
    let label = Label()
    label.bind(\.text, to: user, \.name)
    #expect(label.text == "Ada")  // at once, at binding time
    user.name = "Grace"
    #expect(await eventually { label.text == "Grace" })
    #expect(label.texts == ["Ada", "Grace"])
    #expect(label.allOnMainThread)
  }

  @MainActor
  @Test func mainActorReceiverIsSetOnTheMainActorForBackgroundChanges() async {
    let user = User()
    let label = Label()
    label.bind(\.text, to: user, \.name) { "<\($0)>" }
    await renameOnAnotherThread(Handoff(user))
    let expected = ["<>"] + expectedTitles.map { "<\($0)>" }
    #expect(await eventually { label.text == expected.last })
    #expect(label.texts == expected)
    #expect(label.allOnMainThread)
  }

  @MainActor
  @Test func mainActorObserveClosureHearsOnTheMainActor() async {
    let user = User()
    let controller = ProfileViewController()
    let token = user.observe(\.name) { change in controller.record(change.newValue) }
    await renameOnAnotherThread(Handoff(user), count: 10)
    #expect(await eventually { controller.titles.count == 10 })
    #expect(controller.titles == Array(expectedTitles.prefix(10)))
    #expect(controller.allOnMainThread)
    token.cancel()
  }
}

// MARK: - Explicit deliveries

extension ObservationDeliveryTests {
  @Test func automaticFromNonisolatedCodeIsSynchronousOnTheMutatingThread() async {
    let user = User()
    let threads = LockedList<UInt>()
    let deliveredBeforeNextLine = AtomicCounter()
    let token = user.observe(\.age) { _ in threads.append(currentThreadID()) }
    let handoff = Handoff(user)
    let mutator = LockedList<UInt>()
    await onNewThread {
      mutator.append(currentThreadID())
      handoff.value.age = 1
      if threads.count == 1 { deliveredBeforeNextLine.increment() }
    }
    #expect(deliveredBeforeNextLine.value == 1)
    #expect(threads.values == mutator.values)
    token.cancel()
  }

  @MainActor
  @Test func synchronousFromTheMainActorRunsOnTheMutatingThread() async {
    let user = User()
    let threads = LockedList<UInt>()
    let token = user.observe(\.age, delivery: .synchronous) { _ in
      threads.append(currentThreadID())
    }
    let handoff = Handoff(user)
    let mutator = LockedList<UInt>()
    let deliveredBeforeNextLine = AtomicCounter()
    await onNewThread {
      mutator.append(currentThreadID())
      handoff.value.age = 1
      if threads.count == 1 { deliveredBeforeNextLine.increment() }
    }
    #expect(deliveredBeforeNextLine.value == 1)
    // The mutating thread is a new one, so this says the delivery did not hop to the main
    // actor. (Comparing with the main actor's thread ID after the await is unreliable: a thread
    // that has exited can have its ID reused by the thread the main actor resumes on.)
    #expect(threads.values == mutator.values)
    token.cancel()
  }

  @Test func mainActorDeliveryFromNonisolatedCode() async {
    let user = User()
    let onMain = LockedList<Bool>()
    let token = user.observe(\.age, delivery: .mainActor) { _ in
      onMain.append(isOnMainQueue())
    }
    let handoff = Handoff(user)
    await onNewThread {
      for age in 1...50 { handoff.value.age = age }
    }
    #expect(await eventually { onMain.count == 50 })
    #expect(onMain.values.allSatisfy { $0 })
    token.cancel()
  }

  @Test func queueDeliveryRunsOnTheQueueInOrder() async {
    let queue = DispatchQueue(label: "ObservationDeliveryTests.queue")
    let key = DispatchSpecificKey<Int>()
    queue.setSpecific(key: key, value: 42)
    let user = User()
    let ages = LockedList<Int>()
    let onQueue = LockedList<Bool>()
    let probe = Probe()
    user.addTarget(probe, for: \.age, delivery: .queue(queue)) { _, change in
      onQueue.append(DispatchQueue.getSpecific(key: key) == 42)
      ages.append(change.newValue)
    }
    for age in 1...100 { user.age = age }
    #expect(await eventually { ages.count == 100 })
    #expect(ages.values == Array(1...100))
    #expect(onQueue.values.allSatisfy { $0 })
    withExtendedLifetime(probe) {}
  }

  @Test func queueDeliveryDropsADeadTarget() async {
    let queue = DispatchQueue(label: "ObservationDeliveryTests.dead")
    let user = User()
    let heard = AtomicCounter()
    do {
      let probe = Probe()
      user.addTarget(probe, for: \.age, delivery: .queue(queue)) { _, _ in heard.increment() }
    }
    user.age = 1
    await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
    #expect(heard.value == 0)
  }
}
