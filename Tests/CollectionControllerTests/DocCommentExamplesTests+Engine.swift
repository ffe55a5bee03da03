import Foundation
import Testing

@testable import CollectionController

// The examples of the documentation comments of the engine's internal types (see
// DocCommentExamplesTests.swift), which a controller composes: the ordered index, the
// change-set builder, and the order labels of array relations.

extension DocCommentExamplesTests {
  /// Orders albums by year.
  static func byYear(_ a: Album, _ b: Album) -> ComparisonResult {
    a.year < b.year ? .orderedAscending : a.year > b.year ? .orderedDescending : .orderedSame
  }

  /// An element whose sort key changed is removed by identity before it is inserted again.
  @Test func anElementWithAChangedKeyIsRemovedThenInsertedAgain() {
    let album = Album("Kind of Blue", year: 1959)
    let later = Album("Bitches Brew", year: 1970)
    // snippet cc-ordered-index: Sources/CollectionController/Engine/OrderedIndex.swift
    var index = _OrderedIndex<Album, Int>(comparator: { a, b in
      a.year < b.year ? .orderedAscending : a.year > b.year ? .orderedDescending : .orderedSame
    })
    index.insert(album, sectionKey: album.decade, sequence: 0)
    album.year = 1999  // the key changed while the album sits in the index
    index.remove(ObjectIdentifier(album))  // by identity: no comparison
    index.insert(album, sectionKey: album.decade, sequence: 0)
    // end snippet
    index.insert(later, sectionKey: later.decade, sequence: 1)
    index._checkInvariants()
    #expect(index.count == 2 && index.sectionCount == 2)
    #expect(index.sectionKey(at: 1) == 1990)
    #expect(index.position(of: ObjectIdentifier(album)) == RowPosition(section: 1, row: 0))
  }

  /// A transaction in three steps: an album's key changes, one leaves, one enters.
  @Test func aTransactionTouchesMovesAndFinishes() {
    typealias Element = Album
    let albums = [
      Album("Birth of the Cool", year: 1957), Album("Milestones", year: 1958),
      Album("Bitches Brew", year: 1970),
    ]
    var index = _OrderedIndex<Album, Int>(comparator: Self.byYear)
    for (offset, album) in albums.enumerated() {
      index.insert(album, sectionKey: album.decade, sequence: UInt64(offset))
    }
    // The transaction: Birth of the Cool moves after Milestones, Bitches Brew leaves the
    // relation, Tutu enters it.
    let tutu = Album("Tutu", year: 1986)
    albums[0].year = 1959
    let dirty = [(albums[0], false), (albums[2], false), (tutu, false)]
    let members: [Album] = [albums[0], albums[1], tutu]
    func isMember(_ album: Album) -> Bool { members.contains(album) }
    func key(_ album: Album) -> Int { album.decade }
    func sequence(_ album: Album) -> UInt64 { album === tutu ? 3 : 0 }
    var delivered: [RelationChangeSet<Album>] = []
    func deliver(_ changes: RelationChangeSet<Album>) { delivered.append(changes) }
    // snippet cc-change-set-builder: Sources/CollectionController/Engine/ChangeSetBuilder.swift
    // 1. Touch each element, on the unmodified index.
    var builder = _ChangeSetBuilder(before: index)
    for (element, changed) in dirty {
      builder.touch(element, changedAttributes: changed, in: index)
    }
    // 2. Take every touched element out, insert again those that belong, remove the others.
    index.detach(contentsOf: builder.touchedSlots)
    for (element, _) in dirty where isMember(element) {
      let point = index.insertionPoint(
        for: element, sectionKey: key(element), sequence: sequence(element))
      index.insert(element, sequence: sequence(element), at: point)
    }
    index.removeDetached()
    // 3. Finish: `false` when nothing visible changed.
    var changes = RelationChangeSet<Element>()
    if builder.finish(after: index, into: &changes) {
      deliver(changes)
    }
    // end snippet
    index._checkInvariants()
    #expect(
      delivered.map(\.description) == [
        "ChangeSet(-sections: 1; +sections: 1; moves: [0, 0]->[0, 1])"
      ])
  }

  @Test func aLabelBetweenItsNeighbours() {
    // snippet cc-order-labels: Sources/CollectionController/Relation/OrderLabels.swift
    let labels = _OrderLabels.Neighbourhood(count: 3) { [100, 0, 200][$0] }
    let label = labels.between(around: 1)  // 150: between its neighbours' 100 and 200
    // end snippet
    #expect(label == 150)
  }
}
