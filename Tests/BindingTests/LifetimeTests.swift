import Binding
import TestSupport
import Testing

/// A registration retains neither side (weak references, tracked lifetimes).
@Suite struct LifetimeTests {}

// MARK: - Target dies first

extension LifetimeTests {
  @Test func registrationDoesNotRetainTheTarget() {
    withLifetimeTracking { tracker in
      let user = User()
      weak var weakProbe: Probe?
      do {
        let probe = Probe(tracker: tracker)
        weakProbe = probe
        user.addTarget(probe, action: Probe.nameChanged, for: \.name)
        user.addTarget(probe, action: Probe.refresh, for: [\.age, \.address?.city])
        user.addTarget(probe, for: \.greeting, options: .initial) { probe, _ in probe.refresh() }
      }
      #expect(weakProbe == nil)
    }
  }

  @Test func deadTargetHearsNothing() async {
    let user = User()
    await confirmation(expectedCount: 1) { heard in
      var probe: Probe? = Probe()
      if let probe { user.addTarget(probe, for: \.name) { _, _ in heard() } }
      user.name = "a"
      probe = nil
      user.name = "b"
      user.name = "c"
      user.address = Address(city: "Paris")
    }
  }

  @Test func eventRegistrationIsReleasedWithTheObservedObject() {
    withLifetimeTracking { tracker in
      var token: ObservationToken?
      do {
        let user = User()
        let payload = Probe(tracker: tracker)  // captured by the handler: lives as long as it
        token = user.observeEvents { _ in payload.refresh() }
        user.age = 1
        #expect(payload.refreshCount == 1)
      }
      #expect(token?.isActive == false)
    }
  }

  @Test func targetDeallocatedDuringItsOwnCallback() {
    withLifetimeTracking { tracker in
      let user = User()
      var owner: Probe? = Probe(tracker: tracker)
      weak let weakProbe = owner
      var calls = 0
      if let target = owner {
        user.addTarget(target, for: \.name) { probe, change in
          owner = nil  // drops the last strong reference outside the callback
          calls += 1
          probe.log.append(change.newValue)  // still valid for the duration of the call
          #expect(probe.log == ["a"])
        }
      }
      user.name = "a"
      #expect(calls == 1)
      #expect(weakProbe == nil)
      user.name = "b"
      #expect(calls == 1)
    }
  }

  @Test func anObjectObservingItself() {
    withLifetimeTracking { tracker in
      weak var weakUser: User?
      do {
        let user = User(tracker: tracker)
        weakUser = user
        user.addTarget(user, for: \.name) { me, change in me.nickname = change.newValue + "!" }
        let token = user.observe(\.age) { _ in }
        token.store(in: &user.tokens)
        user.bind(\.nickname, to: user, \.name) { $0 + "?" }
        user.name = "Ada"
        #expect(user.nickname == "Ada?" || user.nickname == "Ada!")
      }
      #expect(weakUser == nil)
    }
  }
}

// MARK: - Observed object dies first

extension LifetimeTests {
  @Test func registrationDoesNotRetainTheObservedObject() {
    withLifetimeTracking { tracker in
      let probe = Probe()
      weak var weakUser: User?
      var tokens: [ObservationToken] = []
      do {
        let user = User(tracker: tracker)
        weakUser = user
        user.addTarget(probe, action: Probe.nameChanged, for: \.name)
        user.addTarget(probe, action: Probe.refresh, for: [\.name, \.address?.city])
        user.observe(\.greeting) { _ in }.store(in: &tokens)
        user.observeEvents { _ in }.store(in: &tokens)
        user.address = Address(city: "Paris", tracker: tracker)
      }
      #expect(weakUser == nil)
      #expect(tokens.allSatisfy { !$0.isActive })
    }
  }

  @Test func targetSurvivesTheObservedObjectAndHearsNothingMore() {
    withLifetimeTracking { tracker in
      let probe = Probe(tracker: tracker)
      let paris = Address(city: "Paris")
      do {
        let user = User()
        user.address = paris
        user.addTarget(probe, for: \.address?.city) { probe, _ in probe.refresh() }
        paris.city = "Lyon"
      }
      #expect(probe.refreshCount == 1)
      paris.city = "Nice"
      #expect(probe.refreshCount == 1)
      #expect(tracker.live == 1)  // the probe itself, still owned here
    }
  }

  @Test func bindingRetainsNeitherSourceNorReceiver() {
    withLifetimeTracking { tracker in
      weak var weakUser: User?
      weak var weakField: TextField?
      do {
        let user = User(tracker: tracker)
        let field = TextField(tracker: tracker)
        weakUser = user
        weakField = field
        field.bind(\.text, to: user, \.name)
        user.name = "Ada"
        #expect(field.text == "Ada")
      }
      #expect(weakUser == nil)
      #expect(weakField == nil)
    }
  }

  @Test func intermediateModelsAreNotRetainedByAPathThroughThem() {
    withLifetimeTracking { tracker in
      let user = User()
      weak var weakAddress: Address?
      let token = user.observe(\.address?.city) { _ in }
      do {
        let address = Address(city: "Paris", tracker: tracker)
        weakAddress = address
        user.address = address
      }
      #expect(weakAddress != nil)  // the user owns it
      user.address = nil
      #expect(weakAddress == nil)
      token.cancel()
    }
  }
}

extension LifetimeTests {
  /// Entries of cancelled registrations on a property that is never written are unlinked by
  /// later registrations (amortised), so what their closures hold does not pile up.
  @Test func cancelledRegistrationsOnANeverWrittenPropertyAreReleased() {
    let tracker = LifetimeTracker()
    let user = User()
    for _ in 0..<200 {
      let payload = Probe(tracker: tracker)
      user.observe(\.name) { _ in payload.refresh() }.cancel()
    }
    // At most the entries since the last compaction remain (the threshold doubles).
    #expect(tracker.live < 100, "live payloads: \(tracker.live)")
    #expect(tracker.created == 200)
  }
}

