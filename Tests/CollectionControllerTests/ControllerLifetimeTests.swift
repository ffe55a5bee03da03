import Binding
import CollectionController
import Foundation
import TestSupport
import Testing

/// What relation controllers and dependency trackers keep alive, and for how long: they retain
/// neither the owner of the relation nor their dependencies, end all observation when dropped,
/// and release what they were given (closures and their captures) when they go.
@Suite struct ControllerLifetimeTests {}

/// A delegate that counts what it hears and is counted itself.
private final class CountingDelegate: RelationControllerDelegate {
  let lease: LifetimeTracker.Lease
  var changeSets = 0

  init(_ tracker: LifetimeTracker) { lease = tracker.lease() }

  func relationController(
    _ controller: RelationController<Album, Int>,
    didChangeContent changes: RelationChangeSet<Album>
  ) {
    changeSets += 1
  }
}

// MARK: - Relation controllers

extension ControllerLifetimeTests {
  /// A dropped controller releases its configuration and its handlers (and so what they
  /// capture), and keeps neither the owner nor the elements alive.
  ///
  /// An earlier design kept them: every element registration read a private "anchor" model of
  /// the controller and left an entry in its slot; the entry held the registration, whose key
  /// path held the probe, which held the anchor. Nothing wrote the anchor once the controller
  /// was gone, so that cycle (with the configuration's closures) was never freed.
  @Test func aDroppedControllerReleasesWhatItWasGiven() throws {
    try withLifetimeTracking { tracker in
      var models = WeakObjects<AnyObject>()
      weak var weakController: RelationController<Album, Int>?
      do {
        let artist = Artist(makeAlbums([("a", 1981), ("b", 1995), ("c", 1990)]))
        models.append(artist)
        models.append(contentsOf: artist.albums)
        let filtering = Payload(tracker)
        let sectioning = Payload(tracker)
        let handling = Payload(tracker)
        let controller = try RelationController(
          \.albums, of: artist,
          filter: .matching { album in
            filtering.use()
            return !album.isLive
          },
          sortedBy: [SortDescriptor(\.year)],
          sectionedBy: { album in
            sectioning.use()
            return album.decade
          },
          observing: [\.title])
        let token = controller.onChange { _ in handling.use() }
        let stream = controller.changes  // never iterated
        artist.albums[0].year = 1999
        artist.insert(Album("d", year: 2001), at: 0, into: \.albums)
        #expect(handling.uses == 2)
        #expect(filtering.uses > 0 && sectioning.uses > 0)
        _ = stream
        _ = token  // released with the controller: the handler's captures go too
        weakController = controller
      }
      #expect(weakController == nil)
      #expect(models.alive == 0, "the owner or an element outlived the controller")
    }
  }

  @Test func theDelegateIsHeldWeakly() throws {
    let tracker = LifetimeTracker()
    let artist = Artist(makeAlbums([("a", 1981)]))
    let controller = try RelationController(\.albums, of: artist, sectionedBy: { $0.decade })
    do {
      let delegate = CountingDelegate(tracker)
      controller.delegate = delegate
      artist.albums[0].year = 1991
      #expect(delegate.changeSets == 1)
    }
    #expect(tracker.live == 0)
    #expect(controller.delegate == nil)
    artist.albums[0].year = 2001  // delivers to nobody
    #expect(controller.sections.map(\.key) == [2000])
  }

  @Test func droppingTheControllerEndsAllObservationWhileTheModelsLive() async throws {
    let artist = Artist(makeAlbums([("a", 1981), ("b", 1995), ("c", 1990)]))
    var evaluations = 0
    var handled = 0
    let tracker = LifetimeTracker()
    let delegate = CountingDelegate(tracker)
    weak var weakController: RelationController<Album, Int>?
    var stream: RelationChangeSequence<Album>?
    do {
      let controller = try RelationController(
        \.albums, of: artist,
        filter: .matching { album in
          evaluations += 1
          return album.year > Int.min
        },
        sectionedBy: { $0.decade }, observing: [\.title])
      let token = controller.onChange { _ in handled += 1 }
      controller.delegate = delegate
      stream = controller.changes
      artist.albums[0].title = "x"
      #expect(handled == 1 && delegate.changeSets == 1)
      _ = token
      weakController = controller
    }
    #expect(weakController == nil)
    let before = evaluations
    artist.albums[0].year = 2001
    artist.albums[1].title = "y"
    artist.albums.append(Album("d", year: 1970))
    artist.remove(at: 0, from: \.albums)
    artist.albums[0].announceDeletion()
    coalesce { artist.albums[1].year = 1950 }
    #expect(evaluations == before)
    #expect(handled == 1)
    #expect(delegate.changeSets == 1)
    // The change stream holds the one change set made while the controller lived, then ends.
    var iterator = try #require(stream).makeAsyncIterator()
    #expect(await iterator.next()?.updatedRows.count == 1)
    #expect(await iterator.next() == nil)
    // The elements are not kept alive by anything the controller left behind.
    var albums = WeakObjects<Album>()
    albums.append(contentsOf: artist.albums)
    artist.albums = []
    #expect(albums.count == 3)
    #expect(albums.alive == 0)
  }

