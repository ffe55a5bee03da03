import Binding
import CollectionController
import Dispatch
import Foundation
import Synchronization
import TestSupport
import Testing

/// Filter, sort and section functions that read the controller they configure.
///
/// No user function runs under a lock of the package, so such a read returns (it deadlocked
/// while the controller evaluated its functions under its own lock). What it returns is
/// documented in the ChangeDelivery article: the content as the controller is rebuilding it
/// (the elements the transaction does not move, and those it has placed so far).
@Suite struct FunctionsReadingTheControllerTests {}

/// The controller under test, for the functions that read it (a `SortComparator` must be
/// `Sendable`, so the comparator reaches it through this global rather than a captured box).
private let controllerUnderTest = Mutex<RelationController<Album, Int>?>(nil)
/// What those functions read, one entry per read: the count they saw.
private let readsUnderTest = Mutex<[String: [Int]]>([:])

/// Records that `function` read the controller under test, and what count it saw.
private func readController(from function: String) {
  guard let controller = controllerUnderTest.withLock({ $0 }) else { return }
  // Every accessor takes the controller's lock: a deadlock here is what the test is about.
  let count = controller.count
  _ = controller.numberOfSections
  _ = controller.sections
  readsUnderTest.withLock { $0[function, default: []].append(count) }
}

extension Album {
  /// The year, read through a computed property that reads the controller under test (a sort
  /// key the controller keeps).
  fileprivate var yearReadingTheController: Int {
    readController(from: "comparator")
    return year
  }
}

/// Orders albums by year, reading the controller on every comparison.
private struct YearReadingTheController: SortComparator {
  var order: SortOrder = .forward

  func compare(_ lhs: Album, _ rhs: Album) -> ComparisonResult {
    readController(from: "comparator")
    let (a, b) = order == .forward ? (lhs.year, rhs.year) : (rhs.year, lhs.year)
    return a < b ? .orderedAscending : a > b ? .orderedDescending : .orderedSame
  }
}

extension FunctionsReadingTheControllerTests {
  /// Runs `body` on another thread and fails (instead of hanging) if it does not finish.
  func withinSeconds(_ seconds: Int, _ body: @escaping @Sendable () -> Void) -> Bool {
    let done = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
      body()
      done.signal()
    }
    return done.wait(timeout: .now() + .seconds(seconds)) == .success
  }

  /// With a comparator of the user's (compared live) and with a `SortDescriptor` on a computed
  /// property (kept keys, read when an element is placed and in a bulk load): the cases share
  /// the global controller, so they run one after the other.
  @Test(.serialized, arguments: [false, true])
  func aFilterAComparatorAndASectionFunctionMayReadTheirController(keptKeys: Bool) throws {
    readsUnderTest.withLock { $0 = [:] }
    let sortedBy: [any SortComparator<Album>] =
      keptKeys ? [SortDescriptor(\.yearReadingTheController)] : [YearReadingTheController()]
    let reversed: [any SortComparator<Album>] =
      keptKeys
      ? [SortDescriptor(\.yearReadingTheController, order: .reverse)]
      : [YearReadingTheController(order: .reverse)]
    let finished = withinSeconds(20) {
      let artist = Artist(makeAlbums([("a", 1971), ("b", 1985), ("c", 1992), ("d", 1999)]))
      let albums: RelationController<Album, Int>
      do {
        albums = try RelationController(
          \.albums, of: artist,
          filter: .matching { album in
            readController(from: "filter")
            return !album.isLive
          },
          sortedBy: sortedBy,
          sectionedBy: { album in
            readController(from: "section")
            return album.decade
          },
          delivery: .synchronous)
      } catch {
        Issue.record("the controller could not be made: \(error)")
        return
      }
      controllerUnderTest.withLock { $0 = albums }
      defer { controllerUnderTest.withLock { $0 = nil } }
      var changeSets = 0
      let token = albums.onChange { _ in changeSets += 1 }
      artist.albums[0].year = 2001  // a move to a new section
      artist.albums[1].isLive = true  // leaves
      artist.insert(Album("e", year: 1980), at: 0, into: \.albums)  // enters
      try? albums.reconfigure { $0.sortedBy = reversed }
      token.cancel()
      // The outcome is exact, whatever the functions read meanwhile.
      #expect(albums.sections.map(\.key) == [1980, 1990, 2000])
      #expect(albums.objects.map(\.name) == ["e", "d", "c", "a"])
      #expect(changeSets == 4)
    }
    #expect(finished, "a function that reads its controller deadlocked")
    let reads = readsUnderTest.withLock { $0 }
    // Each function read the controller during the changes, and saw a count in range.
    for function in ["filter", "comparator", "section"] {
      let counts = reads[function] ?? []
      #expect(!counts.isEmpty, "\(function) never read the controller")
      #expect(counts.allSatisfy { (0...4).contains($0) }, "\(function) saw \(counts)")
    }
  }
}

