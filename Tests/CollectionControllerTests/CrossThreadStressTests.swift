import Binding
import CollectionController
import Foundation
import Synchronization
import TestSupport
import Testing

/// Generators of what threads do to one controller at once, each checked after its threads
/// joined (no timing is asserted): two or more threads in overlapping and nested `coalesce`
/// blocks on one synchronous controller; relation writes racing a controller's creation and
/// its reconfiguration; long queued backlogs with handlers cancelled among them; elements
/// written on other threads than the delivery context of a queued controller.
///
/// Every test follows the threading contract (`ChangeDelivery.md`, *What a controller reads,
/// and where*): whatever a controller's functions read of an element is written with its
/// drains serialised, by the delivery context (a queue) or by one lock (synchronous delivery
/// shared by several writing threads). `.ci/run` runs them under ThreadSanitizer, which
/// checks that the pattern is enough.
///
/// `CROSS_THREAD_STRESS_STEPS` sets the steps per thread of each test (default 400, a few
/// seconds in all in debug); CI's long step in `.ci/run` runs 20,000 in release (about nine
/// seconds here):
///
///     CROSS_THREAD_STRESS_STEPS=20000 swift test -c release --filter CrossThreadStressTests
@Suite struct CrossThreadStressTests {
  static var steps: Int {
    RelationControllerFuzzTests.environment("CROSS_THREAD_STRESS_STEPS") ?? 400
  }
}

/// The calling thread, as a number (`pthread_t` is a pointer on Apple platforms).
private func currentThreadID() -> UInt {
  UInt(bitPattern: Int(bitPattern: pthread_self()))
}

extension Album {
  /// Marks a write of the album for ThreadSanitizer (see `raceMark`): every write these tests
  /// make bumps it.
  func markWritten() { raceMark &+= 1 }

  /// Reads the mark (see `raceMark`): the controllers' functions do, where they read the album.
  var marked: Bool { raceMark >= 0 }
}

/// A comparator of live elements by year (descending) that reads the marks of both.
private func byYearDescendingReadingMarks() -> ClosureComparator {
  ClosureComparator { a, b in
    guard a.marked && b.marked else { return .orderedSame }
    return FuzzConfiguration.order(b.year, a.year)
  }
}

/// Replays every change set of one controller onto the content before it.
private final class ContentReplay {
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

// MARK: - Overlapping and nested blocks on one synchronous controller

/// What `overlappingAndNestedBlocksOnSeveralThreadsAreOneChangeSetEach` saw.
struct BlocksReport: Sendable {
  /// Outermost blocks and writes outside a block, on all threads.
  var transactions = 0
  var nestedBlocks = 0
  /// Blocks during which another thread's block was open.
  var overlappingBlocks = 0
  var changeSets = 0
  /// Transactions not delivered exactly once per controller, on their thread, before they
  /// returned.
  var notDeliveredOnce = 0
  /// Transactions whose change set did not report exactly the elements they changed, or
  /// inserted or deleted something.
  var wrongElements = 0
  /// Change sets delivered on a thread that did not hold the writers' lock.
  var wrongThread = 0
  /// Another thread's elements moved (unchanged) in a change set: only those whose thread's
  /// block was open then (their events wait, and the drainer places them by their new keys).
  var foreignMoves = 0
  var foreignMovesOfClosedBlocks = 0
  var replayFailures: [String] = []
  var contentMismatches = 0
}

/// What the writers share. Every field is touched with `lock` held: by the writers, and by
/// the handlers, which run in drains, which run with it held (the pattern under test).
private final class BlockRace {
  let lock = NSLock()
  let threadCount: Int
  /// Each writer's thread, by index.
  var threads: [UInt]
  /// The writer holding `lock`.
  var holder = -1
  /// Whether each writer's outermost block is open with writes in it.
  var open: [Bool]
  /// Writers that reached the rendezvous in their first block.
  var arrived = 0
  /// Per controller, per writer: the elements each change set delivered to it reported as
  /// changed, and whether it inserted or deleted anything.
  var delivered: [[[(changed: Set<ObjectIdentifier>, insertedOrDeleted: Bool)]]]
  var replays: [ContentReplay] = []
  var wrongThread = 0
  var foreignMoves = 0
  var foreignMovesOfClosedBlocks = 0
  /// Each album's writer.
  let owners: [ObjectIdentifier: Int]

  init(threads: Int, controllers: Int, owners: [ObjectIdentifier: Int]) {
    threadCount = threads
    self.threads = Array(repeating: 0, count: threads)
    open = Array(repeating: false, count: threads)
    delivered = Array(repeating: Array(repeating: [], count: threads), count: controllers)
    self.owners = owners
  }

  /// Runs `body` with `lock` held by writer `thread`.
  func locked<T>(_ thread: Int, _ body: () -> T) -> T {
    lock.lock()
    holder = thread
    defer {
      holder = -1
      lock.unlock()
    }
    return body()
  }

