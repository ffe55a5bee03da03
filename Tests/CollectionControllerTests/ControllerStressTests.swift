import Binding
import CollectionController
import Foundation
import TestSupport
import Testing

/// Everything at once, on several threads: registering, cancelling and handing over tokens,
/// targets that die, bindings, coalesced blocks, relation edits, relation controllers and
/// dependency trackers created, reconfigured, dropped and handed to other threads, observed
/// objects deallocated and deleted (labels that many albums read among them). Each thread
/// changes only its own models (the threading contract); what threads share is the package's
/// state: registrations, tokens, a dependency tracker that all of them use and whose batches
/// any of them may deliver, and a graveyard where controllers, trackers and tokens are handed
/// to whichever thread empties it.
///
/// The run happens in a child process (an exit test) so that `_liveRegistrationCount`, which
/// counts the registrations of the whole process, sees this run alone: it must be back at its
/// starting value once everything is dropped. The child prints a report; the checks below are
/// made on it. No timing is involved: only counts and contents after the threads joined.
/// Under ThreadSanitizer or AddressSanitizer a report in the child fails its exit status. Swift
/// Testing does not return the child's output then, so `.ci/run` has the sanitizers write their
/// reports to files and prints them; locally, set `TSAN_OPTIONS=log_path=/tmp/tsan` (or
/// `ASAN_OPTIONS`) to read them.
///
/// `CONTROLLER_STRESS_OPERATIONS` sets the operations per thread (default 5,000, a few seconds
/// in debug) and `CONTROLLER_STRESS_THREADS` the number of threads (default 4); CI's long step
/// in `.ci/run` runs 250,000 per thread in release:
///
///     CONTROLLER_STRESS_OPERATIONS=250000 swift test -c release --filter ControllerStressTests
@Suite struct ControllerStressTests {}

extension ControllerStressTests {
  @Test func threadsDoEverythingAtOnceAndEverythingAddsUp() async throws {
    let result = await #expect(
      processExitsWith: .success,
      observing: [\.standardOutputContent]
    ) {
      let perThread = RelationControllerFuzzTests.environment("CONTROLLER_STRESS_OPERATIONS")
      let threads = RelationControllerFuzzTests.environment("CONTROLLER_STRESS_THREADS")
      let report = runStress(threads: threads ?? 4, operationsPerThread: perThread ?? 5_000)
      let data = try JSONEncoder().encode(report)
      print(stressReportMarker + String(decoding: data, as: UTF8.self))
      fflush(nil)  // all streams: the report must reach the parent
    }
    // `nil` when the child failed (a sanitizer's report, a trap or a crash).
    let run = try #require(result)
    let output = String(decoding: run.standardOutputContent, as: UTF8.self)
    let line = output.split(separator: "\n").first { $0.hasPrefix(stressReportMarker) }
    let json = try #require(line, "no report").dropFirst(stressReportMarker.count)
    let report = try JSONDecoder().decode(StressReport.self, from: Data(json.utf8))
    print("ControllerStressTests: \(report)")

    #expect(report.threads >= 1)
    #expect(report.operations >= report.threads * 1_000)
    // Registrations accounted for: every one ended and was freed once everything was dropped.
    #expect(report.registrationsPeak > report.registrationsAtStart + 100)
    #expect(report.registrationsAtEnd == report.registrationsAtStart)
    // No callback after cancellation, to a dead target, or after a tracker was dropped.
    #expect(report.binding.afterEnd == 0)
    #expect(report.privateTrackers.afterEnd == 0)
    // Every delivery that was due arrived, and no other.
    #expect(report.binding.delivered > 1_000)
    #expect(report.binding.delivered == report.binding.expected)
    #expect(report.binding.deletions == report.binding.expectedDeletions)
    #expect(report.staleBindings == 0 && report.bindingsChecked > 0)
    // Controllers: every change set replays, one per coalesced block at most and one per
    // deletion of a label that many albums read, and the content equals a recomputation from
    // the relation after the threads joined.
    #expect(report.changeSets > 1_000)
    #expect(report.replayFailures == [])
    #expect(report.blocksWithSeveralChangeSets == 0)
    #expect(report.labelDeletions > 0)
    #expect(report.labelDeletionsWithSeveralChangeSets == 0)
    #expect(report.controllersChecked > 0)
    #expect(report.contentMismatches == 0)
    #expect(report.controllersHandedOver > 0 && report.controllersReadElsewhere > 0)
    // The shared tracker: exact updates and deletions per model, nothing after a deletion,
    // nothing for models only added and removed.
    #expect(report.shared.updates > 1_000)
    #expect(report.shared.updates == report.shared.expectedUpdates)
    #expect(report.shared.deletions == report.shared.expectedDeletions)
    #expect(report.shared.afterDeletion == 0)
    #expect(report.shared.visitorEvents == 0)
    #expect(report.shared.mismatchedModels == [])
    #expect(report.privateTrackers.delivered > 0)
    // Nothing outlived the run.
    #expect(report.alive == StressReport.Alive())
  }
}