  /// However an element leaves the relation, the controller stops observing it and lets it go
  /// (an array controller and a set controller over the same albums).
  @Test(arguments: ["remove", "replace", "assign", "delete", "set remove"])
  func anElementThatLeavesTheRelationIsNeitherObservedNorRetained(_ way: String) throws {
    let artist = Artist(makeAlbums([("a", 1981), ("b", 1995), ("c", 1990)]))
    artist.albumSet = Set(artist.albums)
    var evaluated: [String] = []
    let list = try RelationController(
      \.albums, of: artist,
      filter: .matching { album in
        evaluated.append("list \(album.name)")
        return album.year > Int.min
      },
      sortedBy: [SortDescriptor(\.year)], observing: [\.title])
    let set = try RelationController(
      \.albumSet, of: artist,
      filter: .matching { album in
        evaluated.append("set \(album.name)")
        return album.year > Int.min
      },
      sortedBy: [SortDescriptor(\.year)], observing: [\.title])
    // Counts, not a `ChangeLog`: a log keeps every change set, and so the elements they name.
    var listChanges = 0
    var setChanges = 0
    let listToken = list.onChange { _ in listChanges += 1 }
    let setToken = set.onChange { _ in setChanges += 1 }
    defer {
      listToken.cancel()
      setToken.cancel()
    }
    let leavesList = way != "set remove"
    let leavesSet = way == "set remove" || way == "delete"
    weak var leaving: Album?
    do {
      let album = artist.albums[1]  // "b"
      leaving = album
      switch way {
      case "remove": artist.remove(at: 1, from: \.albums)
      case "replace": artist.apply(.replace(at: 1, with: Album("z", year: 1999)), to: \.albums)
      case "assign": artist.albums = [artist.albums[0], artist.albums[2]]
      case "delete": album.announceDeletion()
      default: artist.remove(album, from: \.albumSet)
      }
      #expect((list.position(of: album) == nil) == leavesList)
      #expect((set.position(of: album) == nil) == leavesSet)
      evaluated = []
      let changeSets = (list: listChanges, set: setChanges)
      album.year = 1900  // moves it to the front where it is still shown
      album.title = "changed"
      #expect(evaluated.contains("list b") == !leavesList)
      #expect(evaluated.contains("set b") == !leavesSet)
      #expect((listChanges == changeSets.list) == leavesList)
      #expect((setChanges == changeSets.set) == leavesSet)
      // Let go of it everywhere else.
      artist.albums.removeAll { $0 === album }
      artist.albumSet.remove(album)
    }
    #expect(leaving == nil, "a controller kept an element that left the relation")
    #expect(list.count == (way == "replace" ? 3 : 2) && set.count == 2)
  }

  /// The owner of the relation dies first: the controller keeps its content (its elements,
  /// which it retains) and reports nothing more about the relation; dropping it then lets the
  /// elements go.
  @Test func theOwnerOfTheRelationDiesFirst() throws {
    var albums = WeakObjects<Album>()
    weak var weakOwner: Artist?
    var controller: RelationController<Album, Int>?
    var changeSets = 0
    var token: ObservationToken?
    do {
      let artist = Artist(makeAlbums([("a", 1981), ("b", 1995)]))
      weakOwner = artist
      albums.append(contentsOf: artist.albums)
      controller = try RelationController(\.albums, of: artist, sectionedBy: { $0.decade })
      token = controller?.onChange { _ in changeSets += 1 }
    }
    #expect(weakOwner == nil)
    #expect(controller?.names() == [["a"], ["b"]])
    #expect(changeSets == 0)
    withExtendedLifetime(controller) {  // release builds would end it after its last use
      #expect(albums.alive == 2, "the controller retains its elements")
    }
    token?.cancel()  // its last handles: the token, then the controller
    controller = nil
    #expect(albums.alive == 0)
  }

