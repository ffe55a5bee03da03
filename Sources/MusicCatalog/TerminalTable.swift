import CollectionController

/// One row as the table drew it: the album, and the values shown of it at the time.
struct Row: Equatable, CustomStringConvertible {
  let album: Album
  let title: String
  let year: Int
  let seconds: Int
  let isLive: Bool

  init(_ album: Album) {
    self.album = album
    title = album.title
    year = album.year
    seconds = album.duration
    isLive = album.isLive
  }

  /// The same album, drawn with the same values.
  static func == (lhs: Row, rhs: Row) -> Bool {
    lhs.album === rhs.album && lhs.title == rhs.title && lhs.year == rhs.year
      && lhs.seconds == rhs.seconds && lhs.isLive == rhs.isLive
  }

  /// `Title (1977, 14:54, live)`, for messages.
  var description: String {
    "\(title) (\(year), \(formatDuration(seconds))\(isLive ? ", live" : ""))"
  }

  /// What this drawing showed that `new` no longer shows: `year was 1977`.
  func differences(to new: Row) -> [String] {
    var result: [String] = []
    if title != new.title { result.append("title was \"\(title)\"") }
    if year != new.year { result.append("year was \(year)") }
    if seconds != new.seconds { result.append("length was \(formatDuration(seconds))") }
    if isLive != new.isLive { result.append(isLive ? "was live" : "was studio") }
    return result
  }
}

/// A stand-in for a table view: rows in sections, changed only by applying change sets, the way
/// `performBatchUpdates` changes a UITableView.
///
/// Section headers are read from the controller after each change set, as a table view asks
/// its data source for titles; the rows come only from the change sets.
struct TerminalTable {
  enum Mark: Character {
    case inserted = "+"
    case moved = "↕"
    case updated = "~"
  }

  private(set) var headers: [String]
  private(set) var rows: [[Row]]
  /// What the last change set did to each row it touched (cleared by `clearMarks()`).
  private(set) var marks: [ObjectIdentifier: Mark] = [:]

  init(headers: [String], rows: [[Row]]) {
    self.headers = headers
    self.rows = rows
  }

  /// The number of rows in all sections.
  var count: Int { rows.reduce(0) { $0 + $1.count } }

  /// The row numbered `number` (1-based, counting through all sections), as `draw` numbers it.
  func row(numbered number: Int) -> Row? {
    guard number >= 1 else { return nil }
    var rest = number - 1
    for section in rows {
      if rest < section.count { return section[rest] }
      rest -= section.count
    }
    return nil
  }

  /// Applies `changes` to the rows, then takes the headers the data source gives now.
  mutating func apply(_ changes: RelationChangeSet<Album>, headers newHeaders: [String]) {
    changes.apply(to: &rows) { Row($0) }
    headers = newHeaders
    marks = [:]
    func mark(_ albums: [Album], _ mark: Mark) {
      for album in albums { marks[ObjectIdentifier(album)] = mark }
    }
    mark(changes.updatedElements, .updated)
    mark(changes.movedElements, .moved)
    mark(changes.insertedElements, .inserted)
    mark(changes.insertedSectionElements.flatMap { $0 }, .inserted)
  }

  mutating func clearMarks() { marks = [:] }

  /// The list by section: a header line per section (none for a list without sections), then
  /// numbered rows, marked `+` inserted, `↕` moved, `~` updated by the last change set.
  func draw() -> [String] {
    guard count > 0 else { return ["    (no albums)"] }
    var lines: [String] = []
    var number = 0
    for (header, section) in zip(headers, rows) {
      if !header.isEmpty { lines.append("  \(header)") }
      for row in section {
        number += 1
        let mark = marks[ObjectIdentifier(row.album)].map { $0.rawValue } ?? " "
        let live = row.isLive ? "  live" : ""
        lines.append(
          "  \(pad(String(number), 4, alignedRight: true)) \(mark) \(pad(row.title, 30)) "
            + "\(row.year)  \(pad(formatDuration(row.seconds), 5, alignedRight: true))\(live)")
      }
    }
    return lines
  }
}

/// Pads `text` with spaces to `width` characters, after it (or before it, to align it right).
func pad(_ text: String, _ width: Int, alignedRight: Bool = false) -> String {
  let padding = String(repeating: " ", count: max(0, width - text.count))
  return alignedRight ? padding + text : text + padding
}