// MARK: - Writes landing while an element is evaluated

/// Writes made by another thread while the controller evaluates an element's functions (which
/// run with no lock held). Each test makes the other thread's write happen inside the
/// evaluation, synchronously, so the interleaving is the same every time.
extension FunctionsReadingTheControllerTests {
  /// Runs `write` on another thread and waits for it (a write that lands mid-evaluation).
  func onAnotherThread(_ write: @escaping @Sendable () -> Void) {
    let done = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
      write()
      done.signal()
    }
    done.wait()
  }

  /// A reconfiguration re-evaluates every element; a write of an observed attribute that lands
  /// during that re-evaluation is reported (the element is updated in the reconfiguration's
  /// change set), not swallowed.
  @Test func aWriteDuringAReconfigurationsEvaluationIsReported() throws {
    let artist = Artist(makeAlbums([("a", 1), ("b", 2)]))
    let target = artist.albums[1]
    let trigger = _Lock(false)
    let albums = try RelationController(
      \.albums, of: artist, sortedBy: [SortDescriptor(\.year)], observing: [\.title],
      delivery: .synchronous)
    var changeSets: [RelationChangeSet<Album>] = []
    let token = albums.onChange { changeSets.append($0) }
    try albums.reconfigure { configuration in
      configuration.filter = .init { album in
        if album === target && trigger.withLock({ $0 }) {
          trigger.withLock { $0 = false }
          let handed = _Transfer(album)
          onAnotherThread { handed.value.title = "changed meanwhile" }
        }
        return album.year > Int.min
      }
      trigger.withLock { $0 = true }
    }
    token.cancel()
    // The write's own report folds into the reconfiguration (or comes just after it); either
    // way, "b" is reported updated at its row.
    let updated =
      changeSets.flatMap { $0.updatedRows }
      + changeSets.flatMap { $0.movedRows.filter(\.changed).map(\.to) }
    #expect(updated.contains(RowPosition(section: 0, row: 1)), "\(changeSets)")
    #expect(target.title == "changed meanwhile")
  }
}

extension FunctionsReadingTheControllerTests {
  /// A section name function that reads the controller (issue 13, item 7: it deadlocked while
  /// names were computed under the controller's lock).
  @Test func aSectionNameFunctionMayReadItsController() throws {
    let finished = withinSeconds(20) {
      let artist = Artist(makeAlbums([("a", 1971), ("b", 1985)]))
      guard
        let albums = try? RelationController(
          \.albums, of: artist, sectionedBy: { $0.decade }, delivery: .synchronous)
      else {
        Issue.record("the controller could not be made")
        return
      }
      do {
        try albums.reconfigure { configuration in
          // Weakly: the controller keeps its configuration.
          configuration.sectionName = { [weak albums] key in "\(key)s of \(albums?.count ?? 0)" }
        }
      } catch {
        Issue.record("reconfigure threw \(error)")
      }
      #expect(albums.sections.map(\.name) == ["1970s of 2", "1980s of 2"])
      artist.albums.append(Album("c", year: 1999))
      #expect(albums.section(at: 2).name == "1990s of 3")
      #expect(albums.description.contains("1990"))
    }
    #expect(finished, "a section name function that reads its controller deadlocked")
  }
}

