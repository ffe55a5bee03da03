import Binding
import Foundation
import TestSupport
import Testing

@testable import CollectionController

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Seeded randomized operations on a real model (artists, albums, labels, tracks) through a
/// relation controller: after every delivered change set, (a) the change set replayed with
/// UITableView's rules onto the previous content gives the controller's content, and (b) that
/// content equals a from-scratch filter / section / stable sort of the relation; after every
/// transaction of a run of up to 300 albums, (c) every element shown before and after whose read values changed (what its
/// filter, sort and section functions read, and its observed title) was reported (an update, a
/// move flagged `changed`, or an insertion). A second controller over the same relation, with
/// no filter, one section and a sort on key paths (which the controller compares by value),
/// checks (c) both ways: the elements it reports as updates and changed moves are exactly
/// those whose read values changed.
///
/// The default is 16,000 operations (8 runs of up to 2,000, seeds 0 to 7: each of the eight
/// configurations once; runs are an eighth of the total, at most 4,000), a few seconds in debug. The long mode, which CI runs in release (`.ci/run`), makes a
/// million or more; environment variables reach the test process:
///
///     RELATION_FUZZ_OPERATIONS=1000000 swift test -c release --scratch-path .build-release \
///       --filter RelationControllerFuzzTests
///
/// `RELATION_FUZZ_FIRST_RUN=n` starts from run (seed) `n`, to replay a failing run that a
/// failure message names (`run n: ...`). The summary line printed at the end gives operations,
/// transactions, change sets by kind, runs and time.
@Suite struct RelationControllerFuzzTests {}

/// One configuration of the fuzzed controller, with a plain-Swift mirror for recomputation.
struct FuzzConfiguration {
  let name: String
  let filter: ((Album) -> Bool)?
  let sortedBy: [any SortComparator<Album>]
  /// The same order as `sortedBy`, written out (ties: `.orderedSame`).
  let compare: (Album, Album) -> ComparisonResult
  let section: (Album) -> Int
  /// Adds the values that `filter`, `sortedBy` and `section` read of an album to a hasher (the
  /// oracle of updates: an album whose values changed must be reported).
  let reads: (Album, inout Hasher) -> Void
  /// Whether the sort is a total order. When it is not (NaN keys), the order among elements is
  /// whatever the comparisons gave, so only membership is recomputed; every change set must
  /// still replay.
  var totallyOrdered = true

  static func order<T: Comparable>(_ a: T, _ b: T) -> ComparisonResult {
    a < b ? .orderedAscending : a > b ? .orderedDescending : .orderedSame
  }

  /// Numbers in order, NaN after every number (as kept sort keys order them).
  static func nanLast(_ a: Double, _ b: Double) -> ComparisonResult {
    switch (a.isNaN, b.isNaN) {
    case (true, true): .orderedSame
    case (true, false): .orderedDescending
    case (false, true): .orderedAscending
    case (false, false): order(a, b)
    }
  }

  /// By the last character of the name (a `let`: a group, shared by one album in ten), then
  /// by year.
  static func digitThenYear(_ a: Album, _ b: Album) -> ComparisonResult {
    let byDigit = order(a.name.suffix(1), b.name.suffix(1))
    return byDigit != .orderedSame ? byDigit : order(a.year, b.year)
  }