// MARK: - The report

private let stressReportMarker = "CONTROLLER-STRESS-REPORT "

struct StressReport: Codable, CustomStringConvertible {
  struct Tallies: Codable {
    var delivered = 0
    var expected = 0
    var deletions = 0
    var expectedDeletions = 0
    var afterEnd = 0
  }

  struct Shared: Codable {
    var updates = 0
    var expectedUpdates = 0
    var deletions = 0
    var expectedDeletions = 0
    var afterDeletion = 0
    var visitorEvents = 0
    var mismatchedModels: [String] = []
  }

  struct Alive: Codable, Equatable {
    var artists = 0
    var albums = 0
    var controllers = 0
    var trackers = 0
    var leased = 0
  }

  var threads = 0
  var operations = 0
  var registrationsAtStart = 0
  var registrationsPeak = 0
  var registrationsAtEnd = 0
  var binding = Tallies()
  var privateTrackers = Tallies()
  var staleBindings = 0
  var bindingsChecked = 0
  var changeSets = 0
  var replayFailures: [String] = []
  var blocksWithSeveralChangeSets = 0
  var labelDeletions = 0
  var labelDeletionsWithSeveralChangeSets = 0
  var controllersChecked = 0
  var contentMismatches = 0
  var controllersHandedOver = 0
  var controllersReadElsewhere = 0
  var shared = Shared()
  var alive = Alive()

  var description: String {
    "\(threads) threads, \(operations) operations; registrations \(registrationsAtStart) → peak "
      + "\(registrationsPeak) → \(registrationsAtEnd); deliveries \(binding.delivered)/"
      + "\(binding.expected), deletions \(binding.deletions); \(changeSets) change sets, "
      + "\(controllersChecked) controllers checked, \(controllersHandedOver) handed over, "
      + "\(labelDeletions) label deletions; "
      + "shared tracker \(shared.updates) updates, \(shared.deletions) deletions; private "
      + "trackers \(privateTrackers.delivered) events; \(bindingsChecked) bindings checked"
  }
}

// MARK: - Fixtures

/// A receiver of bindings, counted.
private final class Gauge: BindingReceiver {
  var value = 0
  let lease: LifetimeTracker.Lease
  init(_ tracker: LifetimeTracker) { lease = tracker.lease() }
}

/// A target, counted.
private final class Target {
  var hits = 0
  let lease: LifetimeTracker.Lease
  init(_ tracker: LifetimeTracker) { lease = tracker.lease() }
}

/// A model of the shared tracker; `name` is a `let`, so any thread may read it.
private final class Counter: ObservableModel {
  let observation = ObservationStorage()
  let name: String
  @Observed var value = 0
  init(_ name: String) { self.name = name }
}

/// What one registration heard, and what it should have heard.
private final class Tally {
  /// Whether `expected` is kept (registrations of `year`; others only check `afterEnd`).
  let counted: Bool
  let coalesced: Bool
  var delivered = 0
  var expected = 0
  var deletions = 0
  var expectedDeletions = 0
  /// Cancelled, removed, its target died or its object was deleted: nothing may arrive.
  var ended = false
  /// Handed to another thread, which cancels it when it likes: no longer counted.
  var handedOff = false
  var afterEnd = 0

  init(counted: Bool, coalesced: Bool) {
    self.counted = counted
    self.coalesced = coalesced
  }

