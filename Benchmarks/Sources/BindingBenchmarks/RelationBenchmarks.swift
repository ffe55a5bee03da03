import Binding
import CHeapStats
import CollectionController
import Foundation

// The relation controller's measurements; main.swift prints them (its header says how they are
// measured).

typealias AlbumController = RelationController<Album, Int>

/// Years are drawn from 1950..<2025 (75 years, so about one in 75 albums shares a year with any
/// given one), titles from a pool of 2,000: ties on the year are the rule, ties on both happen.
let firstYear = 1950
let yearCount: UInt64 = 75
let titlePool: [String] = (0..<2_000).map { "Album \($0 * 7_919 % 2_000)" }

func randomYear(_ rng: inout SplitMix64) -> Int { firstYear + Int(rng.next() % yearCount) }
func randomTitle(_ rng: inout SplitMix64) -> String {
  titlePool[Int(rng.next() % UInt64(titlePool.count))]
}

/// `count` albums with random years and titles, one in ten live (filtered out).
func makeAlbums(_ count: Int, _ rng: inout SplitMix64) -> [Album] {
  (0..<count).map { _ in makeAlbum(&rng) }
}

func makeAlbum(_ rng: inout SplitMix64, isLive: Bool? = nil) -> Album {
  let album = Album(year: randomYear(&rng), isLive: isLive ?? (rng.next() % 10 == 0))
  album.title = randomTitle(&rng)
  return album
}

/// How a benchmark's controller sorts.
enum AlbumSort {
  /// By year, then title (`SortDescriptor`s).
  case descriptors
  /// Unsorted (to tell the kept keys' memory apart).
  case none

  var comparators: [any SortComparator<Album>] {
    switch self {
    case .descriptors: [SortDescriptor(\.year), SortDescriptor(\.title)]
    case .none: []
    }
  }
}

/// The controller's configuration, which every baseline reproduces: live albums filtered out,
/// sorted by year then title, in sections by decade.
func makeController(_ artist: Artist, sort: AlbumSort = .descriptors) throws -> AlbumController {
  try RelationController(
    \.albums, of: artist, filter: .matching { !$0.isLive }, sortedBy: sort.comparators,
    sectionedBy: { $0.year / 10 * 10 }, observing: [\.title], delivery: .synchronous)
}

/// The one `onChange` receiver: what it was handed.
final class Receiver {
  var changeSets = 0
  var moves = 0
  var updates = 0
  var inserts = 0
}

/// A controller over the albums of one artist (see `makeController`) with one receiver.
final class RelationFixture {
  let artist: Artist
  /// The albums that pass the filter.
  let shown: [Album]
  let receiver = Receiver()
  let controller: AlbumController
  let subscription: ObservationToken

  init(_ albums: [Album], sort: AlbumSort = .descriptors) throws {
    artist = Artist(albums)
    shown = albums.filter { !$0.isLive }
    controller = try makeController(artist, sort: sort)
    let receiver = receiver
    subscription = controller.onChange { changes in
      receiver.changeSets += 1
      receiver.moves += changes.movedRows.count
      receiver.updates += changes.updatedRows.count
      receiver.inserts += changes.insertedRows.count
    }
  }
}

/// Heap bytes in use (mmapped chunks included) that creating a controller over `albums` adds,
/// per album: sorted as usual, and unsorted (the same structure without kept sort keys).
func controllerBytesPerElement(_ albums: [Album]) throws -> (sorted: Double, unsorted: Double) {
  let artist = Artist(albums)
  func bytes(sorted: Bool) throws -> Double {
    let before = heap_bytes_in_use_with_mmap()
    let controller = try makeController(artist, sort: sorted ? .descriptors : .none)
    let after = heap_bytes_in_use_with_mmap()
    withExtendedLifetime(controller) {}
    return (Double(after) - Double(before)) / Double(albums.count)
  }
  return (try bytes(sorted: true), try bytes(sorted: false))
}

/// The year changes every move figure makes: a random shown album, a random year (most move
/// it; one in 75 leaves it in place, which is an update: the year is read by the sort).
struct MoveWrites {
  var rng: SplitMix64
  let count: Int

  mutating func next() -> (index: Int, year: Int) {
    (Int(rng.next() % UInt64(count)), randomYear(&rng))
  }
}