// MARK: - Functions that write while the drainer runs them

/// What the sort key getter below does when armed (once): the writes a comparison makes.
private let writesUnderTest = Mutex<(@Sendable () -> Void)?>(nil)

extension Album {
  /// The year, read through a computed property that, when armed, writes the relation and
  /// reconfigures the controller (a sort key the controller keeps, read by the drainer while it
  /// places an element).
  fileprivate var yearWritingTheRelation: Int {
    if let writes = writesUnderTest.withLock({ state in
      defer { state = nil }
      return state
    }) {
      writes()
    }
    return year
  }
}

extension FunctionsReadingTheControllerTests {
  /// The controller's internal state skips run-time exclusivity checks, on the promise that
  /// user code run by the drainer (here a kept sort key's getter, read while an element is
  /// placed) cannot write it: a relation write it makes is queued, so is a reconfiguration,
  /// and both are applied after the transaction under way, exactly.
  @Test func userCodeThatWritesDuringTheDrainIsQueued() throws {
    let artist = Artist(makeAlbums([("a", 1971), ("b", 1985), ("c", 1992)]))
    let albums = try RelationController(
      \.albums, of: artist, sortedBy: [SortDescriptor(\.yearWritingTheRelation)],
      sectionedBy: { $0.decade }, delivery: .synchronous)
    var changeSets: [RelationChangeSet<Album>] = []
    let token = albums.onChange { changeSets.append($0) }
    let handed = _Transfer((artist, albums))
    writesUnderTest.withLock {
      $0 = {
        let (artist, albums) = handed.value
        artist.insert(Album("d", year: 1975), at: 0, into: \.albums)
        do {
          try albums.reconfigure {
            $0.sortedBy = [SortDescriptor(\.yearWritingTheRelation, order: .reverse)]
          }
        } catch {
          Issue.record("reconfigure threw \(error)")
        }
      }
    }
    artist.albums[0].year = 1999  // "a" moves: placing it reads its key, which writes
    token.cancel()
    #expect(writesUnderTest.withLock { $0 } == nil, "the key getter never ran armed")
    // Sections stay in key order; inside them, the reconfigured (reverse) year order.
    #expect(albums.sections.map(\.key) == [1970, 1980, 1990])
    #expect(albums.objects.map(\.name) == ["d", "b", "a", "c"])
    // The move, the insertion and the reconfiguration were reported, and the change sets
    // replay onto the first content to give the last.
    #expect(!changeSets.isEmpty)
    var replayed = [["a"], ["b"], ["c"]]
    for changes in changeSets {
      changes.apply(to: &replayed) { $0.name }
    }
    #expect(replayed == albums.sections.map { $0.objects.map(\.name) })
  }
}

/// The controller that `readEverything()` reads, the albums of its relation, and what the reads
/// found wrong.
private let everythingController = Mutex<RelationController<Album, Int>?>(nil)
/// (Handed over in a `_Transfer`: albums are not `Sendable`; only the test thread uses them.)
private let everythingAlbums = Mutex<_Transfer<[Album]>?>(nil)
private let everythingFindings = Mutex<(reads: Int, failures: [String])>((0, []))

