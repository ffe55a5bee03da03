import Binding
import TestSupport
import Testing

/// Many threads registering, cancelling, mutating their own objects, deallocating targets and
/// observed objects, coalescing and binding at once; invariants checked at the end, no timing.
/// Run under ThreadSanitizer in CI (`--sanitize=thread`).
@Suite struct StressTests {}

private let threadCount = 4
private let operationsPerThread = 30_000

/// What one registration heard, and what it should have heard.
private final class Tally {
  let coalesced: Bool
  var delivered = 0
  var expected = 0
  /// Cancelled, or its target or object died: nothing may be delivered any more.
  var ended = false
  /// Handed to another thread, which cancels it whenever it likes: no longer counted.
  var handedOff = false
  var afterEnd = 0

  init(coalesced: Bool) { self.coalesced = coalesced }

  func hear() {
    if handedOff { return }
    if ended { afterEnd += 1 }
    delivered += 1
  }
}

private final class StressTarget {
  let lease: LifetimeTracker.Lease
  var hits = 0
  init(tracker: LifetimeTracker) { lease = tracker.lease() }
}

private struct Registration {
  let model: ObjectIdentifier
  let tally: Tally
  let token: ObservationToken?
  let target: ObjectIdentifier?
}

private struct Report: Sendable {
  var operations = 0
  var delivered = 0
  var expected = 0
  var afterEnd = 0
  var activeTokensOfDeadModels = 0
  var staleBindings = 0
  var mutations = 0
}

/// Tokens handed between threads (cancelled or dropped by whichever thread takes them).
private let graveyard = _Lock<[ObservationToken]>([])