/// The controller's cost of a year change: the write, the controller's work and the delivery.
func moveBody(_ fixture: RelationFixture, seed: UInt64) -> (Int) -> Void {
  var writes = MoveWrites(rng: SplitMix64(seed: seed), count: fixture.shown.count)
  let shown = fixture.shown
  return { count in
    for _ in 0..<count {
      let (index, year) = writes.next()
      shown[index].year = year
    }
  }
}

/// The naive content, written by hand as an app would: the relation filtered, sorted by year,
/// then title, then source order (so ties keep it, as in the controller), as identities.
@inline(never)
func naiveContent(_ albums: [Album]) -> [ObjectIdentifier] {
  albums.enumerated()
    .filter { !$0.element.isLive }
    .sorted { a, b in
      let (left, right) = (a.element, b.element)
      if left.year != right.year { return left.year < right.year }
      if left.title != right.title { return left.title < right.title }
      return a.offset < b.offset
    }
    .map { ObjectIdentifier($0.element) }
}

/// The same with the controller's own `SortDescriptor`s (`sorted(using:)` is stable).
@inline(never)
func naiveDescriptorContent(_ albums: [Album]) -> [ObjectIdentifier] {
  albums.filter { !$0.isLive }
    .sorted(using: [SortDescriptor(\Album.year), SortDescriptor(\Album.title)])
    .map { ObjectIdentifier($0) }
}

/// The naive cost of a year change on albums no controller observes: the write, the whole
/// content recomputed by `content`, and its `difference(from:)` the previous content.
func naiveMoveBody(
  _ albums: [Album], seed: UInt64, content: @escaping ([Album]) -> [ObjectIdentifier]
) -> (Int) -> Void {
  let shown = albums.filter { !$0.isLive }
  var writes = MoveWrites(rng: SplitMix64(seed: seed), count: shown.count)
  var current = content(albums)
  return { count in
    for _ in 0..<count {
      let (index, year) = writes.next()
      shown[index].year = year
      let next = content(albums)
      blackHole(next.difference(from: current).count)
      current = next
    }
  }
}

/// The limit line: a hand-written order-statistics tree over the same keys, repositioning the
/// album of each year change (the same writes), with the album itself written too.
func limitMoveBody(_ albums: [Album], seed: UInt64) -> (Int) -> Void {
  repositionBody(albums, LimitTree.self, seed: seed)
}

/// The controller's own time for appending a shown album with `insert(_:at:into:)`: from the
/// relation's first observer, registered before the controller, to the end of the delivery to
/// the receiver, so that neither the copy of the array (made by `insert` before the write) nor
/// the release of the previous array (kept alive meanwhile) is counted. Per append, the median
/// of 5 runs of `inserts` appends.
func measureAppends(_ fixture: RelationFixture, inserts: Int, seed: UInt64) -> RelationCost {
  var rng = SplitMix64(seed: seed)
  let artist = fixture.artist
  let receiver = fixture.receiver
  let (changeSets, inserted) = (receiver.changeSets, receiver.inserts)
  var runs: [Double] = []
  for _ in 0..<5 {
    var total: UInt64 = 0
    for _ in 0..<inserts {
      let album = makeAlbum(&rng, isLive: false)
      let count = artist.albums.count
      let start = DispatchTime.now().uptimeNanoseconds
      artist.insert(album, at: count, into: \.albums)
      total += DispatchTime.now().uptimeNanoseconds - start
    }
    runs.append(Double(total) / Double(inserts))
  }
  let appends = Double(5 * inserts)
  return RelationCost(
    nanoseconds: Spread(runs).median,
    changeSets: Double(receiver.changeSets - changeSets) / appends,
    inserts: Double(receiver.inserts - inserted) / appends)
}

/// A measured cost with what the receiver was handed meanwhile, per operation.
struct RelationCost {
  var nanoseconds: Double
  var changeSets = 0.0
  var inserts = 0.0
}

/// `albums` with 1% of its elements removed and as many new albums inserted at random places.
func churned(_ albums: [Album], _ rng: inout SplitMix64) -> [Album] {
  let churn = albums.count / 100
  var removed = Set<Int>()
  while removed.count < churn { removed.insert(Int(rng.next() % UInt64(albums.count))) }
  let kept = albums.indices.filter { !removed.contains($0) }.map { albums[$0] }
  // Insertion places, as indexes into `kept` (several may share one).
  let places = (0..<churn).map { _ in Int(rng.next() % UInt64(kept.count + 1)) }.sorted()
  var result: [Album] = []
  result.reserveCapacity(albums.count)
  var next = 0
  for (index, album) in kept.enumerated() {
    while next < churn && places[next] == index {
      result.append(makeAlbum(&rng))
      next += 1
    }
    result.append(album)
  }
  while next < churn {
    result.append(makeAlbum(&rng))
    next += 1
  }
  return result
}