// MARK: - Tokens, values and intermediates

extension LifetimeTests {
  /// A token dropped at once ends the observation: nothing is delivered, and its handler (with
  /// what it captures) is released by the property's next change (entries are unlinked by
  /// writers of their property).
  @Test func aTokenDroppedAtOnceEndsItsObservation() async {
    await confirmation(expectedCount: 0) { heard in
      withLifetimeTracking { tracker in
        let user = User()
        do {
          let payload = Probe(tracker: tracker)
          _ = user.observe(\.name) { _ in
            payload.refresh()
            heard()
          }
          _ = user.observe(\.address?.city, options: .coalesced) { _ in
            payload.refresh()
            heard()
          }
        }
        user.name = "Ada"
        user.address = Address(city: "Paris")
        coalesce { user.address?.city = "Lyon" }
      }
    }
  }

  /// A single-property registration holds the last value it delivered, never the first one.
  ///
  /// It used to keep the value read at registration for as long as the registration lived (a
  /// copy in its locked state that single-property mode never updated): an observed array kept
  /// every object it first held alive, such as every element a relation controller was
  /// created with.
  @Test func aRegistrationDoesNotKeepTheFirstValueItReadAlive() {
    withLifetimeTracking { tracker in
      let user = User()
      user.address = Address(city: "Paris", tracker: tracker)
      let token = user.observe(\.address) { _ in }
      let probe = Probe()
      user.addTarget(probe, for: \.address) { _, _ in }
      let field = TextField()
      field.bind(\.text, to: user, \.address) { $0?.city ?? "" }
      user.address = Address(city: "Rome")
      #expect(field.text == "Rome")
      #expect(tracker.live == 0, "the first address is still alive")
      token.cancel()
    }
  }

  /// The observed object's last owner lets go of it inside its own callback: the callback runs
  /// to its end, the object dies after the write, and every registration on it ends.
  @Test func observedObjectDiesDuringItsOwnCallback() {
    withLifetimeTracking { tracker in
      var owner: User? = User(tracker: tracker)
      weak let weakUser = owner
      var heard: [String] = []
      var tokens: [ObservationToken] = []
      if let user = owner {
        user.observe(\.name) { change in
          owner = nil  // the caller's reference keeps it alive until the write returns
          heard.append("first \(change.newValue) \(change.object.name)")
        }.store(in: &tokens)
        user.observe(\.name) { change in heard.append("second \(change.newValue)") }
          .store(in: &tokens)
        user.name = "Ada"
      }
      #expect(weakUser == nil)
      #expect(heard == ["first Ada Ada", "second Ada"])
      #expect(tokens.allSatisfy { !$0.isActive })
    }
  }

  /// A replaced intermediate, mutated afterwards, reaches no token, target or binding that
  /// read it, and none of them keeps it alive.
  @Test func aReplacedIntermediateNeitherFiresNorLives() {
    withLifetimeTracking { tracker in
      let user = User()
      let probe = Probe()
      let field = TextField()
      var cities: [String?] = []
      weak var weakOld: Address?
      let token = user.observe(\.address?.city) { cities.append($0.newValue) }
      user.addTarget(probe, for: \.cityLabel) { probe, _ in probe.refresh() }
      field.bind(\.text, to: user, \.address?.city) { $0 ?? "-" }
      do {
        let old = Address(city: "Paris", tracker: tracker)
        weakOld = old
        user.address = old
        user.address = Address(city: "Rome")
        old.city = "Lyon"  // the old intermediate: heard by nobody
        old.street = "Rue de Lyon"
      }
      #expect(weakOld == nil)
      #expect(cities == ["Paris", "Rome"])
      #expect(probe.refreshCount == 2)
      #expect(field.text == "Rome")
      user.address?.city = "Milan"
      #expect(cities == ["Paris", "Rome", "Milan"])
      #expect(probe.refreshCount == 3)
      #expect(field.text == "Milan")
      token.cancel()
    }
  }
}

// MARK: - Change values kept by a handler

extension LifetimeTests {
  /// A delivery hands the handler a change that borrows its object and key path (nothing is
  /// retained for the call); a handler that keeps the change must own both from then on.
  @Test func aKeptChangeOwnsItsObjectAndKeyPath() {
    final class Keeper {
      var kept: [KeyPathChange<User, Int>] = []
    }
    let keeper = Keeper()
    weak var weakUser: User?
    weak var weakPath: KeyPath<User, Int>?
    do {
      let user = User()
      weakUser = user
      // Built at run time (a literal's key path lives as long as the process), so that nothing
      // but the registration and the changes holds it.
      let path = (\User.blob).appending(path: \Blob.number)
      weakPath = path
      user.addTarget(keeper, for: path) { keeper, change in keeper.kept.append(change) }
      user.blob = Blob(number: 1)
      user.blob = Blob(number: 2)
    }
    // Only the kept changes hold the user (and so its registration) and the key path now.
    #expect(weakUser != nil)
    #expect(weakPath != nil)
    #expect(keeper.kept.map(\.object.blob.number) == [2, 2])
    #expect(keeper.kept.map(\.oldValue) == [0, 1])
    #expect(keeper.kept.allSatisfy { $0.object[keyPath: $0.keyPath] == 2 })
    keeper.kept = []
    #expect(weakUser == nil)
    #expect(weakPath == nil)
  }
}