  /// Records what a change set delivered to controller `index` reports, with `lock` held.
  func record(
    _ changes: RelationChangeSet<Album>, controller index: Int, current: [[ObjectIdentifier]]
  ) {
    let me = holder
    guard me >= 0, threads[me] == currentThreadID() else {
      wrongThread += 1
      return
    }
    var changed = Set(changes.updatedElements.map(ObjectIdentifier.init))
    for (move, element) in zip(changes.movedRows, changes.movedElements) {
      let id = ObjectIdentifier(element)
      if move.changed {
        changed.insert(id)
      } else if let owner = owners[id], owner != me {
        foreignMoves += 1
        if !open[owner] { foreignMovesOfClosedBlocks += 1 }
      }
    }
    let insertedOrDeleted =
      !changes.insertedElements.isEmpty || !changes.deletedElements.isEmpty
      || !changes.insertedSections.isEmpty || !changes.deletedSections.isEmpty
    delivered[index][me].append((changed, insertedOrDeleted))
    replays[index].check(changes, current: current)
  }
}

extension CrossThreadStressTests {
  /// Writers share one synchronous controller (two, one with kept sort keys, one comparing
  /// live elements) over one artist; each writes only its own albums, in outermost and nested
  /// `coalesce` blocks that overlap those of the others, and with no block. Each outermost
  /// block, and each write outside one, is one change set per controller, delivered on its
  /// thread before it returns, that reports exactly the albums whose observed title it
  /// changed; all change sets replay, and the content is the recomputed one.
  ///
  /// The controller's drainer (the writing thread) places every element whose event waits,
  /// other threads' included, so the writes and the ends of outermost blocks are serialised
  /// by one lock (the contract for a synchronous controller written on several threads);
  /// the bodies of blocks run without it, so the blocks overlap.
  @Test func overlappingAndNestedBlocksOnSeveralThreadsAreOneChangeSetEach() async {
    let steps = Self.steps
    let report = await onNewThread { runOverlappingBlocks(threads: 3, steps: steps) }
    print("CrossThreadStressTests, blocks: \(report)")
    #expect(report.transactions == 3 * steps)
    #expect(report.nestedBlocks > 0)
    #expect(report.overlappingBlocks > 0)
    // Every transaction is one change set per controller.
    #expect(report.changeSets == 2 * report.transactions)
    #expect(report.notDeliveredOnce == 0)
    #expect(report.wrongElements == 0)
    #expect(report.wrongThread == 0)
    #expect(report.foreignMovesOfClosedBlocks == 0)
    #expect(report.replayFailures == [])
    #expect(report.contentMismatches == 0)
  }
}

private func runOverlappingBlocks(threads: Int, steps: Int) -> BlocksReport {
  var report = BlocksReport()
  var rng = SplitMix64(seed: 0xB10C)
  let perThread = 8
  let albums = (0..<threads * perThread).map {
    Album("t\($0 % threads)-\($0 / threads)", year: Int.random(in: 1960..<2030, using: &rng))
  }
  let artist = Artist(albums)
  var owners: [ObjectIdentifier: Int] = [:]
  for (offset, album) in albums.enumerated() { owners[ObjectIdentifier(album)] = offset % threads }
  let race = BlockRace(threads: threads, controllers: 2, owners: owners)
  let orders:
    [(sortedBy: [any SortComparator<Album>], compare: (Album, Album) -> ComparisonResult)] = [
      ([SortDescriptor(\.year)], { FuzzConfiguration.order($0.year, $1.year) }),
      ([byYearDescendingReadingMarks()], { FuzzConfiguration.order($1.year, $0.year) }),
    ]
  var controllers: [RelationController<Album, Unsectioned>] = []
  var tokens: [ObservationToken] = []
  for (index, order) in orders.enumerated() {
    do {
      let controller = try RelationController(
        \.albums, of: artist, filter: .matching { $0.marked }, sortedBy: order.sortedBy,
        observing: [\.title], delivery: .synchronous)
      race.replays.append(ContentReplay(controller.snapshot.itemIdentifiers))
      tokens.append(
        controller.onChange { [unowned controller] changes in
          race.record(changes, controller: index, current: controller.snapshot.itemIdentifiers)
        })
      controllers.append(controller)
    } catch {
      report.replayFailures.append("creation: \(error)")
      return report
    }
  }

  let handed = Handed(value: (race, albums))
  let tallies = Mutex<[BlocksReport]>([])
  onThreads(threads) { thread in
    let (race, albums) = handed.value
    let mine = albums.enumerated().filter { $0.offset % threads == thread }.map(\.element)
    let tally = runBlockWriter(thread, race: race, mine: mine, steps: steps)
    tallies.withLock { $0.append(tally) }
  }

  for tally in tallies.withLock({ $0 }) {
    report.transactions += tally.transactions
    report.nestedBlocks += tally.nestedBlocks
    report.overlappingBlocks += tally.overlappingBlocks
    report.notDeliveredOnce += tally.notDeliveredOnce
    report.wrongElements += tally.wrongElements
  }
  report.wrongThread = race.wrongThread
  report.foreignMoves = race.foreignMoves
  report.foreignMovesOfClosedBlocks = race.foreignMovesOfClosedBlocks
  for replay in race.replays {
    report.changeSets += replay.changeSets
    report.replayFailures += replay.failures.prefix(3)
  }
  for (controller, order) in zip(controllers, orders) {
    let configuration = FuzzConfiguration(
      name: "", filter: nil, sortedBy: order.sortedBy, compare: order.compare,
      section: { _ in 0 }, reads: { _, _ in })  // only the content is compared here
    if !configuration.matches(controller.snapshot.itemIdentifiers, artist.albums) {
      report.contentMismatches += 1
    }
  }
  for token in tokens { token.cancel() }
  return report
}

/// One writer of `runOverlappingBlocks`: `steps` transactions on its own albums.
private func runBlockWriter(
  _ thread: Int, race: BlockRace, mine: [Album], steps: Int
) -> BlocksReport {
  var tally = BlocksReport()
  var rng = SplitMix64(seed: UInt64(thread) &+ 0x0B1C_0C5)
  var titles = 0
  race.locked(thread) { race.threads[thread] = currentThreadID() }
  // The threads' ids are all known before any change set is delivered.
  while race.locked(thread, { race.threads.contains(0) }) { sched_yield() }

  /// One write (with the lock held): a fresh title (an update of the observed attribute) or a
  /// new year (a move); either is a visible change, reported as the album's (see
  /// `RelationUpdates`).
  func write(title: Bool, into changed: inout Set<ObjectIdentifier>) {
    let album = mine[Int.random(in: 0..<mine.count, using: &rng)]
    album.markWritten()
    changed.insert(ObjectIdentifier(album))
    if title {
      titles += 1
      album.title = "t\(thread)-\(titles)"
    } else {
      var year = Int.random(in: 1960..<2030, using: &rng)
      if year == album.year { year += 1 }
      album.year = year
    }
  }

  /// Whether each controller received exactly one change set since `before`, reporting
  /// `changed` (with the lock held).
  func check(since before: [Int], changed: Set<ObjectIdentifier>) {
    for (index, count) in before.enumerated() {
      let received = race.delivered[index][thread]
      guard received.count == count + 1, let last = received.last else {
        tally.notDeliveredOnce += 1
        continue
      }
      if last.changed != changed || last.insertedOrDeleted { tally.wrongElements += 1 }
    }
  }

  for step in 0..<steps {
    tally.transactions += 1
    if step > 0 && Int.random(in: 0..<4, using: &rng) == 0 {
      // One write, no block: its own transaction.
      race.locked(thread) {
        let before = race.delivered.map { $0[thread].count }
        var changed = Set<ObjectIdentifier>()
        write(title: true, into: &changed)
        check(since: before, changed: changed)
      }
      continue
    }
    var changed = Set<ObjectIdentifier>()
    var overlapped = false
    race.lock.lock()
    race.holder = thread
    let before = race.delivered.map { $0[thread].count }
    coalesce {
      // The body runs without the lock, each write with it: blocks overlap.
      race.holder = -1
      race.lock.unlock()
      let writes = Int.random(in: 1...5, using: &rng)
      for offset in 0..<writes {
        race.locked(thread) {
          race.open[thread] = true
          // The first write changes a title, so that the block is never invisible.
          write(title: offset == 0 || Bool.random(using: &rng), into: &changed)
          if race.open.indices.contains(where: { $0 != thread && race.open[$0] }) {
            overlapped = true
          }
        }
        if step == 0 && offset == 0 {
          // Every writer's first block is open at once.
          race.locked(thread) { race.arrived += 1 }
          while race.locked(thread, { race.arrived < race.threadCount }) { sched_yield() }
          overlapped = true
        }
        if Int.random(in: 0..<3, using: &rng) == 0 {
          tally.nestedBlocks += 1
          coalesce {
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
              race.locked(thread) { write(title: Bool.random(using: &rng), into: &changed) }
            }
          }
        }
        if Bool.random(using: &rng) { sched_yield() }
      }
      // The block ends (and drains, delivering its change set here) with the lock held.
      race.lock.lock()
      race.holder = thread
    }
    race.open[thread] = false
    check(since: before, changed: changed)
    race.holder = -1
    race.lock.unlock()
    if overlapped { tally.overlappingBlocks += 1 }
  }
  return tally
}