/// Reads every lookup a user function could make, and records what disagrees: each row's
/// object must have that row as its position, the rows must add up to the count, and an album
/// that is not shown (among them those the transaction under way has taken out to place them
/// again) must have no position.
private func readEverything() {
  guard let controller = everythingController.withLock({ $0 }) else { return }
  var failures: [String] = []
  var rows = 0
  for section in 0..<controller.numberOfSections {
    for row in 0..<controller.numberOfObjects(inSection: section) {
      let position = RowPosition(section: section, row: row)
      let object = controller.object(at: position)
      let found = controller.position(of: object)
      if found != position {
        failures.append("\(object) at \(position) says \(String(describing: found))")
      }
      rows += 1
    }
  }
  if rows != controller.count { failures.append("\(rows) rows for a count of \(controller.count)") }
  let shown = Set(controller.objects.map(ObjectIdentifier.init))
  let albums = everythingAlbums.withLock { $0 }?.value ?? []
  for album in albums where !shown.contains(ObjectIdentifier(album)) {
    if let position = controller.position(of: album) {
      failures.append("\(album) is not shown but has a position, \(position)")
    }
  }
  _ = controller.snapshot
  everythingFindings.withLock {
    $0.reads += 1
    $0.failures += failures.prefix(3)
  }
}

extension Album {
  /// The year, read through a computed property that reads everything of the controller under
  /// test (a sort key the controller keeps: read while it places the elements of a transaction).
  fileprivate var yearReadingEverything: Int {
    readEverything()
    return year
  }
}

extension FunctionsReadingTheControllerTests {
  /// A filter, a section function and a sort key that read every lookup of their controller
  /// while it places a transaction's elements (moves, filtered-out albums, shuffles, batches of
  /// leaving and returning albums, reconfigurations): what they read is a consistent content,
  /// in which the elements the transaction has taken out are not found, and the change sets
  /// replay. Kept keys (a `SortDescriptor`) and a live comparison (`KeyPathComparator`).
  @Test(.serialized, arguments: [false, true])
  func functionsReadingEveryLookupSeeAConsistentContent(keptKeys: Bool) throws {
    var rng = SplitMix64(seed: 11)
    let albums = (0..<40).map {
      Album("a\($0)", year: 1960 + Int.random(in: 0..<60, using: &rng))
    }
    let artist = Artist(albums)
    everythingAlbums.withLock { $0 = _Transfer(albums) }
    everythingFindings.withLock { $0 = (0, []) }
    func order(_ order: SortOrder) -> [any SortComparator<Album>] {
      keptKeys
        ? [SortDescriptor(\.yearReadingEverything, order: order)]
        : [KeyPathComparator(\Album.year, order: order)]
    }
    let controller = try RelationController(
      \.albums, of: artist,
      filter: .matching { album in
        readEverything()
        return !album.isLive
      },
      sortedBy: order(.forward),
      sectionedBy: { album in
        readEverything()
        return album.decade
      },
      delivery: .synchronous)
    everythingController.withLock { $0 = controller }
    defer {
      everythingController.withLock { $0 = nil }
      everythingAlbums.withLock { $0 = nil }
    }
    let log = ChangeLog(controller)
    for step in 0..<120 {
      let album = albums[Int.random(in: 0..<albums.count, using: &rng)]
      switch step % 6 {
      case 0: album.year = 1960 + Int.random(in: 0..<60, using: &rng)
      case 1: album.isLive.toggle()
      case 2: artist.albums.shuffle(using: &rng)
      case 3:
        // Half leave, those that had left come back: many elements in one transaction.
        let staying = artist.albums.filter { _ in Bool.random(using: &rng) }
        artist.albums =
          staying + albums.filter { album in !artist.albums.contains { $0 === album } }
      case 4: try controller.reconfigure { $0.sortedBy = order(.reverse) }
      default: try controller.reconfigure { $0.sortedBy = order(.forward) }
      }
    }
    let findings = everythingFindings.withLock { $0 }
    #expect(findings.failures.isEmpty, "\(findings.failures.prefix(3))")
    #expect(findings.reads > 500)
    #expect(log.failures.isEmpty, "\(log.failures.prefix(3))")
    #expect(log.count > 40)
    let shown = Set(artist.albums.filter { !$0.isLive }.map(ObjectIdentifier.init))
    #expect(Set(controller.objects.map(ObjectIdentifier.init)) == shown)
  }
}
