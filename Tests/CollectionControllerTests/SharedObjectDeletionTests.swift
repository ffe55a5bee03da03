import Binding
import Foundation
import Testing

@testable import CollectionController

/// The deletion of an object that many elements read (a label their sort or filter reads, an
/// owner its elements read) is one transaction, as a write of it is: each controller delivers
/// one change set for it.
@Suite struct SharedObjectDeletionTests {}

extension SharedObjectDeletionTests {
  /// A bookcase of books, whose books may sort by a bookcase (their own or another).
  final class Bookcase: ObservableModel {
    let observation = ObservationStorage()
    @Observed var name: String
    @Observed var books: [Book] = []

    init(_ name: String) { self.name = name }
  }

  /// A book that sorts by the name of a bookcase it reads (held weakly: a bookcase holds its books).
  final class Book: ObservableModel, CustomStringConvertible {
    let observation = ObservationStorage()
    let title: String
    /// Not `@Observed`: what the sort reads of it is the bookcase's name.
    weak var sortsBy: Bookcase?
    @Observed var rank: Int

    init(_ title: String, rank: Int = 0, sortsBy: Bookcase? = nil) {
      self.title = title
      self.rank = rank
      self.sortsBy = sortsBy
    }

    /// The bookcase's name, or `""` once the bookcase announced its deletion (read either way, so that
    /// a controller watches the bookcase).
    var bookcaseName: String {
      guard let bookcase = sortsBy else { return "" }
      let name = bookcase.name
      return bookcase.isDeleted ? "" : name
    }

    var description: String { title }
  }

  /// The owner of a relation of bookcases.
  final class Library: ObservableModel {
    let observation = ObservationStorage()
    @Observed var bookcases: [Bookcase]

    init(_ bookcases: [Bookcase]) { self.bookcases = bookcases }
  }
}

extension SharedObjectDeletionTests {
  /// Forty albums of one label and ten of another, in year order.
  static func albums(of shared: Label) -> Artist {
    let other = Label("K")
    return Artist(
      (0..<50).map { index in
        Album("\(index)", year: index, label: index % 5 == 0 ? other : shared)
      })
  }

  @Test func deletingALabelThatFortyElementsSortByIsOneChangeSet() throws {
    let shared = Label("M")
    let artist = Self.albums(of: shared)
    let albums = try RelationController(
      \.albums, of: artist,
      sortedBy: [SortDescriptor(\.liveLabelName), SortDescriptor(\.year)])
    let log = ChangeLog(albums)
    #expect(albums.objects.prefix(10).allSatisfy { $0.label !== shared })
    shared.announceDeletion()  // outside `coalesce`: the forty move before the ten, at once
    #expect(log.count == 1)
    #expect(albums.objects.prefix(40).allSatisfy { $0.label === shared })
    let otherYears = Array(stride(from: 0, to: 50, by: 5))
    #expect(albums.objects.map(\.year) == (0..<50).filter { $0 % 5 != 0 } + otherYears)
    // A rename of the other label, which ten elements read, is one change set too: the rule
    // the deletion keeps.
    let other = try #require(artist.albums[0].label)
    other.name = ""
    #expect(log.count == 2)
    #expect(albums.objects.map(\.year) == Array(0..<50))
    #expect(log.failures.isEmpty, "\(log.failures)")
  }

  @Test func deletingALabelThatFortyElementsFilterOnIsOneChangeSet() throws {
    let shared = Label("M")
    let artist = Self.albums(of: shared)
    let albums = try RelationController(
      \.albums, of: artist, filter: .matching { !$0.liveLabelName.isEmpty },
      sortedBy: [SortDescriptor(\.year)])
    let log = ChangeLog(albums)
    #expect(albums.count == 50)
    shared.announceDeletion()
    #expect(log.count == 1)
    #expect(log.last?.deletedRows.count == 40)
    #expect(albums.objects.map(\.year) == Array(stride(from: 0, to: 50, by: 5)))
    #expect(log.failures.isEmpty, "\(log.failures)")
  }

  @Test func deletingALabelReadByTwoControllersIsOneChangeSetEach() throws {
    let shared = Label("M")
    let artist = Self.albums(of: shared)
    let sorted = try RelationController(
      \.albums, of: artist,
      sortedBy: [SortDescriptor(\.liveLabelName), SortDescriptor(\.year)])
    let filtered = try RelationController(
      \.albums, of: artist, filter: .matching { !$0.liveLabelName.isEmpty },
      sectionedBy: { $0.decade })
    let sortedLog = ChangeLog(sorted)
    let filteredLog = ChangeLog(filtered)
    shared.announceDeletion()
    #expect(sortedLog.count == 1)
    #expect(filteredLog.count == 1)
    #expect(filtered.count == 10)
    #expect(sortedLog.failures.isEmpty, "\(sortedLog.failures)")
    #expect(filteredLog.failures.isEmpty, "\(filteredLog.failures)")
  }