// MARK: - Relation writes racing creation and reconfiguration

/// What `relationWritesRacingCreationAndReconfigurationAreNeverLost` saw.
struct CreationRaceReport: Sendable {
  var writes = 0
  var creations = 0
  var reconfigurations = 0
  /// Windows opened inside a creation or a reconfiguration in which a writer wrote.
  var writesDuringCreation = 0
  var writesDuringReconfiguration = 0
  var changeSets = 0
  var controllersChecked = 0
  var contentMismatches = 0
  var failures: [String] = []
}

/// What the writers and the creator share. The models and the controllers are touched with
/// `lock` held (the models' contract: one writer at a time, and a controller's creation reads
/// its relation); `writes` and `creator` are their own locks; the rest is the creator's.
private final class CreationRace {
  let lock = NSLock()
  /// Writes made so far: a window waits for one.
  let writes = Mutex(0)
  /// The creator's thread, once it runs.
  let creator = Mutex<UInt>(0)
  let creatorDone = Mutex(false)
  // The creator's own, read by the filters only on its thread.
  /// What the creator is doing: windows open only then.
  var inside: Inside = .nothing
  /// How many times the filters ran on the creator's thread since it began its call, and at
  /// which of those runs a window opens.
  var filterRuns = 0
  var windowsAt: Set<Int> = []
  var writesDuringCreation = 0
  var writesDuringReconfiguration = 0

  enum Inside { case nothing, creation, reconfiguration }

  /// Called by every filter: on the creator's thread, inside a creation or a reconfiguration,
  /// at the chosen runs, lets go of `lock` until a writer wrote (or a while passed), and takes
  /// it again before the filter reads its element.
  func window() {
    guard currentThreadID() == creator.withLock({ $0 }), inside != .nothing else { return }
    filterRuns += 1
    guard windowsAt.contains(filterRuns) else { return }
    let before = writes.withLock { $0 }
    lock.unlock()
    var spins = 0
    while writes.withLock({ $0 }) == before && spins < 2_000 && !creatorDone.withLock({ $0 }) {
      sched_yield()
      spins += 1
    }
    lock.lock()
    guard writes.withLock({ $0 }) != before else { return }
    if inside == .creation { writesDuringCreation += 1 } else { writesDuringReconfiguration += 1 }
  }