  func hear(deletion: Bool) {
    if handedOff { return }
    if ended { afterEnd += 1 }
    if deletion { deletions += 1 } else { delivered += 1 }
  }
}

private struct Registration {
  /// Weak, and compared by `===`: an identifier could be reused by a new album once this one
  /// is gone (removed from its relation and released).
  weak var album: Album?
  let tally: Tally
  let token: ObservationToken?
  let target: ObjectIdentifier?
}

/// Replays every change set of one controller onto the content before it.
private final class ReplayChecker {
  var previous: [[ObjectIdentifier]]
  var changeSets = 0
  var failures: [String] = []

  init(_ content: [[ObjectIdentifier]]) { previous = content }

  func check(_ changes: RelationChangeSet<Album>, current: [[ObjectIdentifier]]) {
    changeSets += 1
    do {
      let replayed = try BatchUpdateReplayer.replay(
        old: previous, changes: changes, dataSource: current)
      if replayed != current { failures.append("replay differs: \(changes)") }
    } catch {
      failures.append("\(error)")
    }
    previous = current
  }
}

private struct ControllerEntry {
  let controller: RelationController<Album, Int>
  weak var artist: Artist?
  var configuration: FuzzConfiguration
  let checker: ReplayChecker
  /// The checker's registration, released with the entry.
  let token: ObservationToken
}

private final class PrivateTracker {
  let tracker: DependencyTracker
  let tally: Tally

  init(_ tracker: DependencyTracker, _ tally: Tally) {
    self.tracker = tracker
    self.tally = tally
  }
}

/// What threads hand to each other.
private enum Buried: Sendable {
  case token(ObservationToken)
  case controller(RelationController<Album, Int>)
  case tracker(DependencyTracker)
}

/// What the shared tracker's handler counts, per model name.
private struct SharedCount {
  var updates = 0
  var deletions = 0
  var afterDeletion = 0
}

/// What a thread expects the shared tracker to have reported, per model name.
private struct SharedExpectation {
  var updates = 0
  var deletions = 0
  var visitor = false
}

/// A thread's models, registrations and controllers, handed back when it ends.
private struct WorkerResult {
  var operations = 0
  var peak = 0
  var artists: [Artist] = []
  var controllers: [ControllerEntry] = []
  var checkers: [ReplayChecker] = []
  var tallies: [Tally] = []
  var privateTallies: [Tally] = []
  var gauges: [(gauge: Gauge, source: () -> Album?)] = []
  var expectations: [String: SharedExpectation] = [:]
  var blocksWithSeveralChangeSets = 0
  var labelDeletions = 0
  var labelDeletionsWithSeveralChangeSets = 0
  var controllersHandedOver = 0
  var controllersReadElsewhere = 0
  var weakArtists = WeakObjects<Artist>()
  var weakAlbums = WeakObjects<Album>()
  var weakControllers = WeakObjects<RelationController<Album, Int>>()
  var weakTrackers = WeakObjects<DependencyTracker>()
}

// MARK: - The run

