import Binding
import CollectionController
import Foundation
import Testing

/// `RelationCollection` has no requirements: `Array` and `Set` conform, and a relation of
/// another conforming sequence is read as an array of its elements, in the sequence's order.
@Suite struct RelationCollectionTests {
  /// A sequence of albums that is neither an array nor a set.
  struct AlbumShelf: RelationCollection {
    var albums: [Album]

    func makeIterator() -> IndexingIterator<[Album]> { albums.makeIterator() }
  }

  final class Collector: ObservableModel {
    let observation = ObservationStorage()
    @Observed var shelf: AlbumShelf

    init(_ albums: [Album]) { shelf = AlbumShelf(albums: albums) }
  }

  @Test func aRelationOfAnotherConformingSequenceIsReadAsAnArray() throws {
    let a = Album("a", year: 2)
    let b = Album("b", year: 1)
    let c = Album("c", year: 3)
    let collector = Collector([a, b, c])
    let unsorted = try RelationController(\.shelf, of: collector)
    let sorted = try RelationController(\.shelf, of: collector, sortedBy: [SortDescriptor(\.year)])
    #expect(unsorted.objects.map(\.name) == ["a", "b", "c"])
    #expect(sorted.objects.map(\.name) == ["b", "a", "c"])

    collector.shelf = AlbumShelf(albums: [c, a])
    #expect(unsorted.objects.map(\.name) == ["c", "a"])
    #expect(sorted.objects.map(\.name) == ["a", "c"])
  }

  @Test func arraysAndSetsAreReadAsTheirKind() throws {
    let a = Album("a", year: 2)
    let b = Album("b", year: 1)
    let artist = Artist([a, b])
    artist.albumSet = [a, b]
    let array = try RelationController(\.albums, of: artist)
    let set = try RelationController(\.albumSet, of: artist, sortedBy: [SortDescriptor(\.year)])
    #expect(array.objects.map(\.name) == ["a", "b"])
    #expect(set.objects.map(\.name) == ["b", "a"])

    _ = artist.remove(b, from: \.albumSet)
    artist.albums.reverse()
    #expect(array.objects.map(\.name) == ["b", "a"])
    #expect(set.objects.map(\.name) == ["a"])
  }
}
