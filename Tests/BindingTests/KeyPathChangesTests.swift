import Binding
import TestSupport
import Testing

/// `changes(for:)`, the `AsyncSequence` of a key path's changes.
@Suite struct KeyPathChangesTests {}

extension KeyPathChangesTests {
  @Test func yieldsEveryChangeInOrderToASlowConsumer() async {
    let user = User()
    let changes = user.changes(for: \.age)
    for age in 1...1_000 { user.age = age }  // all before the consumer reads one
    var seen: [Int] = []
    for await change in changes {
      seen.append(change.newValue)
      if seen.count % 100 == 0 { await Task.yield() }
      if seen.count == 1_000 { break }
    }
    #expect(seen == Array(1...1_000))
  }

  @Test func yieldsOldAndNewValues() async {
    let user = User()
    var iterator = user.changes(for: \.name).makeAsyncIterator()
    user.name = "Ada"
    user.name = "Grace"
    let first = await iterator.next()
    let second = await iterator.next()
    #expect(first?.oldValue == "" && first?.newValue == "Ada")
    #expect(second?.oldValue == "Ada" && second?.newValue == "Grace")
    #expect(first?.kind == .change)
  }

  @Test func initialYieldsTheCurrentValueFirst() async {
    let user = User(name: "Ada")
    var iterator = user.changes(for: \.name, options: .initial).makeAsyncIterator()
    user.name = "Grace"
    let initial = await iterator.next()
    #expect(initial?.isInitial == true)
    #expect(initial?.newValue == "Ada")
    #expect(await iterator.next()?.newValue == "Grace")
  }

  /// The sequence yields the changes made before the deletion, then finishes: the deletion is
  /// not a change, so it is not an element (`user.isDeleted` tells why it finished).
  @Test func finishesOnDeletionWithoutYieldingIt() async {
    let user = User()
    let changes = user.changes(for: \.age)
    user.age = 1
    user.announceDeletion()
    user.age = 2
    var heard: [String] = []
    for await change in changes { heard.append("\(change.oldValue)->\(change.newValue)") }
    #expect(heard == ["0->1"])
    #expect(user.isDeleted)
  }

  @Test func finishesWhenTheObjectIsDeallocated() async {
    var user: User? = User()
    var iterator = user?.changes(for: \.age).makeAsyncIterator()
    user?.age = 1
    #expect(await iterator?.next()?.newValue == 1)  // the element held the object; now dropped
    user = nil
    #expect(await iterator?.next() == nil)
  }

  @Test func followsNestedPaths() async {
    let user = User()
    var iterator = user.changes(for: \.address?.city).makeAsyncIterator()
    user.address = Address(city: "Paris")
    user.address?.city = "Lyon"
    user.address = nil
    #expect(await iterator.next()?.newValue == "Paris")
    #expect(await iterator.next()?.newValue == "Lyon")
    #expect(await iterator.next()?.newValue == .some(nil))
  }

  @Test func cancellingTheConsumingTaskEndsTheIteration() async {
    let user = User()
    let changes = user.changes(for: \.age)
    let handoff = Handoff(changes)
    let started = AtomicCounter()
    let consumer = Task {
      var count = 0
      started.increment()
      for await _ in handoff.value { count += 1 }
      return count
    }
    user.age = 1
    #expect(await eventually { started.value == 1 })
    consumer.cancel()
    let count = await consumer.value  // returns: the iteration ended
    #expect(count <= 1)
    user.age = 2  // nobody listens any more: must not crash
    #expect(user.age == 2)
  }

  @Test func producerOnAnotherThread() async {
    let user = User()
    let changes = user.changes(for: \.age)
    let handoff = Handoff(user)
    await onNewThread {
      for age in 1...500 { handoff.value.age = age }
    }
    var seen: [Int] = []
    for await change in changes {
      seen.append(change.newValue)
      if seen.count == 500 { break }
    }
    #expect(seen == Array(1...500))
  }
}