  /// Wraps a configuration's filter (none: all albums) so that it opens windows.
  func filter(_ base: ((Album) -> Bool)?) -> RelationController<Album, Int>.Filter {
    .matching { album in
      self.window()
      return album.marked && base?(album) ?? true
    }
  }
}

extension CrossThreadStressTests {
  /// Writers edit an artist's relation (and its albums) while another thread creates,
  /// reconfigures and drops synchronous controllers over it. The filters of the creator's
  /// controllers let writers in (a window) at chosen runs inside the creation (during the
  /// validation, or while the first content is built: after the relation was read, before
  /// the controller observes it) and inside the reconfiguration (while its transaction runs,
  /// so the writes queue behind it). Every change set replays, and after the threads joined
  /// each controller shows the recomputed content of the relation.
  ///
  /// The models' contract holds: the relation and the albums are written by one thread at a
  /// time (a lock), and the creator holds it while it reads them (outside the windows).
  @Test func relationWritesRacingCreationAndReconfigurationAreNeverLost() async {
    let steps = Self.steps
    let report = await onNewThread { runCreationRace(writers: 2, steps: steps) }
    print("CrossThreadStressTests, creation race: \(report)")
    #expect(report.creations > 0 && report.reconfigurations > 0)
    #expect(report.writes >= steps)
    #expect(report.writesDuringCreation > 0)
    #expect(report.writesDuringReconfiguration > 0)
    #expect(report.changeSets > 0)
    #expect(report.failures == [])
    #expect(report.controllersChecked > 0)
    #expect(report.contentMismatches == 0)
  }
}

private struct CreatedController {
  let controller: RelationController<Album, Int>
  var configuration: FuzzConfiguration
  let replay: ContentReplay
  let token: ObservationToken
}

private func runCreationRace(writers: Int, steps: Int) -> CreationRaceReport {
  var report = CreationRaceReport()
  let race = CreationRace()
  let labels = (0..<3).map { Label("L\($0)") }
  let artist = Artist((0..<12).map { Album("a\($0)", year: 1960 + $0 * 5, label: labels[$0 % 3]) })
  let handed = Handed(value: (race, artist, labels))
  let results = Mutex<
    [Handed<(writes: Int, controllers: [CreatedController], report: CreationRaceReport)>]
  >([])
  // Writers write until the creator is done (at least `steps` writes each); the creator
  // makes `steps / 4` creations, reconfigurations and drops.
  onThreads(writers + 1) { thread in
    let (race, artist, labels) = handed.value
    if thread == writers {
      let (controllers, tally) = runCreator(race: race, artist: artist, actions: max(steps / 4, 20))
      race.creatorDone.withLock { $0 = true }
      results.withLock { $0.append(Handed(value: (0, controllers, tally))) }
    } else {
      let writes = runRelationWriter(
        thread, race: race, artist: artist, labels: labels, minimum: steps)
      results.withLock { $0.append(Handed(value: (writes, [], CreationRaceReport()))) }
    }
  }
  for result in results.withLock({ $0 }) {
    let (writes, controllers, tally) = result.value
    report.writes += writes
    report.creations += tally.creations
    report.reconfigurations += tally.reconfigurations
    report.failures += tally.failures
    for entry in controllers {
      report.controllersChecked += 1
      report.changeSets += entry.replay.changeSets
      report.failures += entry.replay.failures.prefix(3)
      if !entry.configuration.matches(entry.controller.snapshot.itemIdentifiers, artist.albums) {
        report.contentMismatches += 1
      }
      entry.token.cancel()
    }
  }
  report.writesDuringCreation = race.writesDuringCreation
  report.writesDuringReconfiguration = race.writesDuringReconfiguration
  return report
}

/// A writer of `runCreationRace`: one edit of the relation or of an album (or a block of a
/// few) at a time, with the lock held, until the creator is done and it made `minimum`.
private func runRelationWriter(
  _ thread: Int, race: CreationRace, artist: Artist, labels: [Label], minimum: Int
) -> Int {
  var rng = SplitMix64(seed: UInt64(thread) &+ 0xC2EA7E)
  var names = 0
  var writes = 0
  func makeAlbum() -> Album {
    names += 1
    return Album(
      "w\(thread)-\(names)", year: Int.random(in: 1960..<2030, using: &rng),
      isLive: Int.random(in: 0..<4, using: &rng) == 0,
      label: labels.randomElement(using: &rng),
      tracks: (0..<Int.random(in: 0..<3, using: &rng)).map { _ in
        Track(Int.random(in: 10..<120, using: &rng))
      })
  }
  func edit() {
    let count = artist.albums.count
    switch Int.random(in: 0..<12, using: &rng) {
    case 0 where count < 30:
      artist.insert(makeAlbum(), at: Int.random(in: 0...count, using: &rng), into: \.albums)
    case 1 where count > 4:
      artist.remove(at: Int.random(in: 0..<count, using: &rng), from: \.albums)
    case 2 where count > 0:
      artist.apply(
        .move(
          from: Int.random(in: 0..<count, using: &rng), to: Int.random(in: 0..<count, using: &rng)),
        to: \.albums)
    case 3 where count > 0:
      artist.apply(
        .replace(at: Int.random(in: 0..<count, using: &rng), with: makeAlbum()), to: \.albums)
    case 4:
      var next = artist.albums.filter { _ in Int.random(in: 0..<6, using: &rng) != 0 }
      next.shuffle(using: &rng)
      if next.count < 30 { next.append(makeAlbum()) }
      artist.albums = next
    default:
      guard let album = artist.albums.randomElement(using: &rng) else { return }
      album.markWritten()
      switch Int.random(in: 0..<5, using: &rng) {
      case 0, 1: album.year = Int.random(in: 1960..<2030, using: &rng)
      case 2: album.isLive.toggle()
      case 3: album.tracks.append(Track(Int.random(in: 10..<120, using: &rng)))
      default: album.label = labels.randomElement(using: &rng)
      }
    }
  }
  while writes < minimum || !race.creatorDone.withLock({ $0 }) {
    race.lock.lock()
    if Int.random(in: 0..<5, using: &rng) == 0 {
      coalesce {
        for _ in 0..<Int.random(in: 2...4, using: &rng) { edit() }
      }
    } else {
      edit()
    }
    race.lock.unlock()
    writes += 1
    race.writes.withLock { $0 += 1 }
    sched_yield()
  }
  return writes
}