private func runWorker(seed: UInt64, tracker: LifetimeTracker) -> Report {
  var rng = SplitMix64(seed: seed)
  var report = Report()
  var models: [User] = []
  var targets: [StressTarget] = []
  var fields: [(field: TextField, model: User)] = []
  var registrations: [Registration] = []
  var tallies: [Tally] = []

  func end(_ predicate: (Registration) -> Bool) {
    for registration in registrations where predicate(registration) {
      registration.tally.ended = true
    }
  }

  func mutate(_ model: User, coalescing: Bool) {
    model.age += 1
    report.mutations += 1
    for registration in registrations where registration.model == ObjectIdentifier(model) {
      let tally = registration.tally
      if tally.ended || tally.handedOff { continue }
      if !(coalescing && tally.coalesced) { tally.expected += 1 }
    }
  }

  /// Tokens of an object dropped in the previous operation (this iteration's `model` may have
  /// been the last reference to it).
  var tokensOfDroppedModel: [ObservationToken] = []

  for _ in 0..<operationsPerThread {
    report.operations += 1
    for token in tokensOfDroppedModel where token.isActive { report.activeTokensOfDeadModels += 1 }
    tokensOfDroppedModel = []
    if models.isEmpty {
      models.append(User(tracker: tracker))
      continue
    }
    let model = models[Int.random(in: 0..<models.count, using: &rng)]
    let modelID = ObjectIdentifier(model)
    switch Int.random(in: 0..<100, using: &rng) {
    case 0..<5:  // create an observed object
      if models.count < 8 { models.append(User(tracker: tracker)) }
    case 5..<8:  // deallocate an observed object
      let index = Int.random(in: 0..<models.count, using: &rng)
      let dying = ObjectIdentifier(models[index])
      models.remove(at: index)
      fields.removeAll { ObjectIdentifier($0.model) == dying }
      end { $0.model == dying }
      tokensOfDroppedModel = registrations.filter { $0.model == dying }.compactMap(\.token)
      registrations.removeAll { $0.model == dying }
    case 8..<18:  // a token
      let coalesced = Bool.random(using: &rng)
      let tally = Tally(coalesced: coalesced)
      tallies.append(tally)
      let token = model.observe(\.age, options: coalesced ? .coalesced : []) { _ in tally.hear() }
      registrations.append(Registration(model: modelID, tally: tally, token: token, target: nil))
    case 18..<26:  // a target
      if targets.count < 8 { targets.append(StressTarget(tracker: tracker)) }
      let target = targets[Int.random(in: 0..<targets.count, using: &rng)]
      let tally = Tally(coalesced: false)
      tallies.append(tally)
      model.addTarget(target, for: \.age) { target, _ in
        target.hits += 1
        tally.hear()
      }
      registrations.append(
        Registration(model: modelID, tally: tally, token: nil, target: ObjectIdentifier(target)))
    case 26..<30:  // deallocate a target
      guard !targets.isEmpty else { continue }
      let index = Int.random(in: 0..<targets.count, using: &rng)
      let dying = ObjectIdentifier(targets.remove(at: index))
      end { $0.target == dying }
      registrations.removeAll { $0.target == dying }
    case 30..<38:  // cancel a token on this thread
      guard let index = registrations.indices.randomElement(using: &rng),
        let token = registrations[index].token
      else { continue }
      registrations[index].tally.ended = true
      token.cancel()
      registrations.remove(at: index)
    case 38..<41:  // hand a token to whichever thread empties the graveyard
      guard let index = registrations.indices.randomElement(using: &rng),
        let token = registrations[index].token
      else { continue }
      registrations[index].tally.handedOff = true
      graveyard.withLock { $0.append(token) }
      registrations.remove(at: index)
    case 41..<44:  // empty the graveyard (cancel some, drop the others)
      let taken = graveyard.withLock { tokens in
        let taken = tokens
        tokens = []
        return taken
      }
      for (index, token) in taken.enumerated() where index.isMultiple(of: 2) { token.cancel() }
    case 44..<50:  // bind a receiver
      if fields.count < 8 {
        let field = TextField(tracker: tracker)
        field.bind(\.length, to: model, \.age)
        fields.append((field, model))
      } else {
        let index = Int.random(in: 0..<fields.count, using: &rng)
        fields[index].field.bind(\.length, to: model, \.age)  // rebinding replaces
        fields[index].model = model
      }
    case 50..<53:  // unbind or drop a receiver
      guard let index = fields.indices.randomElement(using: &rng) else { continue }
      if Bool.random(using: &rng) { fields[index].field.unbindAll() }
      fields.remove(at: index)
    case 53..<60:  // a coalesced block of several changes
      let count = Int.random(in: 1...4, using: &rng)
      var touched: [User] = []
      coalesce {
        for _ in 0..<count {
          let changed = models[Int.random(in: 0..<models.count, using: &rng)]
          mutate(changed, coalescing: true)
          if !touched.contains(where: { $0 === changed }) { touched.append(changed) }
        }
      }
      for changed in touched {
        for registration in registrations where registration.model == ObjectIdentifier(changed) {
          let tally = registration.tally
          if tally.coalesced && !tally.ended && !tally.handedOff { tally.expected += 1 }
        }
      }
    default:  // mutate
      mutate(model, coalescing: false)
    }
  }

  for (field, model) in fields where field.length != model.age { report.staleBindings += 1 }
  for tally in tallies {
    report.delivered += tally.delivered
    report.expected += tally.expected
    report.afterEnd += tally.afterEnd
  }
  return report
}

extension StressTests {
  @Test func manyThreadsObserveMutateCancelAndDeallocate() async {
    let tracker = LifetimeTracker()
    let reports = LockedList<Report>()
    await withTaskGroup(of: Void.self) { group in
      for thread in 0..<threadCount {
        group.addTask {
          await onNewThread {
            reports.append(runWorker(seed: UInt64(thread + 1) * 7_919, tracker: tracker))
          }
        }
      }
    }
    graveyard.withLock { tokens in tokens.removeAll() }
    let all = reports.values
    #expect(all.count == threadCount)
    let operations = all.reduce(0) { $0 + $1.operations }
    #expect(operations >= 100_000)
    #expect(all.reduce(0) { $0 + $1.mutations } > 10_000)
    for report in all {
      #expect(report.delivered > 1_000)
      #expect(report.afterEnd == 0, "a callback ran after its registration ended")
      #expect(report.delivered == report.expected, "deliveries do not add up")
      #expect(report.activeTokensOfDeadModels == 0, "a token outlived its observed object")
      #expect(report.staleBindings == 0, "a binding did not settle on the source's value")
    }
    #expect(tracker.created > 1_000)
    #expect(tracker.live == 0, "a model, target or receiver outlived its thread")
  }
}
