import Binding
import CollectionController
import Dispatch
import Foundation
import Synchronization
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