/// The creator of `runCreationRace`: creates, reconfigures and drops controllers, with the
/// lock held but in the windows its filters open.
private func runCreator(
  race: CreationRace, artist: Artist, actions: Int
) -> (controllers: [CreatedController], report: CreationRaceReport) {
  var rng = SplitMix64(seed: 0xC2EA702)
  var report = CreationRaceReport()
  var controllers: [CreatedController] = []
  race.creator.withLock { $0 = currentThreadID() }
  let configurations = FuzzConfiguration.all

  /// Begins a call: windows open at one or two of the filter's next runs.
  func begin(_ inside: CreationRace.Inside) {
    race.inside = inside
    race.filterRuns = 0
    let runs = max(artist.albums.count, 1)
    race.windowsAt = [
      Int.random(in: 1...runs, using: &rng), Int.random(in: 1...2 * runs, using: &rng),
    ]
  }

  for _ in 0..<actions {
    race.lock.lock()
    defer {
      race.inside = .nothing
      race.lock.unlock()
    }
    switch Int.random(in: 0..<10, using: &rng) {
    case 0..<4 where controllers.count < 4:
      let configuration = configurations[Int.random(in: 0..<configurations.count, using: &rng)]
      begin(.creation)
      do {
        let controller = try RelationController(
          \.albums, of: artist, filter: race.filter(configuration.filter),
          sortedBy: configuration.sortedBy, sectionedBy: configuration.section,
          delivery: .synchronous)
        race.inside = .nothing
        report.creations += 1
        // With the lock held: no write, so no change set, comes between.
        let replay = ContentReplay(controller.snapshot.itemIdentifiers)
        let token = controller.onChange { [unowned controller] changes in
          replay.check(changes, current: controller.snapshot.itemIdentifiers)
        }
        controllers.append(
          CreatedController(
            controller: controller, configuration: configuration, replay: replay, token: token))
      } catch {
        report.failures.append("creation: \(error)")
      }
    case 0..<8 where !controllers.isEmpty:
      let index = Int.random(in: 0..<controllers.count, using: &rng)
      let next = configurations[Int.random(in: 0..<configurations.count, using: &rng)]
      begin(.reconfiguration)
      do {
        try controllers[index].controller.reconfigure { configuration in
          configuration.filter = race.filter(next.filter)
          configuration.sortedBy = next.sortedBy
          configuration.sectionedBy = next.section
        }
        controllers[index].configuration = next
        report.reconfigurations += 1
      } catch {
        report.failures.append("reconfiguration: \(error)")
      }
    case 8 where controllers.count > 1:
      let gone = controllers.remove(at: Int.random(in: 0..<controllers.count, using: &rng))
      gone.token.cancel()
    default:
      _ = controllers.randomElement(using: &rng)?.controller.snapshot
    }
  }
  return (controllers, report)
}

// MARK: - Long queued backlogs with cancellations among them

/// What `aLongQueuedBacklogWithCancellationsReplaysAndReachesNoCancelledHandler` saw.
struct BacklogReport: Sendable {
  var writes = 0
  var changeSets = 0
  /// The most change sets one drain delivered (the longest backlog drained at once).
  var longestDrain = 0
  var handlers = 0
  var cancelledByTheWriter = 0
  var releasedByTheWriter = 0
  var cancelledByHandlers = 0
  var callsAfterCancel = 0
  var replayFailures: [String] = []
  var contentMatches = false
}

/// A handler of the backlog test and what it heard. Touched only on the queue (the writer
/// works inside `queue.sync`).
private final class BacklogHandler {
  var token: ObservationToken?
  /// Set right after its `cancel()` returned, or its token was released.
  var ended = false
  var calls = 0
  var callsAfterEnd = 0
  /// Whether it cancels a handler, now and then, when it is called.
  let cancels: Bool

  init(cancels: Bool) { self.cancels = cancels }
}

/// The handlers of the backlog test and what they share; touched only on the queue.
private final class BacklogState {
  var live: [BacklogHandler] = []
  var ended: [BacklogHandler] = []
  var cancelledByHandlers = 0
  var delivered = 0
  var rng = SplitMix64(seed: 0xBAC4)