  @Test func deletingAnOwnerThatElementsReadIsOneChangeSetPerController() throws {
    let bookcase = Bookcase("S")
    let borrowed = Bookcase("B")
    // The bookcase's own books sort by it; so do thirty books on another bookcase, among ten that
    // sort by nothing.
    bookcase.books = (0..<40).map { Book("s\($0)", rank: $0) }
    for book in bookcase.books { book.sortsBy = bookcase }
    borrowed.books = (0..<40).map { Book("b\($0)", rank: $0, sortsBy: $0 < 10 ? nil : bookcase) }
    let own = try RelationController(
      \.books, of: bookcase, sortedBy: [SortDescriptor(\.bookcaseName), SortDescriptor(\.rank)])
    let others = try RelationController(
      \.books, of: borrowed,
      sortedBy: [SortDescriptor(\.bookcaseName, order: .reverse), SortDescriptor(\.rank)])
    let ownLog = ChangeLog(own)
    let othersLog = ChangeLog(others)
    #expect(others.objects.first?.title == "b10")
    bookcase.announceDeletion()
    #expect(own.isEmpty)
    #expect(ownLog.count == 1)
    #expect(othersLog.count == 1)
    #expect(others.objects.map(\.title) == (0..<40).map { "b\($0)" })
    #expect(ownLog.failures.isEmpty, "\(ownLog.failures)")
    #expect(othersLog.failures.isEmpty, "\(othersLog.failures)")
  }

  @Test func deletingAnElementThatOtherElementsReadIsOneChangeSet() throws {
    // A bookcase's books sort by the name of another bookcase, which is itself an element of another
    // controller: its deletion leaves that controller and re-sorts this one.
    let bookcases = (0..<3).map { Bookcase("s\($0)") }
    let library = Library(bookcases)
    let deleted = bookcases[1]
    let bookcase = Bookcase("own")
    bookcase.books = (0..<30).map { Book("b\($0)", rank: $0, sortsBy: $0 % 3 == 0 ? nil : deleted) }
    let byName = try RelationController(
      \.bookcases, of: library, sortedBy: [SortDescriptor(\.name)])
    let books = try RelationController(
      \.books, of: bookcase, sortedBy: [SortDescriptor(\.bookcaseName), SortDescriptor(\.rank)])
    let bookcasesLog = ChangeLog(byName)
    let booksLog = ChangeLog(books)
    deleted.announceDeletion()
    #expect(bookcasesLog.count == 1)
    #expect(bookcasesLog.last?.deletedRows == [RowPosition(section: 0, row: 1)])
    #expect(booksLog.count == 1)
    #expect(books.objects.map(\.rank) == Array(0..<30))
    #expect(bookcasesLog.failures.isEmpty, "\(bookcasesLog.failures)")
    #expect(booksLog.failures.isEmpty, "\(booksLog.failures)")
  }

  /// A deletion is not a change (issue 31, item 4): the deletion of an object that the
  /// elements' sort and observed attribute read, but whose values they read stay the same,
  /// neither moves nor updates them; an element's own deletion is a row deletion only. (With
  /// no filter, kept sort keys and one section, the controller compares what the elements show
  /// by value; a filter closure, which it cannot look into, makes every event of an element
  /// an update: see `RelationUpdates`.)
  @Test func aDeletionThatChangesNothingReadIsNoUpdate() throws {
    let shared = Label("M")
    let artist = Self.albums(of: shared)
    let albums = try RelationController(
      \.albums, of: artist,
      sortedBy: [SortDescriptor(\.labelName), SortDescriptor(\.year)],
      observing: [\.labelName])
    let log = ChangeLog(albums)
    shared.announceDeletion()
    #expect(log.count == 0, "\(log.changes)")
    artist.albums[3].announceDeletion()
    #expect(log.count == 1)
    #expect(log.last?.deletedRows.count == 1)
    #expect(log.last?.updatedRows.isEmpty == true)
    #expect(log.last?.movedRows.isEmpty == true)
    #expect(log.failures.isEmpty, "\(log.failures)")
  }

  @Test func aDeletionInsideABlockIsStillOneChangeSet() throws {
    let shared = Label("M")
    let artist = Self.albums(of: shared)
    let albums = try RelationController(
      \.albums, of: artist,
      sortedBy: [SortDescriptor(\.liveLabelName), SortDescriptor(\.year)])
    let log = ChangeLog(albums)
    coalesce {
      shared.announceDeletion()
      artist.albums[0].year = 100
    }
    #expect(log.count == 1)
    #expect(albums.objects.last?.year == 100)
    #expect(log.failures.isEmpty, "\(log.failures)")
  }

  @Test func whatADeletionsObserversWriteJoinsItsChangeSet() throws {
    // A store's cascade: an observer of the label's deletion deletes and edits albums; the
    // controller delivers the whole of it as one change set.
    let shared = Label("M")
    let artist = Self.albums(of: shared)
    let albums = try RelationController(
      \.albums, of: artist,
      sortedBy: [SortDescriptor(\.liveLabelName), SortDescriptor(\.year)])
    let log = ChangeLog(albums)
    let cascade = shared.observeEvents(delivery: .synchronous) { event in
      guard event.isDeletion else { return }
      artist.albums[1].announceDeletion()
      artist.albums[2].year = -1
    }
    shared.announceDeletion()
    #expect(log.count == 1)
    #expect(albums.count == 49)
    #expect(albums.objects.first?.year == -1)
    #expect(log.failures.isEmpty, "\(log.failures)")
    cascade.cancel()
  }
}