  static var all: [FuzzConfiguration] {
    [
      FuzzConfiguration(
        name: "live filtered, by year, decades", filter: { !$0.isLive },
        sortedBy: [SortDescriptor(\.year)], compare: { order($0.year, $1.year) },
        section: { $0.decade }, reads: { $1.combineAll($0.isLive, $0.year) }),
      FuzzConfiguration(
        name: "by label name then year, one section", filter: nil,
        sortedBy: [SortDescriptor(\.labelName), SortDescriptor(\.year, order: .reverse)],
        compare: { a, b in
          let byLabel = order(a.labelName, b.labelName)
          return byLabel != .orderedSame ? byLabel : order(b.year, a.year)
        },
        section: { _ in 0 }, reads: { $1.combineAll($0.labelName, $0.year) }),
      // The deletion of a label changes what every album that reads it shows (its live name
      // is empty once the label is deleted, and the album changes section): many elements read
      // the deleted object, and the deletion is one transaction all the same.
      FuzzConfiguration(
        name: "by live label name then year, sectioned by whether the label is deleted",
        filter: nil, sortedBy: [SortDescriptor(\.liveLabelName), SortDescriptor(\.year)],
        compare: { a, b in
          let byLabel = order(a.liveLabelName, b.liveLabelName)
          return byLabel != .orderedSame ? byLabel : order(a.year, b.year)
        },
        section: { $0.label?.isDeleted == true ? 1 : 0 },
        reads: { $1.combineAll($0.labelName, $0.label?.isDeleted, $0.year) }),
      FuzzConfiguration(
        name: "long albums by duration, sectioned by liveness",
        filter: { $0.totalDuration > 150 },
        sortedBy: [KeyPathComparator(\.totalDuration, order: .reverse)],
        compare: { order($1.totalDuration, $0.totalDuration) },
        section: { $0.isLive ? 1 : 0 }, reads: { $1.combineAll($0.totalDuration, $0.isLive) }),
      FuzzConfiguration(
        name: "unsorted, sectioned by year mod 5", filter: { $0.year % 7 != 0 }, sortedBy: [],
        compare: { _, _ in .orderedSame }, section: { $0.year % 5 },
        reads: { $1.combineAll($0.year) }),
      // A `SortDescriptor` on a `Double` keeps its keys, and a kept NaN sorts after every
      // number: a total order, recomputed exactly.
      FuzzConfiguration(
        name: "by average duration (NaN without tracks, kept: last), sectioned by liveness",
        filter: nil, sortedBy: [SortDescriptor(\.averageDuration)],
        compare: { nanLast($0.averageDuration, $1.averageDuration) },
        section: { $0.isLive ? 1 : 0 },
        reads: { $1.combineAll($0.totalDuration, $0.tracks.count, $0.isLive) }),
      // A comparator of the test's own on a `let` (the name's last digit), ties broken by the
      // `@Observed` year: accepted even when no two current elements share a digit, as a small
      // relation often starts (run 5's, of up to 12 albums without internal checks: see
      // `fuzzRun`), and followed as ties appear.
      FuzzConfiguration(
        name: "by the name's last digit (a let) then year, sectioned by liveness", filter: nil,
        sortedBy: [ClosureComparator { digitThenYear($0, $1) }],
        compare: { digitThenYear($0, $1) }, section: { $0.isLive ? 1 : 0 },
        reads: { $1.combineAll($0.year, $0.isLive) }),
      FuzzConfiguration(
        name: "by average duration (NaN last), live filtered, decades",
        filter: { !$0.isLive }, sortedBy: [SortDescriptor(\.averageDuration)],
        compare: { nanLast($0.averageDuration, $1.averageDuration) },
        section: { $0.decade },
        reads: { $1.combineAll($0.totalDuration, $0.tracks.count, $0.isLive, $0.year) }),
      // A `KeyPathComparator` compares live elements: a NaN goes where the comparisons put it.
      FuzzConfiguration(
        name: "by average duration (NaN without tracks, live), sectioned by liveness",
        filter: nil, sortedBy: [KeyPathComparator(\.averageDuration, order: .reverse)],
        compare: { order($1.averageDuration, $0.averageDuration) },
        section: { $0.isLive ? 1 : 0 },
        reads: { $1.combineAll($0.totalDuration, $0.tracks.count, $0.isLive) },
        totallyOrdered: false),
    ]
  }

  /// Whether `content` is what the controller should show for `relation`: exactly the
  /// recomputation, or for a sort that is not a total order, the same elements in each
  /// section.
  func matches(_ content: [[ObjectIdentifier]], _ relation: [Album]) -> Bool {
    let recomputed = expected(relation)
    if totallyOrdered { return content == recomputed }
    return content.map(Set.init) == recomputed.map(Set.init)
  }