  /// The object that holds a controller (a view model) dies: the controller goes with it and
  /// the handler's captures are released.
  @Test func theObjectHoldingAControllerDies() throws {
    final class AlbumList {
      let albums: RelationController<Album, Unsectioned>
      let lease: LifetimeTracker.Lease
      var titles: [String] = []
      var token: ObservationToken?

      init(_ artist: Artist, tracker: LifetimeTracker) throws {
        lease = tracker.lease()
        albums = try RelationController(\.albums, of: artist, sortedBy: [SortDescriptor(\.year)])
        token = albums.onChange { [unowned self] _ in titles = albums.objects.map(\.name) }
      }
    }
    let artist = Artist(makeAlbums([("a", 1981), ("b", 1995)]))
    try withLifetimeTracking { tracker in
      weak var weakController: RelationController<Album, Unsectioned>?
      do {
        let list = try AlbumList(artist, tracker: tracker)
        weakController = list.albums
        artist.albums[0].year = 2000
        #expect(list.titles == ["b", "a"])
      }
      #expect(weakController == nil)
    }
    artist.albums[0].year = 1900  // nobody hears it, nothing crashes
    #expect(artist.albums.map(\.year) == [1900, 1995])
  }
}

extension ControllerLifetimeTests {
  /// No change set follows the owner's deallocation, as the documentation says: the content
  /// stays as it was and its elements stop being observed (issue 13, item 10: an element renamed
  /// after the owner was released still delivered an update).
  @Test func noChangeSetFollowsTheOwnersDeallocation() throws {
    let album = Album("a", year: 1981)
    let other = Album("b", year: 1995)
    var controller: RelationController<Album, Int>?
    var changeSets = 0
    var token: ObservationToken?
    do {
      let artist = Artist([album, other])
      controller = try RelationController(
        \.albums, of: artist, sortedBy: [SortDescriptor(\.year)], sectionedBy: { $0.decade },
        observing: [\.title], delivery: .synchronous)
      token = controller?.onChange { _ in changeSets += 1 }
      album.title = "heard"  // while the owner lives: an update
      #expect(changeSets == 1)
    }
    album.title = "renamed"  // an observed attribute
    album.year = 2001  // a sort and section key
    other.announceDeletion()
    #expect(changeSets == 1, "a change set followed the owner's deallocation")
    #expect(controller?.names() == [["a"], ["b"]])
    token?.cancel()
    controller = nil
  }
}

// MARK: - Handles keep the controller working

extension ControllerLifetimeTests {
  /// A controller kept by nothing but its `onChange` token still delivers; cancelling (or
  /// releasing) the token, its last handle, ends it.
  @Test func aKeptTokenKeepsItsControllerWorking() throws {
    let artist = Artist(makeAlbums([("a", 1981), ("b", 1995)]))
    weak var weakController: RelationController<Album, Int>?
    var heard: [Int] = []
    var token: ObservationToken?
    do {
      let controller = try RelationController(
        \.albums, of: artist, sortedBy: [SortDescriptor(\.year)], sectionedBy: { $0.decade },
        delivery: .synchronous)
      token = controller.onChange { [unowned controller] _ in heard.append(controller.count) }
      weakController = controller
    }
    #expect(weakController != nil)
    artist.albums.append(Album("c", year: 2001))
    #expect(heard == [3])
    token?.cancel()
    #expect(weakController == nil)
    artist.albums.append(Album("d", year: 2011))
    #expect(heard == [3])
    token = nil
  }

  /// A released token lets go of its controller too.
  @Test func releasingTheLastTokenEndsTheController() throws {
    let artist = Artist(makeAlbums([("a", 1981)]))
    weak var weakController: RelationController<Album, Int>?
    var token: ObservationToken?
    do {
      let controller = try RelationController(\.albums, of: artist, sectionedBy: { $0.decade })
      token = controller.onChange { _ in }
      weakController = controller
    }
    #expect(weakController != nil && token?.isActive == true)
    token = nil
    #expect(weakController == nil)
  }

  /// A running `for await` over `changes` keeps the controller working; a sequence nobody
  /// iterates keeps nothing alive.
  @Test func aRunningIterationKeepsItsControllerWorking() async throws {
    let artist = Artist(makeAlbums([("a", 1981)]))
    weak var weakController: RelationController<Album, Int>?
    var iterator: RelationChangeSequence<Album>.AsyncIterator?
    var idle: RelationChangeSequence<Album>?
    do {
      let controller = try RelationController(
        \.albums, of: artist, sectionedBy: { $0.decade }, delivery: .synchronous)
      iterator = controller.changes.makeAsyncIterator()
      idle = controller.changes
      weakController = controller
    }
    #expect(weakController != nil)
    artist.albums.append(Album("b", year: 1985))
    let changes = await iterator?.next()
    #expect(changes?.insertedRows.count == 1)
    iterator = nil
    #expect(weakController == nil)
    _ = idle
  }
}