/// The controller's cost of assigning `other` and the original array in turn (each
/// assignment is 1% churn; both arrays stay alive, so no assignment frees one).
func replacementBody(_ fixture: RelationFixture, with other: [Album]) -> (Int) -> Void {
  let artist = fixture.artist
  let original = artist.albums
  var next = 0
  return { count in
    for _ in 0..<count {
      artist.albums = next % 2 == 0 ? other : original
      next += 1
    }
  }
}

/// The naive way for the same assignments: the content of the new array by `content`, its
/// `difference(from:)` the previous content, then `inferringMoves()`.
func naiveReplacementBody(
  _ original: [Album], _ other: [Album], content: @escaping ([Album]) -> [ObjectIdentifier]
) -> (Int) -> Void {
  var current = content(original)
  var next = 0
  return { count in
    for _ in 0..<count {
      let updated = content(next % 2 == 0 ? other : original)
      blackHole(updated.difference(from: current).inferringMoves().insertions.count)
      current = updated
      next += 1
    }
  }
}

/// Seconds for whole reorders of a fixture over `count` albums (one run each, in turn): the
/// array reversed, shuffled, and the controller reconfigured to the reverse order.
func measureReorders(_ count: Int, seed: UInt64) throws -> [(name: String, seconds: Double)] {
  var rng = SplitMix64(seed: seed)
  let fixture = try RelationFixture(makeAlbums(count, &rng))
  func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
  }
  return [
    ("reversing the array", seconds { fixture.artist.albums.reverse() }),
    ("shuffling the array", seconds { fixture.artist.albums.shuffle(using: &rng) }),
    (
      "reconfiguring to the reverse order",
      try seconds {
        try fixture.controller.reconfigure {
          $0.sortedBy = [
            SortDescriptor(\.year, order: .reverse), SortDescriptor(\.title, order: .reverse),
          ]
        }
      }
    ),
    (
      "as many appends as albums, in one coalesce block",
      seconds {
        let added = makeAlbums(count, &rng)
        coalesce {
          for album in added {
            fixture.artist.insert(album, at: fixture.artist.albums.count, into: \.albums)
          }
        }
      }
    ),
  ]
}

/// A controller delivering on a serial queue, over `albums` (the configuration of
/// `makeController`), for backlogs: writes made inside one `queue.sync`, the context the
/// delivery article asks for, pile up as one transaction each and drain after the block.
final class BacklogFixture {
  let queue = DispatchQueue(label: "backlog")
  let artist: Artist
  /// The albums that pass the filter.
  let shown: [Album]
  let receiver = Receiver()
  let controller: AlbumController
  let subscription: ObservationToken

  init(_ albums: [Album]) throws {
    artist = Artist(albums)
    shown = albums.filter { !$0.isLive }
    controller = try RelationController(
      \.albums, of: artist, filter: .matching { !$0.isLive },
      sortedBy: AlbumSort.descriptors.comparators, sectionedBy: { $0.year / 10 * 10 },
      observing: [\.title], delivery: .queue(queue))
    let receiver = receiver
    subscription = controller.onChange { changes in
      receiver.changeSets += 1
      receiver.moves += changes.movedRows.count
    }
  }
}

/// Backlogs of `backlog` year changes (the writes of `moveBody`), each made inside one
/// `queue.sync` and drained by the controller right after it; per change, the writes, the
/// drain and the deliveries. `iterations` is a multiple of `backlog`.
func backlogBody(_ fixture: BacklogFixture, backlog: Int, seed: UInt64) -> (Int) -> Void {
  var writes = MoveWrites(rng: SplitMix64(seed: seed), count: fixture.shown.count)
  let shown = fixture.shown
  return { count in
    for _ in 0..<(count / backlog) {
      fixture.queue.sync {
        for _ in 0..<backlog {
          let (index, year) = writes.next()
          shown[index].year = year
        }
      }
      fixture.queue.sync {}  // the drain, scheduled on the queue by the first write, is done
    }
  }
}