private func runStress(threads: Int, operationsPerThread: Int) -> StressReport {
  var report = StressReport()
  report.threads = threads
  report.registrationsAtStart = _liveRegistrationCount
  let lifetimes = LifetimeTracker()
  let graveyard = _Lock<[Buried]>([])
  let sharedCounts = _Lock<[String: SharedCount]>([:])
  var sharedTracker: DependencyTracker? = DependencyTracker(
    dismissOnDeletion: false, delivery: .synchronous
  ) { event in
    // Reads only the counter's `let` name: the batch may be another thread's.
    guard let counter = event.object as? Counter else { return }
    sharedCounts.withLock { counts in
      var count = counts[counter.name, default: SharedCount()]
      if count.deletions > 0 { count.afterDeletion += 1 }
      if event.isDeletion { count.deletions += 1 } else { count.updates += 1 }
      counts[counter.name] = count
    }
  }
  // Threads reach the shared tracker through a box that is emptied after the join, so that no
  // thread object's closure keeps it alive after the join.
  let sharedBox = _Lock(sharedTracker)
  let results = _Lock<[Handed<WorkerResult>]>([])
  onThreads(threads) { thread in
    // Safe to unwrap: the box is emptied only after every thread joined.
    let tracker = sharedBox.withLock { $0 }!
    let result = runWorker(
      thread: thread, operations: operationsPerThread, lifetimes: lifetimes,
      graveyard: graveyard, shared: tracker)
    results.withLock { $0.append(Handed(value: result)) }
  }
  var workers = results.withLock { results in
    defer { results = [] }
    return results.map(\.value)
  }

  // After the join: contents, bindings and tallies (this thread now owns every model).
  for worker in workers {
    report.operations += worker.operations
    report.registrationsPeak = max(report.registrationsPeak, worker.peak)
    report.blocksWithSeveralChangeSets += worker.blocksWithSeveralChangeSets
    report.labelDeletions += worker.labelDeletions
    report.labelDeletionsWithSeveralChangeSets += worker.labelDeletionsWithSeveralChangeSets
    report.controllersHandedOver += worker.controllersHandedOver
    report.controllersReadElsewhere += worker.controllersReadElsewhere
    for entry in worker.controllers {
      guard let artist = entry.artist else { continue }
      report.controllersChecked += 1
      if !entry.configuration.matches(entry.controller.snapshot.itemIdentifiers, artist.albums) {
        report.contentMismatches += 1
      }
    }
    for checker in worker.checkers {
      report.changeSets += checker.changeSets
      report.replayFailures += checker.failures.prefix(3)
    }
    for tally in worker.tallies where tally.counted && !tally.handedOff {
      report.binding.delivered += tally.delivered
      report.binding.expected += tally.expected
      report.binding.deletions += tally.deletions
      report.binding.expectedDeletions += tally.expectedDeletions
    }
    for tally in worker.tallies { report.binding.afterEnd += tally.afterEnd }
    for tally in worker.privateTallies {
      report.privateTrackers.delivered += tally.delivered + tally.deletions
      report.privateTrackers.afterEnd += tally.afterEnd
    }
    for (gauge, source) in worker.gauges {
      guard let album = source() else { continue }
      report.bindingsChecked += 1
      if gauge.value != album.year { report.staleBindings += 1 }
    }
  }
  let counts = sharedCounts.withLock { $0 }
  for worker in workers {
    for (name, expectation) in worker.expectations {
      let count = counts[name] ?? SharedCount()
      if expectation.visitor {
        report.shared.visitorEvents += count.updates + count.deletions
        continue
      }
      report.shared.updates += count.updates
      report.shared.expectedUpdates += expectation.updates
      report.shared.deletions += count.deletions
      report.shared.expectedDeletions += expectation.deletions
      report.shared.afterDeletion += count.afterDeletion
      if count.updates != expectation.updates || count.deletions != expectation.deletions {
        report.shared.mismatchedModels.append(name)
      }
    }
  }

  // Drop everything, then count what is left.
  var weak = (
    artists: WeakObjects<Artist>(), albums: WeakObjects<Album>(),
    controllers: WeakObjects<RelationController<Album, Int>>(),
    trackers: WeakObjects<DependencyTracker>()
  )
  for worker in workers {
    weak.artists.append(contentsOf: worker.weakArtists)
    weak.albums.append(contentsOf: worker.weakAlbums)
    weak.controllers.append(contentsOf: worker.weakControllers)
    weak.trackers.append(contentsOf: worker.weakTrackers)
  }
  if let sharedTracker { weak.trackers.append(sharedTracker) }
  workers = []
  graveyard.withLock { $0 = [] }
  sharedBox.withLock { $0 = nil }
  sharedTracker = nil
  report.alive = StressReport.Alive(
    artists: weak.artists.alive, albums: weak.albums.alive,
    controllers: weak.controllers.alive, trackers: weak.trackers.alive, leased: lifetimes.live)
  report.registrationsAtEnd = _liveRegistrationCount
  return report
}

// MARK: - One thread

