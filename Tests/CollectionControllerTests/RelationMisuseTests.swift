import Binding
import CollectionController
import Foundation
import Testing

/// Programmer errors of relations trap with a message that names the mutation, the index and
/// the valid range, as `Array` does (exit tests run in a child process).
@Suite struct RelationMisuseTests {}

extension RelationMisuseTests {
  /// Every kind of fine-grained mutation, each index it takes, below and above its range, on a
  /// relation that a controller shows (the trap comes before anything is written).
  @Test(arguments: [
    ("insert", "RelationMutation.insert: index 3 is out of range 0...2"),
    ("insert below", "RelationMutation.insert: index -1 is out of range 0...2"),
    ("insert(_:at:into:)", "RelationMutation.insert: index 3 is out of range 0...2"),
    ("remove", "RelationMutation.remove: index 2 is out of range 0..<2"),
    ("remove below", "RelationMutation.remove: index -1 is out of range 0..<2"),
    ("remove(at:from:)", "RelationMutation.remove: index 2 is out of range 0..<2"),
    ("replace", "RelationMutation.replace: index 2 is out of range 0..<2"),
    ("replace below", "RelationMutation.replace: index -1 is out of range 0..<2"),
    ("move from", "RelationMutation.move: source index 2 is out of range 0..<2"),
    ("move to", "RelationMutation.move: destination index 2 is out of range 0..<2"),
    ("move to below", "RelationMutation.move: destination index -1 is out of range 0..<2"),
    ("remove from empty", "RelationMutation.remove: index 0 is out of range 0..<0"),
  ])
  func anOutOfRangeMutationTrapsNamingTheIndexAndTheRange(_ kind: String, _ message: String)
    async throws
  {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      [kind] in
      let artist = Artist([Album("a"), Album("b")])
      let albums = try RelationController(\.albums, of: artist, sortedBy: [SortDescriptor(\.year)])
      switch kind {
      case "insert": artist.apply(.insert(Album("c"), at: 3), to: \.albums)
      case "insert below": artist.apply(.insert(Album("c"), at: -1), to: \.albums)
      case "insert(_:at:into:)": artist.insert(Album("c"), at: 3, into: \.albums)
      case "remove": artist.apply(.remove(at: 2), to: \.albums)
      case "remove below": artist.apply(.remove(at: -1), to: \.albums)
      case "remove(at:from:)": artist.remove(at: 2, from: \.albums)
      case "replace": artist.apply(.replace(at: 2, with: Album("c")), to: \.albums)
      case "replace below": artist.apply(.replace(at: -1, with: Album("c")), to: \.albums)
      case "move from": artist.apply(.move(from: 2, to: 0), to: \.albums)
      case "move to": artist.apply(.move(from: 0, to: 2), to: \.albums)
      case "move to below": artist.apply(.move(from: 0, to: -1), to: \.albums)
      default:
        artist.albums = []
        artist.apply(.remove(at: 0), to: \.albums)
      }
      withExtendedLifetime(albums) {}
    }
    let standardError = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
    #expect(standardError.contains(message), "\(standardError)")
  }

  /// Reading a controller at a position, a section or a row count out of range traps too.
  @Test(arguments: [
    ("object(at:) row", "RelationController: position [0, 2] is out of range"),
    ("object(at:) section", "RelationController: position [2, 0] is out of range"),
    ("section(at:)", "RelationController: section 2 is out of range 0..<2"),
    ("numberOfObjects(inSection:)", "RelationController: section -1 is out of range 0..<2"),
  ])
  func anOutOfRangeReadTrapsNamingIt(_ kind: String, _ message: String) async throws {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      [kind] in
      let artist = Artist([Album("a", year: 1981), Album("b", year: 1995)])
      let albums = try RelationController(\.albums, of: artist, sectionedBy: { $0.decade })
      switch kind {
      case "object(at:) row": _ = albums.object(at: RowPosition(section: 0, row: 2))
      case "object(at:) section": _ = albums.object(at: RowPosition(section: 2, row: 0))
      case "section(at:)": _ = albums.section(at: 2)
      default: _ = albums.numberOfObjects(inSection: -1)
      }
    }
    let standardError = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
    #expect(standardError.contains(message), "\(standardError)")
  }
}

extension RelationMisuseTests {
  /// Applying a change set to sections of another shape traps naming the problem, in every
  /// build configuration.
  @Test func applyingAChangeSetToContentOfAnotherShapeTraps() async throws {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let artist = Artist([Album("a", year: 1), Album("b", year: 2)])
      let albums = try RelationController(\.albums, of: artist, sortedBy: [SortDescriptor(\.year)])
      var changes: [RelationChangeSet<Album>] = []
      let subscription = albums.onChange { changes.append($0) }
      artist.albums[1].year = 0
      var wrongShape: [[String]] = []
      changes[0].apply(to: &wrongShape) { $0.name }
      withExtendedLifetime(subscription) {}
    }
    let standardError = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
    #expect(
      standardError.contains("RelationChangeSet.apply(to:): the change set does not fit"),
      "\(standardError)")
  }
}

// MARK: - Section keys that are not totally ordered

/// A section key that is not equal to itself (a floating-point NaN) cannot be ordered: the
/// controller rejects it with a message instead of giving a change set that does not replay
/// (issue 13, item 5: two NaN keys made two sections, in an order the change set contradicted).
extension RelationMisuseTests {
  /// An element whose section key is a NaN, by way of a year that maps to one.
  static func nanSection(_ album: Album) -> Double {
    album.year < 0 ? .nan : Double(album.decade)
  }

  @Test func aNaNSectionKeyAtCreationThrows() throws {
    let artist = Artist([Album("a", year: 1991), Album("nan", year: -1)])
    #expect(throws: RelationConfigurationError.self) {
      _ = try RelationController(\.albums, of: artist, sectionedBy: Self.nanSection)
    }
    do {
      _ = try RelationController(\.albums, of: artist, sectionedBy: Self.nanSection)
    } catch {
      #expect(error.description.contains("not equal to itself"))
    }
  }

  @Test func aNaNSectionKeyArrivingLaterTrapsWithAMessage() async throws {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let artist = Artist([Album("a", year: 1991), Album("b", year: 1985)])
      let albums = try RelationController(
        \.albums, of: artist, sectionedBy: RelationMisuseTests.nanSection,
        delivery: .synchronous)
      artist.albums[1].year = -1
      _ = albums
    }
    let message = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
    #expect(message.contains("is not equal to itself"))
    #expect(message.contains("section keys must be totally ordered"))
  }
}