  /// Ends `handler` from wherever the caller is (a handler, or the writer), on the queue.
  func end(_ handler: BacklogHandler, release: Bool) {
    if release { handler.token = nil } else { handler.token?.cancel() }
    handler.ended = true
    live.removeAll { $0 === handler }
    ended.append(handler)
  }

  func register(on controller: RelationController<Album, Int>, cancels: Bool) {
    let handler = BacklogHandler(cancels: cancels)
    // Weak: the handler holds its token, which holds this closure.
    handler.token = controller.onChange { [weak self, weak handler] _ in
      guard let self, let handler else { return }
      handler.calls += 1
      if handler.ended { handler.callsAfterEnd += 1 }
      guard handler.cancels, Int.random(in: 0..<8, using: &self.rng) == 0,
        let victim = self.live.randomElement(using: &self.rng)
      else { return }
      // Itself, or another (called before or after it with this change set).
      self.end(victim, release: false)
      self.cancelledByHandlers += 1
    }
    live.append(handler)
  }
}

extension CrossThreadStressTests {
  /// A controller delivering on a serial queue; a thread makes thousands of writes (each its
  /// own transaction, a few in blocks) inside one `queue.sync`, so that they wait as one
  /// backlog, and registers, cancels and releases handlers among them; handlers cancel each
  /// other (and themselves) while the backlog is delivered. No handler is called after its
  /// `cancel()` returned (or its token was released) in the delivery context, every change
  /// set replays, and the final content is the recomputed one.
  @Test(arguments: [0, 6])
  func aLongQueuedBacklogWithCancellationsReplaysAndReachesNoCancelledHandler(
    configuration: Int
  ) async {
    let writes = 3 * Self.steps
    let report = await onNewThread {
      runQueuedBacklog(configuration: configuration, rounds: 2, writesPerRound: writes)
    }
    print("CrossThreadStressTests, backlog: \(report)")
    #expect(report.writes == 2 * writes)
    // Each round's backlog is delivered after it. (Fewer change sets than transactions: the
    // first transaction drained places every element whose event waits, by its new keys, so
    // the later ones often find it in place.)
    #expect(report.longestDrain > 0)
    #expect(report.handlers > 0)
    #expect(report.cancelledByTheWriter > 0 && report.releasedByTheWriter > 0)
    #expect(report.cancelledByHandlers > 0)
    #expect(report.callsAfterCancel == 0)
    #expect(report.replayFailures == [])
    #expect(report.contentMatches)
  }
}

private func runQueuedBacklog(
  configuration index: Int, rounds: Int, writesPerRound: Int
) -> BacklogReport {
  var report = BacklogReport()
  var rng = SplitMix64(seed: UInt64(index) &+ 0xBAC)
  let queue = DispatchQueue(label: "CrossThreadStressTests.backlog")
  var names = 0
  func makeAlbum() -> Album {
    names += 1
    return Album(
      "b\(names)", year: Int.random(in: 1960..<2030, using: &rng),
      isLive: Int.random(in: 0..<5, using: &rng) == 0,
      tracks: (0..<Int.random(in: 0..<3, using: &rng)).map { _ in
        Track(Int.random(in: 10..<120, using: &rng))
      })
  }
  let artist = Artist((0..<40).map { _ in makeAlbum() })
  let configuration = FuzzConfiguration.all[index]
  let controller: RelationController<Album, Int>
  do {
    controller = try RelationController(
      \.albums, of: artist, filter: configuration.filter.map { .matching($0) },
      sortedBy: configuration.sortedBy, sectionedBy: configuration.section,
      delivery: .queue(queue))
  } catch {
    report.replayFailures.append("creation: \(error)")
    return report
  }
  let state = BacklogState()
  let replay = ContentReplay(controller.snapshot.itemIdentifiers)
  // Registered first, so called first: counts the deliveries and replays them.
  let keeper = controller.onChange { [unowned controller] changes in
    state.delivered += 1
    replay.check(changes, current: controller.snapshot.itemIdentifiers)
  }

  func edit() {
    let count = artist.albums.count
    switch Int.random(in: 0..<12, using: &rng) {
    case 0 where count < 60:
      artist.insert(makeAlbum(), at: Int.random(in: 0...count, using: &rng), into: \.albums)
    case 1 where count > 10:
      artist.remove(at: Int.random(in: 0..<count, using: &rng), from: \.albums)
    case 2 where count > 0:
      artist.apply(
        .move(
          from: Int.random(in: 0..<count, using: &rng), to: Int.random(in: 0..<count, using: &rng)),
        to: \.albums)
    case 3 where count > 0:
      artist.apply(
        .replace(at: Int.random(in: 0..<count, using: &rng), with: makeAlbum()), to: \.albums)
    case 4:
      artist.albums.randomElement(using: &rng)?.isLive.toggle()
    case 5:
      artist.albums.randomElement(using: &rng)?.tracks.append(
        Track(Int.random(in: 10..<120, using: &rng)))
    default:
      artist.albums.randomElement(using: &rng)?.year = Int.random(in: 1960..<2030, using: &rng)
    }
  }

  var longest = 0
  for _ in 0..<rounds {
    let deliveredBefore = queue.sync { state.delivered }
    queue.sync {
      for _ in 0..<writesPerRound {
        report.writes += 1
        switch Int.random(in: 0..<100, using: &rng) {
        case 0..<3:
          state.register(on: controller, cancels: Bool.random(using: &rng))
          report.handlers += 1
        case 3..<5:
          guard let handler = state.live.randomElement(using: &rng) else { break }
          state.end(handler, release: false)
          report.cancelledByTheWriter += 1
        case 5:
          guard let handler = state.live.randomElement(using: &rng) else { break }
          state.end(handler, release: true)
          report.releasedByTheWriter += 1
        case 6..<10:
          coalesce {
            for _ in 0..<Int.random(in: 2...5, using: &rng) { edit() }
          }
          continue
        default:
          break
        }
        edit()
      }
    }
    // The round's backlog is drained in one go, after the block above.
    longest = max(longest, queue.sync { state.delivered } - deliveredBefore)
  }
  queue.sync {
    report.changeSets = state.delivered
    report.cancelledByHandlers = state.cancelledByHandlers
    for handler in state.live + state.ended { report.callsAfterCancel += handler.callsAfterEnd }
    for handler in state.live { state.end(handler, release: false) }
    report.replayFailures = Array(replay.failures.prefix(3))
    report.contentMatches = configuration.matches(
      controller.snapshot.itemIdentifiers, artist.albums)
    keeper.cancel()
  }
  report.longestDrain = longest
  return report
}

