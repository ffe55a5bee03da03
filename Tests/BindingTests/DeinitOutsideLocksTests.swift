import Testing

@testable import Binding

/// No user `deinit` runs under one of the package's locks: a registration, a binding or a
/// delivery that drops the last reference to a user object (a kept value, a captured object)
/// drops it after its lock is released. A `deinit` that writes a model would otherwise run with
/// a lock held, and deadlock if that write needs the same lock.
///
/// Debug builds count the locks a thread holds (`_locksHeldOnThisThread()`); release builds do
/// not, so there the tests check only that every witness died and its write was heard.
@Suite struct DeinitOutsideLocksTests {
  /// A model whose `deinit` writes another model (`echo`) and records how many of the package's
  /// locks its thread held.
  final class Witness: ObservableModel {
    let observation = ObservationStorage()
    @Observed var label = ""
    let log: Log

    init(_ log: Log) { self.log = log }

    deinit {
      log.locksHeld.append(_locksHeldOnThisThread())
      log.echo.count += 1
    }
  }

  /// What the witnesses' `deinit`s recorded.
  final class Log {
    var locksHeld: [Int?] = []
    let echo = Echo()
    var echoes = 0
    var token: ObservationToken?

    init() {
      token = echo.observe(\.count) { [unowned self] _ in echoes += 1 }
    }

    /// Checks that `count` witnesses died, none of them under a lock, and that each one's
    /// write was heard.
    func expectDeaths(_ count: Int, sourceLocation: SourceLocation = #_sourceLocation) {
      #expect(locksHeld.count == count, sourceLocation: sourceLocation)
      #expect(echoes == count, sourceLocation: sourceLocation)
      for held in locksHeld {
        if let held {
          #expect(held == 0, "a deinit ran under a lock", sourceLocation: sourceLocation)
        }
      }
    }
  }

  /// The model a witness's `deinit` writes; observed, so that the write takes the write path.
  final class Echo: ObservableModel {
    let observation = ObservationStorage()
    @Observed var count = 0
  }

  /// Holds a witness in an observed property.
  final class Holder: ObservableModel {
    @Observed var witness: Witness?
    @Observed var flag = false
    /// Declared last, so that it is destroyed last: the witness's storage is gone when the
    /// registrations end, and a registration's kept value is then the last reference.
    let observation = ObservationStorage()
    /// Reads two properties, so that a registration keeps its value under its lock (a path
    /// that reads one property keeps it without one).
    var current: Witness? { flag ? witness : witness }
  }

  final class Target {}

  final class Field: BindingReceiver {
    var text = ""
  }

  /// A registration's kept value is the last reference when its root dies.
  @Test func aKeptValueReleasedWhenTheRootDies() {
    let log = Log()
    var holder: Holder? = Holder()
    holder?.witness = Witness(log)
    let token = holder?.observe(\.current) { _ in }
    let single = holder?.observe(\.witness) { _ in }  // keeps its value without a lock
    holder?.witness = Witness(log)  // the first one goes with the delivery of the change
    log.expectDeaths(1)
    holder = nil  // the registration ends; its kept value held the second witness
    log.expectDeaths(2)
    _ = (token, single)
  }

  /// A handler's captured witness is the last reference when its target dies, and the
  /// registration is dropped by the next registration or removal on the object.
  @Test func aHandlerReleasedWhenItsTargetDies() {
    let log = Log()
    let holder = Holder()
    var target: Target? = Target()
    do {
      let witness = Witness(log)
      // `target` was just made.
      holder.addTarget(target!, for: \.flag) { _, _ in _ = witness }
      let other = Witness(log)
      holder.addTarget(target!, for: [\.flag, \.witness]) { _, _ in _ = other }
    }
    target = nil
    holder.flag = true  // the registrations notice their target is gone
    holder.removeTarget(Target(), for: \.flag)
    let again = Target()
    holder.addTarget(again, for: \.flag) { _, _ in }
    holder.flag = false
    log.expectDeaths(2)
  }

  /// A handler's captured witness is the last reference when its token is cancelled.
  @Test func aHandlerReleasedByCancel() {
    let log = Log()
    let holder = Holder()
    var tokens: [ObservationToken] = []
    do {
      let witness = Witness(log)
      tokens.append(holder.observe(\.flag) { _ in _ = witness })
      let other = Witness(log)
      tokens.append(holder.observeEvents { _ in _ = other })
      let third = Witness(log)
      tokens.append(holder.observe(\.current, options: .coalesced) { _ in _ = third })
    }
    coalesce {
      holder.flag = true
      for token in tokens { token.cancel() }
    }
    log.expectDeaths(3)
  }

  /// A binding's transform captures a witness; the receiver dies.
  @Test func aBindingReleasedWhenItsReceiverDies() {
    let log = Log()
    let holder = Holder()
    var field: Field? = Field()
    do {
      let witness = Witness(log)
      field?.bind(\.text, to: holder, \.flag) {
        _ = witness
        return "\($0)"
      }
    }
    field = nil
    holder.flag = true
    let other = Field()
    other.bind(\.text, to: holder, \.flag) { "\($0)" }
    holder.flag = false
    log.expectDeaths(1)
  }

  /// The deletion of the root ends registrations whose handlers hold witnesses; cancelling
  /// their tokens releases the handlers.
  @Test func registrationsReleasedAfterADeletion() {
    let log = Log()
    let holder = Holder()
    var tokens: [ObservationToken] = []
    do {
      let witness = Witness(log)
      tokens.append(holder.observe(\.current) { _ in _ = witness })
      let other = Witness(log)
      tokens.append(holder.observeEvents { _ in _ = other })
    }
    holder.announceDeletion()
    for token in tokens { token.cancel() }
    log.expectDeaths(2)
  }
}