private func runWorker(
  thread: Int, operations: Int, lifetimes: LifetimeTracker,
  graveyard: _Lock<[Buried]>, shared: DependencyTracker
) -> WorkerResult {
  var rng = SplitMix64(seed: UInt64(thread + 1) &* 0x9E37_79B9_7F4A_7C15)
  var result = WorkerResult()
  // A label that announces its deletion is replaced: later albums get a live one, and no
  // deleted label is renamed (the recomputation reads a deleted label's name as empty).
  var labels = (0..<4).map { Label("t\(thread)L\($0)") }
  var artists: [Artist] = []
  var controllers: [ControllerEntry] = []
  var registrations: [Registration] = []
  var targets: [Target] = []
  var gauges: [(gauge: Gauge, source: () -> Album?)] = []
  var privateTrackers: [PrivateTracker] = []
  let kept = Counter("t\(thread)-kept")
  var doomed: [Counter] = []
  var counterNames = 0
  result.expectations[kept.name] = SharedExpectation()
  shared.add(kept)
  var albumNames = 0

  func makeAlbum() -> Album {
    albumNames += 1
    let album = Album(
      "t\(thread)a\(albumNames)", year: Int.random(in: 1960..<2030, using: &rng),
      isLive: Int.random(in: 0..<5, using: &rng) == 0,
      label: Bool.random(using: &rng) ? labels.randomElement(using: &rng) : nil,
      tracks: (0..<Int.random(in: 0..<3, using: &rng)).map { _ in
        Track(Int.random(in: 10..<120, using: &rng))
      })
    result.weakAlbums.append(album)
    return album
  }

  func makeArtist() {
    let artist = Artist((0..<Int.random(in: 3...14, using: &rng)).map { _ in makeAlbum() })
    result.weakArtists.append(artist)
    artists.append(artist)
  }

  /// A random album of a random artist that did not announce its deletion.
  func randomAlbum() -> Album? {
    guard let artist = artists.randomElement(using: &rng) else { return nil }
    return artist.albums.filter { !$0.isDeleted }.randomElement(using: &rng)
  }

  // Transactions: which counters and years a coalesced block touched (with each year's value
  // before the block: a coalesced registration hears nothing if the block put it back).
  var inBlock = false
  var blockAlbums: [(album: Album, yearBefore: Int)] = []
  var blockCounters: [Counter] = []

  func changeYear(_ album: Album) {
    var year = Int.random(in: 1960..<2030, using: &rng)
    if year == album.year { year += 1 }
    if inBlock && !blockAlbums.contains(where: { $0.album === album }) {
      blockAlbums.append((album, album.year))
    }
    album.year = year
    for registration in registrations where registration.album === album {
      let tally = registration.tally
      guard tally.counted, !tally.ended, !tally.handedOff else { continue }
      if !(inBlock && tally.coalesced) { tally.expected += 1 }
    }
  }

  func increment(_ counter: Counter) {
    counter.value += 1
    if inBlock {
      if !blockCounters.contains(where: { $0 === counter }) { blockCounters.append(counter) }
    } else {
      result.expectations[counter.name, default: SharedExpectation()].updates += 1
    }
  }

  func end(where predicate: (Registration) -> Bool) {
    for registration in registrations where predicate(registration) {
      registration.tally.ended = true
    }
    registrations.removeAll(where: predicate)
  }

  /// One edit of the thread's models (relations, attributes, counters).
  func edit() {
    switch Int.random(in: 0..<20, using: &rng) {
    case 0..<7:
      guard let artist = artists.randomElement(using: &rng) else { return }
      let count = artist.albums.count
      switch Int.random(in: 0..<6, using: &rng) {
      case 0 where count < 30:
        artist.insert(makeAlbum(), at: Int.random(in: 0...count, using: &rng), into: \.albums)
      case 1 where count > 0:
        artist.remove(at: Int.random(in: 0..<count, using: &rng), from: \.albums)
      case 2 where count > 0:
        artist.apply(
          .move(
            from: Int.random(in: 0..<count, using: &rng),
            to: Int.random(in: 0..<count, using: &rng)),
          to: \.albums)
      case 3 where count > 0:
        artist.apply(
          .replace(at: Int.random(in: 0..<count, using: &rng), with: makeAlbum()), to: \.albums)
      case 4:
        var next = artist.albums.filter { _ in Int.random(in: 0..<8, using: &rng) != 0 }
        next.shuffle(using: &rng)
        if next.count < 30 { next.append(makeAlbum()) }
        artist.albums = next
      default:
        guard let album = randomAlbum() else { return }
        changeYear(album)
      }
    case 7..<11:
      guard let album = randomAlbum() else { return }
      changeYear(album)
    case 11..<13:
      randomAlbum()?.title = "t\(Int.random(in: 0..<1_000, using: &rng))"
    case 13:
      randomAlbum()?.isLive.toggle()
    case 14:
      guard let album = randomAlbum() else { return }
      if album.tracks.isEmpty || Bool.random(using: &rng) {
        album.tracks.append(Track(Int.random(in: 10..<120, using: &rng)))
      } else {
        album.tracks[0].duration = Int.random(in: 10..<120, using: &rng)
      }
    case 15:
      randomAlbum()?.label = Bool.random(using: &rng) ? nil : labels.randomElement(using: &rng)
    case 16:
      labels.randomElement(using: &rng)?.name = "t\(thread)L\(Int.random(in: 0..<9, using: &rng))"
    default:
      increment(Bool.random(using: &rng) || doomed.isEmpty ? kept : doomed[0])
    }
  }

  /// A controller over `artist` with a random configuration, its changes replayed by a checker.
  func makeController(of artist: Artist) {
    let configuration = FuzzConfiguration.all.randomElement(using: &rng)!  // not empty
    do {
      let controller = try RelationController(
        \.albums, of: artist, filter: configuration.filter.map { .matching($0) },
        sortedBy: configuration.sortedBy,
        sectionedBy: configuration.section, observing: [\.title], delivery: .synchronous)
      let checker = ReplayChecker(controller.snapshot.itemIdentifiers)
      let changeToken = controller.onChange { [unowned controller] changes in
        checker.check(changes, current: controller.snapshot.itemIdentifiers)
      }
      result.weakControllers.append(controller)
      result.checkers.append(checker)
      controllers.append(
        ControllerEntry(
          controller: controller, artist: artist, configuration: configuration,
          checker: checker, token: changeToken))
    } catch {
      result.checkers.append(ReplayChecker([]))
      result.checkers[result.checkers.count - 1].failures.append("creation: \(error)")
    }
  }

  makeArtist()
  for operation in 0..<operations {
    result.operations += 1
    if operation % 500 == 0 {
      result.peak = max(result.peak, _liveRegistrationCount)
      end { $0.album == nil }  // their albums left every relation and died
    }
    switch Int.random(in: 0..<100, using: &rng) {
    case 0..<3:  // an owner of relations appears
      if artists.count < 3 { makeArtist() }
    case 3:  // an owner goes (its controllers keep what they show, or go too)
      guard artists.count > 1 else { continue }
      let gone = artists.remove(at: Int.random(in: 0..<artists.count, using: &rng))
      if Bool.random(using: &rng) { controllers.removeAll { $0.artist === gone } }
    case 4..<7:  // a controller appears
      guard controllers.count < 4, let artist = artists.randomElement(using: &rng) else {
        continue
      }
      makeController(of: artist)
    case 7:  // a controller goes
      guard !controllers.isEmpty else { continue }
      controllers.remove(at: Int.random(in: 0..<controllers.count, using: &rng))
    case 8:  // a controller is handed to whichever thread empties the graveyard
      guard !controllers.isEmpty else { continue }
      let entry = controllers.remove(at: Int.random(in: 0..<controllers.count, using: &rng))
      graveyard.withLock { $0.append(.controller(entry.controller)) }
      result.controllersHandedOver += 1
    case 9:  // a controller is reconfigured
      guard !controllers.isEmpty else { continue }
      let index = Int.random(in: 0..<controllers.count, using: &rng)
      let next = FuzzConfiguration.all.randomElement(using: &rng)!  // not empty
      do {
        try controllers[index].controller.reconfigure { configuration in
          configuration.filter = next.filter.map { .init($0) }
          configuration.sortedBy = next.sortedBy
          configuration.sectionedBy = next.section
        }
        controllers[index].configuration = next
      } catch {
        controllers[index].checker.failures.append("reconfigure: \(error)")
      }
    case 10..<30:
      edit()
    case 30..<37:  // one coalesced block, one change set per controller at most
      let before = controllers.map { $0.checker.changeSets }
      inBlock = true
      coalesce {
        for _ in 0..<Int.random(in: 1...6, using: &rng) { edit() }
      }
      inBlock = false
      for (album, yearBefore) in blockAlbums where album.year != yearBefore {
        for registration in registrations where registration.album === album {
          let tally = registration.tally
          if tally.counted && tally.coalesced && !tally.ended && !tally.handedOff {
            tally.expected += 1
          }
        }
      }
      for counter in blockCounters {
        result.expectations[counter.name, default: SharedExpectation()].updates += 1
      }
      blockAlbums = []
      blockCounters = []
      for (entry, count) in zip(controllers, before) where entry.checker.changeSets > count + 1 {
        result.blocksWithSeveralChangeSets += 1
      }
    case 37..<45:  // a token
      guard let album = randomAlbum() else { continue }
      let coalesced = Bool.random(using: &rng)
      let counted = Int.random(in: 0..<4, using: &rng) != 0
      let tally = Tally(counted: counted, coalesced: coalesced)
      result.tallies.append(tally)
      let options: ObservationOptions = coalesced ? .coalesced : []
      let token: ObservationToken
      if counted {
        token = album.observe(
          \.year, options: options, onDeletion: { tally.hear(deletion: true) }
        ) { _ in tally.hear(deletion: false) }
      } else if Bool.random(using: &rng) {
        token = album.observe(
          \.labelName, options: options, onDeletion: { tally.hear(deletion: true) }
        ) { _ in tally.hear(deletion: false) }
      } else {
        token = album.observe(
          \.totalDuration, options: options, onDeletion: { tally.hear(deletion: true) }
        ) { _ in tally.hear(deletion: false) }
      }
      registrations.append(
        Registration(album: album, tally: tally, token: token, target: nil))
    case 45..<51:  // a target
      guard let album = randomAlbum() else { continue }
      if targets.count < 8 { targets.append(Target(lifetimes)) }
      let target = targets.randomElement(using: &rng)!  // not empty
      let tally = Tally(counted: true, coalesced: false)
      result.tallies.append(tally)
      album.addTarget(
        target, for: \.year,
        onDeletion: { target in
          target.hits += 1
          tally.hear(deletion: true)
        }
      ) { target, _ in
        target.hits += 1
        tally.hear(deletion: false)
      }
      registrations.append(
        Registration(album: album, tally: tally, token: nil, target: ObjectIdentifier(target)))
    case 51..<53:  // a target dies
      guard !targets.isEmpty else { continue }
      let dying = ObjectIdentifier(
        targets.remove(at: Int.random(in: 0..<targets.count, using: &rng)))
      end { $0.target == dying }
    case 53:  // a target is removed from an album
      guard
        let registration = registrations.filter({ $0.target != nil }).randomElement(using: &rng),
        let target = targets.first(where: { ObjectIdentifier($0) == registration.target }),
        let album = registration.album
      else { continue }
      album.removeTarget(target, for: \.year)
      end { $0.album === album && $0.target == registration.target }
    case 54..<57:  // a token is cancelled, or dropped
      guard let index = registrations.indices.randomElement(using: &rng),
        let token = registrations[index].token
      else { continue }
      if Bool.random(using: &rng) { token.cancel() }
      registrations[index].tally.ended = true
      registrations.remove(at: index)
    case 57:  // a token is handed to whichever thread empties the graveyard
      guard let index = registrations.indices.randomElement(using: &rng),
        let token = registrations[index].token
      else { continue }
      registrations[index].tally.handedOff = true
      graveyard.withLock { $0.append(.token(token)) }
      registrations.remove(at: index)
    case 58..<62:  // a binding
      guard let album = randomAlbum() else { continue }
      if gauges.count < 8 {
        let gauge = Gauge(lifetimes)
        gauge.bind(\.value, to: album, \.year)
        gauges.append((gauge, { [weak album] in album }))
      } else {
        let index = Int.random(in: 0..<gauges.count, using: &rng)
        gauges[index].gauge.bind(\.value, to: album, \.year)  // replaces the old binding
        gauges[index].source = { [weak album] in album }
      }
    case 62:  // a binding ends, or its receiver goes
      guard let index = gauges.indices.randomElement(using: &rng) else { continue }
      if Bool.random(using: &rng) { gauges[index].gauge.unbindAll() }
      gauges.remove(at: index)
    case 63..<65:  // a private tracker appears
      guard privateTrackers.count < 2 else { continue }
      let tally = Tally(counted: false, coalesced: false)
      result.privateTallies.append(tally)
      let tracker = DependencyTracker(delivery: .synchronous) { event in
        tally.hear(deletion: event.isDeletion)
      }
      result.weakTrackers.append(tracker)
      for _ in 0..<3 { if let album = randomAlbum() { tracker.add(album) } }
      if let artist = artists.randomElement(using: &rng) { tracker.add(artist) }
      privateTrackers.append(PrivateTracker(tracker, tally))
    case 65:  // a private tracker goes: nothing may reach its handler any more
      guard !privateTrackers.isEmpty else { continue }
      let gone = privateTrackers.remove(at: Int.random(in: 0..<privateTrackers.count, using: &rng))
      gone.tally.ended = true
    case 66:  // a private tracker is handed over
      guard !privateTrackers.isEmpty else { continue }
      let gone = privateTrackers.remove(at: Int.random(in: 0..<privateTrackers.count, using: &rng))
      gone.tally.handedOff = true
      graveyard.withLock { $0.append(.tracker(gone.tracker)) }
    case 67..<72:  // the shared tracker: doomed models, visitors
      switch Int.random(in: 0..<4, using: &rng) {
      case 0 where doomed.count < 3:
        counterNames += 1
        let counter = Counter("t\(thread)-d\(counterNames)")
        result.expectations[counter.name] = SharedExpectation()
        doomed.append(counter)
        shared.add(counter)
      case 1 where !doomed.isEmpty:
        let counter = doomed.removeFirst()
        counter.announceDeletion()
        result.expectations[counter.name, default: SharedExpectation()].deletions += 1
      case 2:
        counterNames += 1
        let visitor = Counter("t\(thread)-v\(counterNames)")
        result.expectations[visitor.name] = SharedExpectation(visitor: true)
        shared.add(visitor)
        shared.remove(visitor)
      default:
        increment(doomed.randomElement(using: &rng) ?? kept)
      }
    case 72..<74:  // empty the graveyard: cancel, read and drop what other threads left
      let taken = graveyard.withLock { buried in
        defer { buried = [] }
        return buried
      }
      for (index, item) in taken.enumerated() {
        switch item {
        case .token(let token): if index.isMultiple(of: 2) { token.cancel() }
        case .controller(let controller):
          // Reading another thread's controller: its content is behind its lock.
          if controller.snapshot.sectionIdentifiers.count == controller.numberOfSections {
            result.controllersReadElsewhere += 1
          }
        case .tracker(let tracker): _ = tracker.count
        }
      }
    case 74:  // an album announces its deletion
      guard let album = randomAlbum() else { continue }
      for registration in registrations where registration.album === album {
        let tally = registration.tally
        if tally.counted && !tally.handedOff && !tally.ended { tally.expectedDeletions += 1 }
      }
      album.announceDeletion()
      end { $0.album === album }
    case 75:  // a label that many albums read announces its deletion: one transaction
      let index = Int.random(in: 0..<labels.count, using: &rng)
      let deleted = labels[index]
      labels[index] = Label("t\(thread)L\(Int.random(in: 0..<9, using: &rng))")
      let before = controllers.map { $0.checker.changeSets }
      deleted.announceDeletion()
      result.labelDeletions += 1
      for (entry, count) in zip(controllers, before) where entry.checker.changeSets > count + 1 {
        result.labelDeletionsWithSeveralChangeSets += 1
      }
    default:
      edit()
    }
  }

  // At least one controller whose owner lives is checked against its relation after the join,
  // however the random operations ended.
  if !controllers.contains(where: { entry in artists.contains { $0 === entry.artist } }) {
    if artists.isEmpty { makeArtist() }
    makeController(of: artists[0])
  }

  // Hand everything back; it is checked after the join.
  result.artists = artists
  result.controllers = controllers
  result.gauges = gauges
  return result
}