// MARK: - Elements written on other threads than the delivery context

/// What `elementsWrittenOnOtherThreadsThroughTheDeliveryContext` saw.
struct ForeignWritesReport: Sendable {
  var writes = 0
  var pausedWrites = 0
  var changeSets = 0
  /// Contents read on another thread (while transactions were applied) in which an element
  /// appeared twice.
  var readsWithDuplicates = 0
  var reads = 0
  var replayFailures: [String] = []
  var contentMismatches = 0
}

extension CrossThreadStressTests {
  /// Two controllers delivering on a serial queue (one with kept sort keys and sections by
  /// decade, one comparing live elements) over one artist; three threads write their own
  /// albums (and the relation), none of them on the queue's thread: two by `queue.sync` (in
  /// nested `coalesce` blocks too) and `queue.async`, one directly while the queue is paused;
  /// a fourth reads the controllers' content meanwhile. The controllers drain on the queue and
  /// read the albums there, so these writes are serialised with their reads (the threading
  /// contract for queued delivery, which ThreadSanitizer checks in `.ci/run`): every change set
  /// replays, the content read elsewhere holds each element once, and the final content is
  /// the recomputed one.
  @Test func elementsWrittenOnOtherThreadsThroughTheDeliveryContext() async {
    let steps = Self.steps
    let report = await onNewThread { runForeignWrites(steps: steps) }
    print("CrossThreadStressTests, foreign writes: \(report)")
    #expect(report.writes == 3 * steps)
    #expect(report.pausedWrites > 0)
    #expect(report.changeSets > steps)
    #expect(report.reads > 0 && report.readsWithDuplicates == 0)
    #expect(report.replayFailures == [])
    #expect(report.contentMismatches == 0)
  }
}

extension CrossThreadStressTests {
  /// The marks make such a race visible: a write of an album on its own thread while a
  /// controller's drain on its queue reads the album, with nothing ordering the two (which
  /// breaks the contract), makes ThreadSanitizer report the race, and the child process fail.
  /// Without the marks it would report nothing: an `@Observed` property's storage is reached
  /// through a key path, in the standard library, which is not instrumented (see
  /// `Album.raceMark`). The race is made certain, not left to timing: the write waits until the
  /// drain has read the album (its signal, a relaxed atomic, orders nothing for
  /// ThreadSanitizer), as a loaded machine might never overlap free-running writers with a drain.
  @Test(.enabled(if: runsUnderThreadSanitizer))
  func writesOutsideTheDeliveryContextAreReportedByThreadSanitizer() async {
    await #expect(processExitsWith: .failure) {
      writeAnAlbumWhileADrainReadsIt()
    }
  }
}

/// Whether another thread than the writer's (the drain's) read the album since the probe was
/// armed with the writer's thread: relaxed atomics, which do not order the drain's read before
/// the writer's write. (The writer's thread reads the album too, when it writes it.)
private final class DrainProbe: Sendable {
  let writer = Atomic<UInt>(0)
  let read = Atomic(false)
}

/// Breaks the contract once, for certain: writes an album on this thread after the drain of its
/// queued controller read it, with nothing ordering the write after the read.
private func writeAnAlbumWhileADrainReadsIt() {
  let probe = DrainProbe()
  let queue = DispatchQueue(label: "CrossThreadStressTests.race")
  let album = Album("a", year: 2000)
  let artist = Artist([album])
  let controller: RelationController<Album, Unsectioned>
  do {
    controller = try RelationController(
      \.albums, of: artist,
      filter: .matching { album in
        let marked = album.marked
        let writer = probe.writer.load(ordering: .relaxed)
        if writer != 0 && writer != currentThreadID() {
          probe.read.store(true, ordering: .relaxed)
        }
        return marked
      },
      delivery: .queue(queue))
  } catch {
    print("no controller: \(error)")
    return  // exits successfully: the expectation of a failure fails
  }
  // The write's own work on this thread ends before the drain begins (the queue is paused
  // across it), so that nothing the drain releases after its read is taken here.
  queue.sync {}
  queue.suspend()
  probe.writer.store(currentThreadID(), ordering: .relaxed)
  album.markWritten()
  album.year = 2001  // the drain, on the queue, reads the album's mark in the filter
  queue.resume()
  let deadline = ContinuousClock.now + .seconds(60)
  while !probe.read.load(ordering: .relaxed) {
    if ContinuousClock.now > deadline { return }  // no drain: exits successfully, and fails
    sched_yield()
  }
  album.markWritten()  // races with the drain's read
  withExtendedLifetime(controller) {}
}

