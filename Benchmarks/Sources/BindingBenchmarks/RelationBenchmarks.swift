import Binding
import CHeapStats
import CollectionController
import Foundation

// The relation controller's measurements; main.swift prints them (its header says how they are
// measured).

typealias AlbumController = RelationController<Artist, Album, Unsectioned>

/// Years are drawn from `0..<yearRange`, wide enough that ties are rare.
let yearRange: UInt64 = 1 << 40

/// `count` albums with random years, one in ten live (filtered out).
func makeAlbums(_ count: Int, _ rng: inout SplitMix64) -> [Album] {
  (0..<count).map { _ in makeAlbum(&rng) }
}

func makeAlbum(_ rng: inout SplitMix64, isLive: Bool? = nil) -> Album {
  Album(year: Int(rng.next() % yearRange), isLive: isLive ?? (rng.next() % 10 == 0))
}

/// The one `onChange` receiver: what it was handed, and when the last change set arrived.
final class Receiver {
  var changeSets = 0
  var moves = 0
  var inserts = 0
  var deletes = 0
  var lastDelivery: UInt64 = 0
}

/// A controller over the albums of one artist, filtered by `!isLive` and sorted by `year`,
/// with synchronous delivery to one receiver.
final class RelationFixture {
  let artist: Artist
  /// The albums that pass the filter.
  let shown: [Album]
  let receiver = Receiver()
  let controller: AlbumController
  let subscription: ObservationToken
  /// Time to create the controller.
  let buildSeconds: Double
  /// Heap bytes in use (mmapped chunks included) after creating the controller minus before,
  /// per element of the relation.
  let bytesPerElement: Double

  init(_ albums: [Album]) throws {
    artist = Artist(albums)
    shown = albums.filter { !$0.isLive }
    let before = heap_bytes_in_use_with_mmap()
    let start = DispatchTime.now().uptimeNanoseconds
    controller = try RelationController(
      \.albums, of: artist, filter: { !$0.isLive }, sortedBy: [SortDescriptor(\.year)],
      observing: [\.title], delivery: .synchronous)
    buildSeconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    let after = heap_bytes_in_use_with_mmap()
    bytesPerElement = (Double(after) - Double(before)) / Double(albums.count)
    let receiver = receiver
    subscription = controller.onChange { changes in
      receiver.changeSets += 1
      receiver.moves += changes.movedRows.count
      receiver.inserts += changes.insertedRows.count
      receiver.deletes += changes.deletedRows.count
      receiver.lastDelivery = DispatchTime.now().uptimeNanoseconds
    }
  }
}

/// A measured cost with what the receiver was handed meanwhile, per operation.
struct RelationCost {
  var nanoseconds: Double
  var changeSets = 0.0
  var moves = 0.0
  var inserts = 0.0
}

/// Writes the `year` of a random shown album, `changes` times per run: nanoseconds per write,
/// best of 5 runs.
func measureMoves(_ fixture: RelationFixture, changes: Int, seed: UInt64) -> RelationCost {
  var rng = SplitMix64(seed: seed)
  let shown = fixture.shown
  let receiver = fixture.receiver
  let (changeSets, moves) = (receiver.changeSets, receiver.moves)
  let cost = measure(iterations: changes) { count in
    for _ in 0..<count {
      shown[Int(rng.next() % UInt64(shown.count))].year = Int(rng.next() % yearRange)
    }
  }
  let writes = Double(5 * changes)
  return RelationCost(
    nanoseconds: cost, changeSets: Double(receiver.changeSets - changeSets) / writes,
    moves: Double(receiver.moves - moves) / writes)
}

/// How the naive path sorts: with the controller's own configuration (the same
/// `SortDescriptor`, as an app re-sorting its list would), or with a hand-written comparison of
/// the years (the fastest a naive path can be; reported for comparison).
enum NaiveSort {
  case sameDescriptors
  case handWritten
}

/// The naive content: the whole relation filtered, then sorted by year, ties in source order.
@inline(never)
func naiveContent(_ albums: [Album], _ sort: NaiveSort) -> [ObjectIdentifier] {
  switch sort {
  case .sameDescriptors:
    // `sorted(using:)` is stable, so ties keep source order, as in the controller.
    return albums.filter { !$0.isLive }
      .sorted(using: [SortDescriptor(\Album.year)])
      .map { ObjectIdentifier($0) }
  case .handWritten:
    return albums.enumerated()
      .filter { !$0.element.isLive }
      .sorted {
        let (left, right) = ($0.element.year, $1.element.year)
        return left != right ? left < right : $0.offset < $1.offset
      }
      .map { ObjectIdentifier($0.element) }
  }
}