  /// The content recomputed from scratch for `relation`.
  func expected(_ relation: [Album]) -> [[ObjectIdentifier]] {
    var seen: Set<ObjectIdentifier> = []
    var members: [(offset: Int, album: Album)] = []
    for (offset, album) in relation.enumerated()
    where seen.insert(ObjectIdentifier(album)).inserted {
      if !album.isDeleted && (filter?(album) ?? true) { members.append((offset, album)) }
    }
    return Dictionary(grouping: members) { section($0.album) }
      .sorted { $0.key < $1.key }
      .map { entry in
        entry.value.sorted { a, b in
          let result = compare(a.album, b.album)
          return result == .orderedSame ? a.offset < b.offset : result == .orderedAscending
        }.map { ObjectIdentifier($0.album) }
      }
  }
}

extension RelationControllerFuzzTests {
  static func environment(_ name: String) -> Int? {
    getenv(name).flatMap { Int(String(cString: $0)) }
  }

  @dynamicMemberLookup
  struct Stats: CustomStringConvertible {
    var operations = 0
    var transactions = 0
    var reconfigurations = 0
    /// Deletions of a label (read by many albums) announced outside a block, each checked to
    /// give one change set at most.
    var sharedDeletions = 0
    /// Transactions in which the filter wrote while the controller ran it.
    var writesDuringEvaluation = 0
    /// Albums whose read values changed in a transaction, each checked to be reported by the
    /// controller that compares by value.
    var changedValues = 0
    /// The most levels of nodes any section's tree had after a transaction.
    var tallest: Int32 = 0
    var changes = ChangeTally()

    subscript(dynamicMember keyPath: KeyPath<ChangeTally.Counts, Int>) -> Int {
      changes.counts[keyPath: keyPath]
    }

    mutating func add(_ changeSet: RelationChangeSet<Album>) { changes.add(changeSet) }

    var description: String {
      "\(operations) operations, \(transactions) transactions, \(reconfigurations) "
        + "reconfigurations, \(sharedDeletions) label deletions, \(writesDuringEvaluation) "
        + "with a filter that wrote, \(changes), \(changedValues) albums with changed read "
        + "values, "
        + "trees up to \(tallest) levels of nodes high"
    }
  }

  @Test func randomOperationsKeepTheContentAndReplayExactly() async throws {
    let total = Self.environment("RELATION_FUZZ_OPERATIONS") ?? 16_000
    // At least 8 runs, so that every configuration is run.
    let perRun = max(1, min(4_000, total / 8))
    let firstRun = Self.environment("RELATION_FUZZ_FIRST_RUN") ?? 0
    // On a thread of its own, not on the cooperative pool that the other tests need.
    let outcome = await onNewThread { () -> Result<(Stats, Int), any Error> in
      Result {
        var stats = Stats()
        var run = firstRun
        let start = ContinuousClock.now
        while stats.operations < total {
          try Self.fuzzRun(seed: UInt64(run), budget: min(perRun, total - stats.operations), &stats)
          run += 1
        }
        print(
          "RelationControllerFuzzTests: \(stats); \(run) runs in \(ContinuousClock.now - start)")
        return (stats, run)
      }
    }
    let (stats, _) = try outcome.get()
    #expect(stats.operations >= total)
    #expect(stats.sectionInserts > 0 && stats.sectionDeletes > 0)
    #expect(stats.inserts > 0 && stats.deletes > 0 && stats.moves > 0 && stats.updates > 0)
    #expect(stats.changedMoves > 0 && stats.reconfigurations > 0)
    #expect(stats.sharedDeletions > 0)
    #expect(stats.writesDuringEvaluation > 0)
    #expect(stats.changedValues > 0)
    // Nodes split and merge: above the leaves, a level of nodes and one of roots over them
    // with the small nodes of internal-checks builds (a level of nodes with release's).
    #expect(stats.tallest >= (_IndexShape.fanout == 4 ? 2 : 1))
  }

