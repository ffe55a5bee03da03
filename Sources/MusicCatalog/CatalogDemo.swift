import Binding
import CollectionController
import Foundation

/// The demo: MZRelationalCollectionController's example app (a music catalog of artists,
/// albums and tracks) in the terminal.
///
/// One artist's albums are shown through a relation controller: studio albums only, sorted by
/// year, in sections by decade. Each step edits the models; the list receives the controller's
/// change set, prints it as a table view applies it, applies it, and is redrawn.
///
/// ```swift
/// let demo = try CatalogDemo(output: { print($0) })
/// let fitted = try demo.runScript()  // scripted edits; `runInteractive` reads commands
/// ```
public final class CatalogDemo {
  let catalog: Catalog
  let artist: Artist
  let byDecade: AlbumList<Decade>
  var byLength: AlbumList<Unsectioned>?
  private let output: (String) -> Void
  private(set) var stepCount = 0
  /// The change sets each list received, by list name (also of lists no longer on screen).
  private(set) var changeSetCounts: [String: Int] = [:]
  /// Change sets that did not fit their list, described.
  private(set) var mismatches: [String] = []

  /// Creates the catalog and the main list.
  ///
  /// - Parameter output: Writes one line of the transcript.
  /// - Throws: `RelationConfigurationError` if the controller cannot be created (not with the
  ///   sample catalog, whose artist has not announced its deletion).
  public init(output: @escaping (String) -> Void) throws {
    self.output = output
    catalog = Catalog.sample()
    artist = catalog.artists[0]
    let controller = try RelationController(
      \.albums, of: artist,
      filter: .matching { !$0.isLive },
      sortedBy: [SortDescriptor(\.year)],
      sectionedBy: { $0.decade },
      observing: [\.title, \.year, \.duration, \.isLive])
    byDecade = AlbumList("byDecade", controller)
  }

  /// The code of `init` that creates the controller, as the transcript shows it.
  static let controllerCode = [
    "let byDecade = try RelationController(",
    "  \\.albums, of: artist,",
    "  filter: .matching { !$0.isLive },",
    "  sortedBy: [SortDescriptor(\\.year)],",
    "  sectionedBy: { $0.decade },",
    "  observing: [\\.title, \\.year, \\.duration, \\.isLive])",
  ]

  /// Every list that is on screen.
  var lists: [any Listing] { [byDecade] + (byLength.map { [$0] } ?? []) }

  /// Whether every change set so far, applied to its list, gave the controller's content.
  public var allChangeSetsFit: Bool { mismatches.isEmpty }

  // MARK: - Transcript

  func write(_ line: String = "") { output(line) }

  func heading(_ text: String) {
    write()
    write("== \(text) ==")
  }

  /// Prints a numbered heading, runs `body` (which returns what it did, one line each), then
  /// what each list received and, for a list that changed, the list redrawn.
  func step(_ title: String, _ body: () throws -> [String]) rethrows {
    stepCount += 1
    heading("\(stepCount). \(title)")
    for line in try body() { write("  \(line)") }
    report()
  }

  /// Makes `edits`, several in one `coalesce` block, and returns what they did.
  func perform(_ edits: [Edit]) -> [String] {
    guard edits.count > 1 else { return edits.map { $0.perform(on: artist) } }
    let done = coalesce { edits.map { $0.perform(on: artist) } }
    return ["coalesce {"] + done.map { "  \($0)" } + ["}"]
  }

  /// Prints the change sets each list received since the last report, and redraws the lists
  /// that received any.
  func report() {
    for list in lists {
      let changeSets = list.takeChanges()
      write()
      guard !changeSets.isEmpty else {
        if list.wasDrawn {
          write("\(list.name): no change set")
        } else {
          write("\(list.name): new; a controller does not report its first content, it is read:")
          write()
          for line in list.draw() { write(line) }
        }
        continue
      }
      changeSetCounts[list.name, default: 0] += changeSets.count
      let count = changeSets.count == 1 ? "1 change set" : "\(changeSets.count) change sets"
      write("\(list.name): \(count), as a table view applies it:")
      for (index, lines) in changeSets.enumerated() {
        if index > 0 { write("  --") }
        for line in lines { write("  \(line)") }
      }
      for mismatch in list.takeMismatches() {
        mismatches.append(mismatch)
        write("  MISMATCH: \(mismatch)")
      }
      write()
      for line in list.draw() { write(line) }
    }
  }

  func introduction() {
    write("music-catalog: a relation controller over one artist's albums, in the terminal")
    write()
    let artists = catalog.artists.map { "\($0.name) (\($0.albums.count) albums)" }
    write("The catalog has \(catalog.artists.count) artists: \(artists.joined(separator: ", ")).")
    write("The list shows the studio albums of \(artist.name) (live albums are filtered")
    write("out), sorted by year, in sections by decade:")
    write()
    for line in Self.controllerCode { write("  \(line)") }
    write()
    write("Each step edits the models, never the list. The controller hands the list one change")
    write("set per transaction, printed in the order a table view applies it: deletions at old")
    write("positions [section, row], insertions at new ones, moves old → new, reloads at old")
    write("positions. The list applies it as performBatchUpdates would, checks that it now shows")
    write("what the controller shows, and is redrawn: + inserted, ↕ moved, ~ reloaded.")
  }