/// The same writes as `measureMoves`, on albums no controller observes, each followed by the
/// naive content and its `difference(from:)` the previous content: nanoseconds per write, best
/// of 5 runs.
func measureNaiveMoves(
  _ albums: [Album], changes: Int, seed: UInt64, sort: NaiveSort
) -> RelationCost {
  var rng = SplitMix64(seed: seed)
  let shown = albums.filter { !$0.isLive }
  var content = naiveContent(albums, sort)
  var edits = 0
  let cost = measure(iterations: changes) { count in
    for _ in 0..<count {
      shown[Int(rng.next() % UInt64(shown.count))].year = Int(rng.next() % yearRange)
      let next = naiveContent(albums, sort)
      edits += next.difference(from: content).count
      content = next
    }
  }
  // A move is one removal and one insertion.
  return RelationCost(nanoseconds: cost, moves: Double(edits) / 2 / Double(5 * changes))
}

/// The controller's own time for appending a shown album with `insert(_:at:into:)`: from the
/// relation's first observer, registered before the controller, to the end of the delivery to
/// the receiver, so that neither the copy of the array (made by `insert` before the write) nor
/// the release of the previous array (kept alive meanwhile) is counted. Per append, best of 5
/// runs of `inserts` appends.
func measureAppends(_ fixture: RelationFixture, inserts: Int, seed: UInt64) -> RelationCost {
  var rng = SplitMix64(seed: seed)
  let artist = fixture.artist
  let receiver = fixture.receiver
  let (changeSets, inserted) = (receiver.changeSets, receiver.inserts)
  var best = Double.infinity
  for _ in 0..<5 {
    var total: UInt64 = 0
    for _ in 0..<inserts {
      let album = makeAlbum(&rng, isLive: false)
      let count = artist.albums.count
      let start = DispatchTime.now().uptimeNanoseconds
      artist.insert(album, at: count, into: \.albums)
      total += DispatchTime.now().uptimeNanoseconds - start
    }
    best = min(best, Double(total) / Double(inserts))
  }
  let appends = Double(5 * inserts)
  return RelationCost(
    nanoseconds: best, changeSets: Double(receiver.changeSets - changeSets) / appends,
    inserts: Double(receiver.inserts - inserted) / appends)
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

/// Assigns `other` and the original array in turn to the relation, `replacements` times per
/// run (an even number, so that every run starts from the original): nanoseconds per
/// assignment, best of 5 runs. Both arrays stay alive, so no assignment frees one.
func measureReplacements(
  _ fixture: RelationFixture, with other: [Album], replacements: Int, repetitions: Int
) -> RelationCost {
  let artist = fixture.artist
  let original = artist.albums
  let receiver = fixture.receiver
  let (changeSets, moves, inserts) = (receiver.changeSets, receiver.moves, receiver.inserts)
  let cost = measure(iterations: replacements, repetitions: repetitions) { count in
    for index in 0..<count { artist.albums = index.isMultiple(of: 2) ? other : original }
  }
  let writes = Double(repetitions * replacements)
  return RelationCost(
    nanoseconds: cost, changeSets: Double(receiver.changeSets - changeSets) / writes,
    moves: Double(receiver.moves - moves) / writes,
    inserts: Double(receiver.inserts - inserts) / writes)
}

/// The naive way for the same assignments: the naive content of the new array, its
/// `difference(from:)` the previous content, then `inferringMoves()`: nanoseconds per
/// assignment, best of `repetitions` runs of `replacements`.
func measureNaiveReplacements(
  _ original: [Album], _ other: [Album], replacements: Int, repetitions: Int, sort: NaiveSort
) -> RelationCost {
  var content = naiveContent(original, sort)
  var inserts = 0
  let cost = measure(iterations: replacements, repetitions: repetitions) { count in
    for index in 0..<count {
      let next = naiveContent(index.isMultiple(of: 2) ? other : original, sort)
      let difference = next.difference(from: content).inferringMoves()
      inserts += difference.insertions.count
      content = next
    }
  }
  return RelationCost(
    nanoseconds: cost, inserts: Double(inserts) / Double(repetitions * replacements))
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
          $0.sortedBy = [SortDescriptor(\.year, order: .reverse)]
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