  /// One artist and one controller through `budget` random operations.
  static func fuzzRun(seed: UInt64, budget: Int, _ stats: inout Stats) throws {
    var rng = SplitMix64(seed: seed &* 0x9E37_79B9 &+ 17)
    // Replaced when one announces its deletion, so that later albums get a live label and no
    // deleted label is renamed.
    var labels = (0..<5).map { Label("L\($0)") }
    var counter = 0
    func makeAlbum(_ rng: inout SplitMix64) -> Album {
      counter += 1
      return Album(
        "s\(seed)a\(counter)", year: Int.random(in: 1960..<2030, using: &rng),
        title: "t", isLive: Int.random(in: 0..<5, using: &rng) == 0,
        label: Int.random(in: 0..<4, using: &rng) == 0
          ? nil : labels[Int.random(in: 0..<labels.count, using: &rng)],
        tracks: (0..<Int.random(in: 0..<4, using: &rng)).map { _ in
          Track(Int.random(in: 10..<120, using: &rng))
        })
    }
    // With the release shape of the index (leaves of 64, nodes of 32), one run in five grows
    // sections of thousands, so that nodes split and merge there too (a checked build's
    // leaves and nodes of 4 do at every size).
    let sizes = _IndexShape.leafCapacity > 4 ? [12, 60, 200, 300, 10_000] : [12, 60, 200, 300]
    let size = sizes[Int(seed % UInt64(sizes.count))]
    let artist = Artist((0..<Int.random(in: 0...size, using: &rng)).map { _ in makeAlbum(&rng) })
    var configuration = FuzzConfiguration.all[Int(seed % UInt64(FuzzConfiguration.all.count))]
    // A write the filter makes the next time the controller evaluates it (the drainer, a
    // re-watch or a reconfiguration's check: user code that writes while the controller runs
    // it), and whether one was made during the operation under way.
    var armedWrite: (() -> Void)?
    var wroteDuringEvaluation = false
    /// Whether the operation under way runs inside a `coalesce` block.
    var inBlock = false
    /// `filter`, making the armed write first.
    func writing(_ filter: @escaping (Album) -> Bool) -> RelationController<Album, Int>.Filter {
      .matching { album in
        if let write = armedWrite {
          armedWrite = nil
          wroteDuringEvaluation = true
          write()
        }
        return filter(album)
      }
    }
    let albums = try RelationController(
      \.albums, of: artist, filter: configuration.filter.map(writing),
      sortedBy: configuration.sortedBy,
      sectionedBy: configuration.section, observing: [\.title], delivery: .synchronous)
    var previous = albums.snapshot.itemIdentifiers
    var previousKeys = albums.snapshot.sectionIdentifiers
    var reconfiguring = false
    var failure: String?
    var localStats = stats
    var transaction = 0
    let changeToken = albums.onChange { [unowned albums] changes in
      localStats.add(changes)
      let current = albums.snapshot.itemIdentifiers
      let currentKeys = albums.snapshot.sectionIdentifiers
      // A reconfiguration re-places every element, so no row that keeps its position (in a
      // section whose key is unchanged) is reported as moving there.
      if reconfiguring && failure == nil,
        let move = changes.movedRows.first(where: {
          $0.from == $0.to && previousKeys[$0.from.section] == currentKeys[$0.to.section]
        })
      {
        failure = "a reconfiguration moved a row to its own position \(move): \(changes)"
      }
      previousKeys = currentKeys
      do {
        let replayed = try BatchUpdateReplayer.replay(
          old: previous, changes: changes, dataSource: current)
        if replayed != current && failure == nil {
          failure = "replay differs at transaction \(transaction): \(changes)"
        }
      } catch {
        if failure == nil { failure = "transaction \(transaction): \(error)" }
      }
      // The section names run parallel to the inserted and deleted sections; an inserted one's
      // is its section's name now.
      if (changes.insertedSectionNames.count != changes.insertedSections.count
        || changes.deletedSectionNames.count != changes.deletedSections.count
        || zip(changes.insertedSections, changes.insertedSectionNames).contains {
          albums.section(at: $0).name != $1
        }) && failure == nil
      {
        failure = "section names do not match at transaction \(transaction): \(changes)"
      }
      // Every change set leaves the content equal to a recomputation (a write of an object that
      // several elements read, such as a label, is one transaction too), except while a write
      // made by the filter waits in the queue for the next one.
      if !wroteDuringEvaluation && !configuration.matches(current, artist.albums)
        && failure == nil
      {
        failure = "content differs from recomputation at transaction \(transaction): \(changes)"
      }
      previous = current
    }
    defer { changeToken.cancel() }

    // The oracle of updates: the values that a controller's functions read of each album it
    // shows (and its observed title), as of the end of the last transaction, and the albums a
    // transaction reported as changed. Read in full after every transaction, so only in runs
    // of up to 300 albums (the runs of thousands are there for the index's nodes).
    let checksUpdates = size <= 300
    func shownValues<Key>(
      _ controller: RelationController<Album, Key>, _ reads: (Album, inout Hasher) -> Void
    ) -> [ObjectIdentifier: Int] {
      var values: [ObjectIdentifier: Int] = [:]
      for album in controller.objects {
        var hasher = Hasher()
        hasher.combine(album.title)
        reads(album, &hasher)
        values[ObjectIdentifier(album)] = hasher.finalize()
      }
      return values
    }
    // The same relation with no filter, one section and a sort on key paths only: the
    // controller compares what the sort reads by value, so it reports exactly the albums whose
    // values changed.
    let plainReads: (Album, inout Hasher) -> Void = { $1.combineAll($0.labelName, $0.year) }
    let plain =
      checksUpdates
      ? try RelationController(
        \.albums, of: artist, sortedBy: [SortDescriptor(\.labelName), SortDescriptor(\.year)],
        observing: [\.title], delivery: .synchronous) : nil
    func plainValues() -> [ObjectIdentifier: Int] {
      plain.map { shownValues($0, plainReads) } ?? [:]
    }
    var baseline = checksUpdates ? shownValues(albums, configuration.reads) : [:]
    var plainBaseline = plainValues()
    var reported: Set<ObjectIdentifier> = []
    var plainReported: Set<ObjectIdentifier> = []
    var plainPrevious = plain?.snapshot.itemIdentifiers ?? []
    let reportToken = albums.onChange { changes in
      reported.formUnion(changes.updatedElements.map(ObjectIdentifier.init))
      for (move, album) in zip(changes.movedRows, changes.movedElements) where move.changed {
        reported.insert(ObjectIdentifier(album))
      }
      reported.formUnion(changes.insertedElements.map(ObjectIdentifier.init))
      for section in changes.insertedSectionElements {
        reported.formUnion(section.map(ObjectIdentifier.init))
      }
    }
    defer { reportToken.cancel() }
    let plainToken = plain.map { plain in
      plain.onChange { [unowned plain] changes in
        plainReported.formUnion(changes.updatedElements.map(ObjectIdentifier.init))
        for (move, album) in zip(changes.movedRows, changes.movedElements) where move.changed {
          plainReported.insert(ObjectIdentifier(album))
        }
        let current = plain.snapshot.itemIdentifiers
        do {
          let replayed = try BatchUpdateReplayer.replay(
            old: plainPrevious, changes: changes, dataSource: current)
          if replayed != current && failure == nil {
            failure =
              "the plain controller's replay differs at transaction \(transaction): \(changes)"
          }
        } catch {
          if failure == nil {
            failure = "the plain controller, transaction \(transaction): \(error)"
          }
        }
        plainPrevious = current
      }
    }
    defer { plainToken?.cancel() }
    /// Checks (c) for the transaction that just ended, then takes its values as the baseline.
    func checkUpdates(reconfigured: Bool) {
      defer {
        reported = []
        plainReported = []
      }
      guard checksUpdates else { return }
      let values = shownValues(albums, configuration.reads)
      let plainValues = plainValues()
      // A write the filter made while the controller ran it is a transaction of its own,
      // which may be folded with this one's or after it: only the content is checked then.
      if !wroteDuringEvaluation && failure == nil {
        // A reconfiguration changes what is read, not the values: nothing to report.
        if !reconfigured,
          let missed = values.first(where: { id, value in
            baseline[id].map { $0 != value } == true && !reported.contains(id)
          })
        {
          let album = albums.objects.first { ObjectIdentifier($0) == missed.key }
          failure =
            "the album \(album.map { "\($0)" } ?? "?"), whose read values changed, was shown "
            + "before and after transaction \(transaction) and not reported"
        }
        let changed = Set(
          plainValues.compactMap { id, value in
            plainBaseline[id].map { $0 != value } == true ? id : nil
          })
        if changed != plainReported && failure == nil {
          failure =
            "the plain controller reported \(plainReported.count) albums as changed at "
            + "transaction \(transaction), not the \(changed.count) whose read values changed "
            + "(missed \(changed.subtracting(plainReported).count), reported unchanged "
            + "\(plainReported.subtracting(changed).count))"
        }
        localStats.changedValues += changed.count
      }
      baseline = values
      plainBaseline = plainValues
    }

    /// A label that many albums read announces its deletion (a store deleted it): outside a
    /// block, one transaction, so one change set at most (unless an armed write of the
    /// filter's makes the next one).
    func deleteLabel(_ rng: inout SplitMix64) {
      let index = Int.random(in: 0..<labels.count, using: &rng)
      let deleted = labels[index]
      labels[index] = Label("L\(Int.random(in: 0..<9, using: &rng))")
      let checked = !inBlock && armedWrite == nil
      let before = localStats.changeSets
      deleted.announceDeletion()
      guard checked else { return }
      localStats.sharedDeletions += 1
      if localStats.changeSets > before + 1 && failure == nil {
        failure =
          "the deletion of a label gave \(localStats.changeSets - before) change sets at "
          + "transaction \(transaction)"
      }
    }

    func randomMember(_ rng: inout SplitMix64) -> Album? {
      artist.albums.isEmpty
        ? nil : artist.albums[Int.random(in: 0..<artist.albums.count, using: &rng)]
    }

    /// One random operation.
    func operate(_ rng: inout SplitMix64) {
      let count = artist.albums.count
      switch Int.random(in: 0..<100, using: &rng) {
      case 0..<14:
        if count < size + 20 {
          artist.insert(makeAlbum(&rng), at: Int.random(in: 0...count, using: &rng), into: \.albums)
        } else {
          artist.remove(at: Int.random(in: 0..<count, using: &rng), from: \.albums)
        }
      case 14..<26:
        guard count > 0 else { return }
        if count > size / 2 || Bool.random(using: &rng) {
          artist.remove(at: Int.random(in: 0..<count, using: &rng), from: \.albums)
        }
      case 26..<32:
        guard count > 0 else { return }
        artist.apply(
          .replace(at: Int.random(in: 0..<count, using: &rng), with: makeAlbum(&rng)),
          to: \.albums)
      case 32..<40:
        guard count > 0 else { return }
        artist.apply(
          .move(
            from: Int.random(in: 0..<count, using: &rng),
            to: Int.random(in: 0..<count, using: &rng)),
          to: \.albums)
      case 40..<42:
        // Whole-relation assignment: keep most, shuffle some, add some, maybe a duplicate.
        var next = artist.albums.filter { _ in Int.random(in: 0..<10, using: &rng) != 0 }
        for _ in 0..<Int.random(in: 0..<4, using: &rng) where next.count > 1 {
          next.swapAt(
            Int.random(in: 0..<next.count, using: &rng),
            Int.random(in: 0..<next.count, using: &rng))
        }
        for _ in 0..<Int.random(in: 0..<4, using: &rng) {
          next.insert(makeAlbum(&rng), at: Int.random(in: 0...next.count, using: &rng))
        }
        if Int.random(in: 0..<4, using: &rng) == 0, let twice = next.first {
          next.append(twice)
        }
        artist.albums = next
      case 42..<58:
        randomMember(&rng)?.year = Int.random(in: 1960..<2030, using: &rng)
      case 58..<64:
        randomMember(&rng)?.isLive.toggle()
      case 64..<74:
        randomMember(&rng)?.title = "t\(Int.random(in: 0..<3, using: &rng))"
      case 74..<79:
        let label = labels[Int.random(in: 0..<labels.count, using: &rng)]
        label.name = "L\(Int.random(in: 0..<9, using: &rng))"  // one write: one change set
      case 79..<84:
        randomMember(&rng)?.label =
          Bool.random(using: &rng) ? nil : labels[Int.random(in: 0..<labels.count, using: &rng)]
      case 84..<92:
        guard let album = randomMember(&rng) else { return }
        if album.tracks.isEmpty || Bool.random(using: &rng) {
          album.tracks.append(Track(Int.random(in: 10..<120, using: &rng)))
        } else {
          album.tracks[Int.random(in: 0..<album.tracks.count, using: &rng)].duration =
            Int.random(in: 10..<120, using: &rng)
        }
      case 92..<94:
        guard let album = randomMember(&rng), !album.isDeleted else { return }
        album.announceDeletion()
      case 94:
        randomMember(&rng)?.plain += 1  // not observed, changes nothing
      case 95:
        deleteLabel(&rng)
      case 96:
        // The filter writes when the controller next runs it: a year, or an insertion.
        if Bool.random(using: &rng), let album = randomMember(&rng) {
          let year = Int.random(in: 1960..<2030, using: &rng)
          armedWrite = { album.year = year }
        } else {
          let album = makeAlbum(&rng)
          armedWrite = { artist.insert(album, at: 0, into: \.albums) }
        }
        // A change that makes the controller run the filter (it may make the write at once).
        randomMember(&rng)?.year = Int.random(in: 1960..<2030, using: &rng)
      case 97:
        artist.albums.reverse()  // a whole reorder, in place
      case 98:
        // A run of fine-grained inserts in one block (each edit in place).
        coalesce {
          for _ in 0..<Int.random(in: 2...20, using: &rng) {
            artist.insert(
              makeAlbum(&rng), at: Int.random(in: 0...artist.albums.count, using: &rng),
              into: \.albums)
          }
        }
      default:
        artist.albums = artist.albums.shuffled(using: &rng)
      }
    }

    var operations = 0
    while operations < budget {
      transaction += 1
      var reconfigured = false
      if Int.random(in: 0..<200, using: &rng) == 0 {
        configuration = FuzzConfiguration.all.randomElement(using: &rng)!  // not empty
        let next = configuration
        reconfiguring = true
        try albums.reconfigure { current in
          current.filter = next.filter.map(writing)
          current.sortedBy = next.sortedBy
          current.sectionedBy = next.section
        }
        reconfiguring = false
        localStats.reconfigurations += 1
        operations += 1
        reconfigured = true
      } else if Bool.random(using: &rng) {
        let edits = Int.random(in: 1...50, using: &rng)
        inBlock = true
        coalesce {
          for _ in 0..<edits { operate(&rng) }
        }
        inBlock = false
        operations += edits
      } else if Int.random(in: 0..<25, using: &rng) == 0 {
        deleteLabel(&rng)  // most operations run in blocks: this one outside, checked
        operations += 1
      } else {
        operate(&rng)
        operations += 1
      }
      checkUpdates(reconfigured: reconfigured)
      localStats.transactions += 1
      localStats.tallest = max(
        localStats.tallest, albums._lock.withLock { $0.index._sections }.map(\.height).max() ?? 0)
      if wroteDuringEvaluation { localStats.writesDuringEvaluation += 1 }
      wroteDuringEvaluation = false
      let content = albums.snapshot.itemIdentifiers
      if failure == nil && !configuration.matches(content, artist.albums) {
        failure = "content differs after transaction \(transaction) (no change set delivered)"
      }
      if let failure {
        Issue.record("run \(seed): \(failure) [\(configuration.name)]")
        stats = localStats
        stats.operations += operations
        return
      }
    }
    stats = localStats
    stats.operations += operations
  }
}

