import Binding
import Testing

/// The hooks `CollectionController` uses (package access): registrations that keep no value,
/// and writes that notify nobody.
@Suite struct PackageHooksTests {}

extension PackageHooksTests {
  @Test func aRegistrationThatKeepsNoValueHearsEveryWriteWithTheNewValue() {
    let user = User(name: "Ada")
    var heard: [(old: String, new: String)] = []
    let token = user.observe(\.name, options: ._keepsNoValue, delivery: .synchronous) {
      heard.append(($0.oldValue, $0.newValue))
    }
    user.name = "Grace"
    user.name = "Grace"  // an equal value: there is nothing to compare it with
    #expect(heard.map(\.old) == ["Grace", "Grace"])
    #expect(heard.map(\.new) == ["Grace", "Grace"])
    token.cancel()
  }

  @Test func aRegistrationThatKeepsNoValueDoesNotHoldTheValue() {
    let holder = ProbeHolder()
    weak var weakProbe: Probe?
    do {
      let probe = Probe()
      weakProbe = probe
      holder.probe = probe
    }
    let token = holder.observe(\.probe, options: ._keepsNoValue, delivery: .synchronous) { _ in }
    // A write nobody hears: a registration that kept the value would still hold the probe.
    _withoutNotifications { holder.probe = nil }
    #expect(weakProbe == nil)
    token.cancel()
  }

  /// With no kept value to compare, the deletion goes to the deletion callback alone (no
  /// change is made up from the current value).
  @Test func aRegistrationThatKeepsNoValueHearsTheDeletionOnly() {
    let user = User(name: "Ada")
    var heard: [String] = []
    let token = user.observe(
      \.name, options: ._keepsNoValue, delivery: .synchronous,
      onDeletion: { heard.append("deleted") }
    ) { heard.append($0.newValue) }
    user.name = "Grace"
    user.announceDeletion()
    #expect(heard == ["Grace", "deleted"])
    token.cancel()
  }

  @Test func aPathThroughOtherObjectsKeepsNoValueEither() {
    let user = User(name: "Ada")
    user.address = Address(city: "London")
    var heard: [(old: String?, new: String?)] = []
    let token = user.observe(\.address?.city, options: ._keepsNoValue, delivery: .synchronous) {
      heard.append(($0.oldValue, $0.newValue))
    }
    user.address?.city = "Paris"
    user.address = Address(city: "Rome")
    #expect(heard.map(\.old) == ["Paris", "Rome"])
    #expect(heard.map(\.new) == ["Paris", "Rome"])
    token.cancel()
  }

  @Test func writesWithoutNotificationsAreHeardByNobody() {
    let user = User(name: "Ada")
    var heard: [String] = []
    var events = 0
    let token = user.observe(\.name, delivery: .synchronous) { heard.append($0.newValue) }
    let any = user.observeEvents(delivery: .synchronous) { _ in events += 1 }
    _withoutNotifications { user.name = "" }
    #expect(heard.isEmpty)
    #expect(events == 0)
    user.name = "Grace"
    // The registration compares with the last value it delivered, not the silent one.
    #expect(heard == ["Grace"])
    #expect(events == 1)
    token.cancel()
    any.cancel()
  }
}

/// A model holding an object, to see whether a registration keeps it alive.
private final class ProbeHolder: ObservableModel {
  let observation = ObservationStorage()
  @Observed var probe: Probe?
}

// MARK: - The end of a transaction

/// Records the ends of transactions it hears, in a log shared with the test's observers.
private final class EndRecorder: _TransactionObserver {
  let log: _Lock<[String]>
  init(_ log: _Lock<[String]>) { self.log = log }
  func _transactionEnded() { log.withLock { $0.append("end") } }
}

extension PackageHooksTests {
  /// `_afterCurrentTransaction`: at once outside any transaction; after the write's observers
  /// (and its coalesced registrations) for one write; once at the end of the outermost block.
  @Test func theEndOfATransactionIsHeardWhereItEnds() {
    let log = _Lock<[String]>([])
    let recorder = EndRecorder(log)
    _afterCurrentTransaction(recorder)
    #expect(log.withLock { $0 } == ["end"])

    log.withLock { $0 = [] }
    let user = User()
    let first = user.observe(\.age, delivery: .synchronous) { _ in
      _afterCurrentTransaction(recorder)
      log.withLock { $0.append("first") }
    }
    let coalesced = user.observe(\.age, options: .coalesced, delivery: .synchronous) { _ in
      log.withLock { $0.append("coalesced") }
    }
    let second = user.observe(\.age, delivery: .synchronous) { _ in
      log.withLock { $0.append("second") }
    }
    user.age = 1
    #expect(log.withLock { $0 } == ["first", "second", "coalesced", "end"])

    log.withLock { $0 = [] }
    coalesce {
      user.age = 2
      coalesce { user.age = 3 }
      #expect(log.withLock { $0 } == ["first", "second", "first", "second"])
    }
    #expect(
      log.withLock { $0 } == ["first", "second", "first", "second", "coalesced", "end", "end"])
    for token in [first, coalesced, second] { token.cancel() }
  }
}

extension PackageHooksTests {
  /// A thread keeps the scope of its writes for the next write: each write's end is still
  /// heard once, by the observers that waited for that write only, and the kept scope holds
  /// no observer once its transaction ended.
  @Test func aKeptWriteScopeStartsEveryWriteAfresh() {
    let log = _Lock<[String]>([])
    var recorder: EndRecorder? = EndRecorder(log)
    weak let released = recorder
    let user = User()
    var waits = true
    let token = user.observe(\.age, delivery: .synchronous) { change in
      log.withLock { $0.append("age \(change.newValue)") }
      if waits, let recorder { _afterCurrentTransaction(recorder) }
    }
    for age in 1...3 { user.age = age }
    #expect(
      log.withLock { $0 } == ["age 1", "end", "age 2", "end", "age 3", "end"])

    // Nothing waits any more: later writes hear no end, and the scope kept by this thread
    // holds no observer.
    log.withLock { $0 = [] }
    waits = false
    recorder = nil
    user.age = 4
    #expect(log.withLock { $0 } == ["age 4"])
    #expect(released == nil, "the kept scope retained an observer")
    token.cancel()
  }
}
