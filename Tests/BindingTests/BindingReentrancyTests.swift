import Binding
import TestSupport
import Testing

/// A binding ends on its source's current value when a callback writes the source again while
/// the binding applies (a nested apply is deferred, never dropped), and a cycle of bindings
/// that never settles traps with a message (issue 13, item 3: each of these was left stale or
/// stopped silently before).
@Suite struct BindingReentrancyTests {}

/// A model that is also a binding receiver.
final class Cell: ObservableModel, BindingReceiver {
  let observation = ObservationStorage()
  @Observed var x = 0
}

extension BindingReentrancyTests {
  /// An observer of the receiver clamps the source: the binding applies the clamped value too.
  @Test func aClampThatWritesTheSourceAgainIsApplied() {
    let a = Cell()
    let b = Cell()
    b.bind(\.x, to: a, \.x)
    let clamp = b.observe(\.x) { change in
      if change.newValue > 10 { a.x = 10 }
    }
    a.x = 50
    #expect(a.x == 10)
    #expect(b.x == 10)
    a.x = 7
    #expect(a.x == 7 && b.x == 7)
    clamp.cancel()
  }

  /// In a chain a → b → c, an observer on c that resets a: every cell ends on a's value.
  @Test func aChainEndsOnTheSourcesCurrentValue() {
    let a = Cell()
    let b = Cell()
    let c = Cell()
    b.bind(\.x, to: a, \.x)
    c.bind(\.x, to: b, \.x)
    let reset = c.observe(\.x) { change in
      if change.newValue != 0 { a.x = 0 }
    }
    a.x = 1
    #expect([a.x, b.x, c.x] == [0, 0, 0])
    reset.cancel()
  }

  /// The newest of several values that come back during one apply wins.
  @Test func theNewestValueThatCameBackWins() {
    let a = Cell()
    let b = Cell()
    b.bind(\.x, to: a, \.x)
    var rewrites = 0
    let token = b.observe(\.x) { change in
      guard change.newValue == 100 else { return }
      rewrites += 1
      a.x = 1
      a.x = 2
      a.x = 3
    }
    a.x = 100
    #expect(a.x == 3 && b.x == 3)
    #expect(rewrites == 1)
    token.cancel()
  }

  /// A value kept for later is not written once the binding ended meanwhile.
  @Test func aKeptValueIsNotWrittenAfterUnbind() {
    let a = Cell()
    let b = Cell()
    b.bind(\.x, to: a, \.x)
    let observer = b.observe(\.x) { [unowned a, unowned b] change in
      guard change.newValue == 50 else { return }
      a.x = 10  // comes back to the binding: kept for after this write…
      b.unbind(\.x)  // …which ends the binding first
    }
    a.x = 50
    #expect(b.x == 50)
    #expect(a.x == 10)
    observer.cancel()
  }

  @Test func aBindingCycleThatNeverSettlesTraps() async throws {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let a = Cell()
      let b = Cell()
      let c = Cell()
      b.bind(\.x, to: a, \.x) { $0 + 1 }
      c.bind(\.x, to: b, \.x) { $0 + 1 }
      a.bind(\.x, to: c, \.x) { $0 + 1 }
    }
    let message = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
    #expect(message.contains("kept receiving new values"))
    #expect(message.contains("Cell"))
  }
}

// MARK: - Bindings whose receiver died

/// A binding whose receiver died is swept by the next registration on its source, not kept
/// until the source is next written (issue 13, item 4: a settings model bound to short-lived
/// views kept every one of them, about 1 KB each, and each new `bind` walked them all).
extension BindingReentrancyTests {
  @Test func bindingsOfDeadReceiversAreSweptByTheNextBinding() {
    let tracker = LifetimeTracker()
    let settings = User()
    settings.name = "theme"
    for _ in 0..<2_000 {
      let field = TextField()
      let payload = Payload(tracker)  // held by the binding's transform, so by its registration
      field.bind(\.text, to: settings, \.name) { name in
        payload.use()
        return name
      }
      #expect(field.text == "theme")
    }
    // Every receiver is gone and nothing wrote the source since: each new binding swept the
    // dead ones from the source's registrations, and the property's list of entries unlinks
    // them in batches (amortised, so at most a handful wait for the next batch). Before, all
    // 2,000 were held until the next write, and each bind walked them all.
    #expect(tracker.live < 16, "\(tracker.live) bindings of dead receivers are still held")
    settings.name = "dark"  // a write unlinks the rest
    #expect(tracker.live == 0)
  }

  @Test func aLiveBindingIsNotSwept() {
    let settings = User()
    let kept = TextField()
    kept.bind(\.text, to: settings, \.name)
    for _ in 0..<100 {
      let field = TextField()
      field.bind(\.text, to: settings, \.name)
    }
    settings.name = "changed"
    #expect(kept.text == "changed")
    kept.unbind(\.text)
  }
}