extension RelationControllerFuzzTests {
  /// Change sets delivered on a serial queue to several handlers, which are cancelled at random
  /// while deliveries wait (the queue paused at random) or while the queue runs, among random
  /// edits of the relation: no change set whose delivery began after a handler's `cancel()`
  /// returned reaches that handler (one being delivered at that moment may, as documented), and
  /// the handler that stays sees change sets that replay, one after another, onto the content it
  /// saw before.
  @Test(arguments: 0..<4)
  func queuedChangeSetsNeverReachACancelledHandler(seed: Int) throws {
    var rng = SplitMix64(seed: UInt64(seed) &+ 907)
    let queue = DispatchQueue(label: "RelationControllerFuzzTests.queued.\(seed)")
    var names = 0
    func makeAlbum(_ rng: inout SplitMix64) -> Album {
      names += 1
      return Album("q\(names)", year: Int.random(in: 1960..<2030, using: &rng))
    }
    let artist = Artist((0..<40).map { _ in makeAlbum(&rng) })
    let configuration = FuzzConfiguration.all[seed % FuzzConfiguration.all.count]
    let albums = try RelationController(
      \.albums, of: artist, filter: configuration.filter.map { .matching($0) },
      sortedBy: configuration.sortedBy,
      sectionedBy: configuration.section, delivery: .queue(queue))
    // The handler that stays: replays each change set onto the content it saw last.
    let replay = _Lock((previous: albums.snapshot.itemIdentifiers, checked: 0, failure: ""))
    // Handlers are called in the order they were registered: the keeper first, so this counts
    // the deliveries that began.
    let began = _Lock(0)
    let keeper = albums.onChange { [unowned albums] changes in
      began.withLock { $0 += 1 }
      let current = albums.snapshot.itemIdentifiers
      replay.withLock { state in
        do {
          let replayed = try BatchUpdateReplayer.replay(
            old: state.previous, changes: changes, dataSource: current)
          if replayed != current && state.failure.isEmpty { state.failure = "\(changes)" }
        } catch {
          if state.failure.isEmpty { state.failure = "\(error)" }
        }
        state.previous = current
        state.checked += 1
      }
    }
    let delivered = _Lock(0)
    // Each handler keeps the number of the last delivery it received.
    var live: [(token: ObservationToken, lastReceived: _Lock<Int>)] = []
    // A cancelled handler's, and how many deliveries had begun once its `cancel()` returned.
    var cancelled: [(lastReceived: _Lock<Int>, begunAtCancel: Int)] = []
    let pause = QueuePause(queue)
    // The controller drains where it delivers, on `queue`: the relation and its elements are
    // written there too (the threading contract), or here while the queue is paused.
    func onQueue(_ edit: () -> Void) {
      if pause.isPaused { edit() } else { queue.sync(execute: edit) }
    }
    for _ in 0..<800 {
      switch Int.random(in: 0..<12, using: &rng) {
      case 0..<2:
        let lastReceived = _Lock(0)
        let token = albums.onChange { _ in
          // On the queue, where `began` only grows: this delivery's number.
          let delivery = began.withLock { $0 }
          lastReceived.withLock { $0 = delivery }
          delivered.withLock { $0 += 1 }
        }
        live.append((token, lastReceived))
      case 2 where !live.isEmpty:
        let entry = live.remove(at: Int.random(in: 0..<live.count, using: &rng))
        entry.token.cancel()
        // Read after `cancel()` returned: a delivery numbered higher began later still, and
        // must not reach the handler.
        cancelled.append((entry.lastReceived, began.withLock { $0 }))
      case 3:
        pause.toggle()
      case 4..<7:
        onQueue {
          artist.albums.randomElement(using: &rng)?.year = .random(in: 1960..<2030, using: &rng)
        }
      case 7:
        onQueue {
          artist.insert(
            makeAlbum(&rng), at: Int.random(in: 0...artist.albums.count, using: &rng),
            into: \.albums)
        }
      case 8 where !artist.albums.isEmpty:
        onQueue {
          artist.remove(at: Int.random(in: 0..<artist.albums.count, using: &rng), from: \.albums)
        }
      case 9:
        onQueue {
          coalesce {
            for album in artist.albums.prefix(5) {
              album.year = Int.random(in: 1960..<2030, using: &rng)
            }
          }
        }
      case 10:
        onQueue { artist.albums.reverse() }
      default:
        onQueue {
          artist.albums.randomElement(using: &rng)?.tracks.append(
            Track(Int.random(in: 1..<99, using: &rng)))
        }
      }
    }
    pause.finish()
    let violations = cancelled.count { $0.lastReceived.withLock { $0 } > $0.begunAtCancel }
    #expect(violations == 0, "cancelled handlers that received a later change set")
    #expect(!cancelled.isEmpty)
    #expect(delivered.withLock { $0 } > 0)
    let (checked, failure) = replay.withLock { ($0.checked, $0.failure) }
    #expect(checked > 0)
    #expect(failure.isEmpty)
    #expect(configuration.matches(albums.snapshot.itemIdentifiers, artist.albums))
    for entry in live { entry.token.cancel() }
    keeper.cancel()
  }
}

extension Hasher {
  /// Adds each of `values`, in order.
  mutating func combineAll<each Value: Hashable>(_ values: repeat each Value) {
    repeat combine(each values)
  }
}