/// Runs the writers of `elementsWrittenOnOtherThreadsThroughTheDeliveryContext`.
func runForeignWrites(steps: Int) -> ForeignWritesReport {
  var report = ForeignWritesReport()
  let queue = DispatchQueue(label: "CrossThreadStressTests.foreign")
  let writers = 3
  var rng = SplitMix64(seed: 0xF0E1)
  let albums = (0..<writers * 8).map {
    Album("t\($0 % writers)-\($0 / writers)", year: Int.random(in: 1960..<2030, using: &rng))
  }
  let artist = Artist(albums)
  let configurations = [FuzzConfiguration.all[0], FuzzConfiguration.all[6]]
  var controllers: [RelationController<Album, Int>] = []
  var replays: [ContentReplay] = []
  var tokens: [ObservationToken] = []
  for configuration in configurations {
    do {
      let controller = try RelationController(
        \.albums, of: artist,
        filter: .matching { album in album.marked && configuration.filter?(album) ?? true },
        sortedBy: configuration.sortedBy, sectionedBy: configuration.section,
        observing: [\.title], delivery: .queue(queue))
      let replay = ContentReplay(controller.snapshot.itemIdentifiers)
      tokens.append(
        controller.onChange { [unowned controller] changes in
          replay.check(changes, current: controller.snapshot.itemIdentifiers)
        })
      controllers.append(controller)
      replays.append(replay)
    } catch {
      report.replayFailures.append("creation: \(error)")
      return report
    }
  }

  let handed = Handed(value: (albums, artist, controllers))
  let tallies = Mutex<[ForeignWritesReport]>([])
  let writing = Mutex(writers)
  onThreads(writers + 1) { thread in
    let (albums, artist, controllers) = handed.value
    var tally = ForeignWritesReport()
    defer { tallies.withLock { $0.append(tally) } }
    guard thread < writers else {
      // The reader: the content as another thread sees it while transactions are applied.
      while writing.withLock({ $0 }) > 0 {
        for controller in controllers {
          let identifiers = controller.snapshot.itemIdentifiers.joined()
          tally.reads += 1
          if Set(identifiers).count != identifiers.count { tally.readsWithDuplicates += 1 }
        }
        sched_yield()
      }
      return
    }
    defer { writing.withLock { $0 -= 1 } }
    var rng = SplitMix64(seed: UInt64(thread) &+ 0xF0E)
    let mine = albums.enumerated().filter { $0.offset % writers == thread }.map(\.element)
    var titles = 0
    /// One write of one of its albums (its mark first), or of the relation.
    func write() {
      let album = mine[Int.random(in: 0..<mine.count, using: &rng)]
      album.markWritten()
      switch Int.random(in: 0..<10, using: &rng) {
      case 0..<5: album.year = Int.random(in: 1960..<2030, using: &rng)
      case 5..<7:
        titles += 1
        album.title = "t\(thread)-\(titles)"
      case 7: album.isLive.toggle()
      case 8:
        // The relation, shared: its writes are serialised by the queue too.
        if let index = artist.albums.firstIndex(where: { $0 === album }) {
          artist.remove(at: index, from: \.albums)
        } else {
          artist.insert(
            album, at: Int.random(in: 0...artist.albums.count, using: &rng), into: \.albums)
        }
      default:
        coalesce {
          album.year = Int.random(in: 1960..<2030, using: &rng)
          for _ in 0..<Int.random(in: 0...2, using: &rng) {
            let other = mine[Int.random(in: 0..<mine.count, using: &rng)]
            other.markWritten()
            coalesce {
              titles += 1
              other.title = "t\(thread)-\(titles)"
            }
          }
        }
      }
    }
    switch thread {
    case 0:
      // On this thread, serialised with the queue.
      for _ in 0..<steps { queue.sync { write() } }
    case 1:
      // Handed to the queue, a hundred at a time.
      let box = Handed(value: write)
      for start in stride(from: 0, to: steps, by: 100) {
        let count = min(100, steps - start)
        queue.async { for _ in 0..<count { box.value() } }
      }
      queue.sync {}
    default:
      // On this thread while the queue is paused (nothing else runs on it meanwhile).
      let pause = QueuePause(queue)
      var made = 0
      while made < steps {
        pause.toggle()
        let count = min(Int.random(in: 1...20, using: &rng), steps - made)
        for _ in 0..<count { write() }
        made += count
        tally.pausedWrites += count
        pause.toggle()
        sched_yield()
      }
      pause.finish()
    }
    tally.writes = steps
  }

  queue.sync {}  // the last drains
  for tally in tallies.withLock({ $0 }) {
    report.writes += tally.writes
    report.pausedWrites += tally.pausedWrites
    report.reads += tally.reads
    report.readsWithDuplicates += tally.readsWithDuplicates
  }
  queue.sync {
    for replay in replays {
      report.changeSets += replay.changeSets
      report.replayFailures += replay.failures.prefix(3)
    }
    for (controller, configuration) in zip(controllers, configurations)
    where !configuration.matches(controller.snapshot.itemIdentifiers, artist.albums) {
      report.contentMismatches += 1
    }
    for token in tokens { token.cancel() }
  }
  return report
}