  // MARK: - The script

  /// Runs the scripted edits, printing each step.
  ///
  /// - Returns: Whether every change set fitted its list.
  /// - Throws: `RelationConfigurationError` if a controller cannot be created or reconfigured
  ///   (the script's configurations are valid, so it does not).
  @discardableResult
  public func runScript() throws -> Bool {
    introduction()
    heading("\(artist.name): studio albums by decade")
    write()
    for line in byDecade.draw() { write(line) }

    step("Rename an album: its row is reloaded in place") {
      perform([.rename(album("Paper Lanterns"), to: "Paper Lanterns (Remastered)")])
    }
    step("Correct a release year: the album moves, here into the next decade") {
      perform([.setYear(album("Salt & Signal"), 1980)])
    }
    step("Mark an album live: the filter drops it") {
      perform([.setLive(album("Semaphore"), true)])
    }
    step("Add an album from a new decade: a new section") {
      perform([.add(title: "Tidewater", year: 2003)])
    }
    step("Remove the last album of its decade: its section goes") {
      perform([.remove(album("Low Tide"))])
    }
    step("Four edits in one coalesce block: one change set") {
      perform([
        .rename(album("Undertow"), to: "Undertow (Deluxe Edition)"),
        .setYear(album("Night Ferry"), 1995),
        .add(title: "Lighthouse", year: 2006),
        .setLive(album("Breakwater"), true),
      ])
    }
    try step("A second controller over the same albums: the longest first, no sections") {
      byLength = try lengthList()
      return Self.lengthCode
    }
    step("A track gets longer: the album moves up the list by length") {
      let album = album("Paper Lanterns (Remastered)")
      let track = album.tracks[album.tracks.count - 1]
      return perform([.setLength(of: track, in: album, seconds: 868)])
    }
    step("Replace the whole array: the change set is diffed by identity") {
      byLength = nil
      let old = artist.albums
      let dropped = album("Paper Lanterns (Remastered)")
      let added = [
        Album("Low Tide (2024 Remaster)", year: 1974, tracks: [Track("Low Tide", seconds: 262)]),
        Album("Anthology", year: 1999, tracks: [Track("Night Ferry", seconds: 334)]),
      ]
      artist.albums = old.filter { $0 !== dropped } + added
      return [
        "byLength = nil  // releasing a controller ends its observation",
        "artist.albums = albums  // a new array of \(artist.albums.count) albums:",
        "//   without \"\(dropped.title)\"",
        "//   with " + added.map { "\"\($0.title)\" (\($0.year))" }.joined(separator: " and "),
      ]
    }
    try step("Reconfigure: live albums too, sorted by title") {
      try byDecade.controller.reconfigure { configuration in
        configuration.filter = nil
        configuration.sortedBy = [SortDescriptor(\.title)]
      }
      return [
        "try byDecade.reconfigure {",
        "  $0.filter = nil",
        "  $0.sortedBy = [SortDescriptor(\\.title)]",
        "}",
      ]
    }
    finish()
    return allChangeSetsFit
  }

  /// The code of `lengthList()`, as the transcript shows it.
  static let lengthCode = [
    "let byLength = try RelationController(",
    "  \\.albums, of: artist,",
    "  filter: .matching { !$0.isLive },",
    "  sortedBy: [KeyPathComparator(\\.duration, order: .reverse)],",
    "  observing: [\\.title, \\.year, \\.duration, \\.isLive])",
    "// duration sums the tracks' lengths: the controller follows what it reads",
  ]

  func lengthList() throws -> AlbumList<Unsectioned> {
    AlbumList(
      "byLength",
      try RelationController(
        \.albums, of: artist,
        filter: .matching { !$0.isLive },
        sortedBy: [KeyPathComparator(\.duration, order: .reverse)],
        observing: [\.title, \.year, \.duration, \.isLive]))
  }

  /// The artist's album titled `title` (the script names albums of the sample catalog).
  func album(_ title: String) -> Album {
    guard let album = artist.albums.first(where: { $0.title == title }) else {
      preconditionFailure("the demo's script names an album the catalog lacks: \(title)")
    }
    return album
  }

  func finish() {
    let counts = changeSetCounts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
    heading("Done")
    write("\(stepCount) steps; change sets received: \(counts.joined(separator: ", ")).")
    if allChangeSetsFit {
      write("Each change set, applied as a table view applies it, gave the controller's content.")
    } else {
      write("Some change sets did not fit their list (see MISMATCH above).")
    }
    write("Run `swift run music-catalog --interactive` to make your own edits.")
  }
}

/// A list on screen, whatever its section key.
protocol Listing: AnyObject {
  var name: String { get }
  var wasDrawn: Bool { get }
  func takeChanges() -> [[String]]
  func takeMismatches() -> [String]
  func draw() -> [String]
}

extension AlbumList: Listing {}
