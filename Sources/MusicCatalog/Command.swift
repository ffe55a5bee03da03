import Foundation

/// A command of the interactive mode: `rename 2 New Title`, `year 2 1999`, `help`.
///
/// Row numbers are those the list shows (1-based, counting through all sections).
enum Command: Equatable {
  case rename(row: Int, title: String)
  case year(row: Int, year: Int)
  case live(row: Int)
  case studio(row: Int)
  case add(title: String, year: Int)
  case remove(row: Int)
  case track(row: Int, minutes: Int)
  case sort(SortKey)
  case showLive(Bool)
  case list
  case help
  case quit

  /// What the main list can be sorted by.
  enum SortKey: String, CaseIterable {
    case year, title, length
  }

  /// Whether the command edits the models (only edits can be joined with `;`).
  var isEdit: Bool {
    switch self {
    case .rename, .year, .live, .studio, .add, .remove, .track: true
    case .sort, .showLive, .list, .help, .quit: false
    }
  }

  static let helpText = [
    "Commands (n is a row number as the list shows it):",
    "  rename n Title      rename an album                  (a reload)",
    "  year n 1999         change its release year          (a move, maybe to another section)",
    "  live n              mark it as a live album          (the filter drops it)",
    "  studio n            mark it as a studio album        (see `show live`)",
    "  add Title 1985      add a studio album               (an insert)",
    "  remove n            remove it from the artist        (a delete)",
    "  track n 7           add a 7-minute track to it       (its length changes)",
    "  sort year|title|length    reconfigure the sort (length: longest first)",
    "  show live | hide live     reconfigure the filter",
    "  list                redraw the list",
    "  help                this text",
    "  quit                leave (so does the end of the input)",
    "Join edits with ';' to make them one coalesced transaction, one change set:",
    "  rename 1 Ebb; year 2 2001; live 3",
  ]

  /// Parses one line: no command (an empty line), one command, or edits joined with `;`.
  static func parseLine(_ line: String) throws(CommandError) -> [Command] {
    let parts = line.split(separator: ";", omittingEmptySubsequences: false)
      .map { $0.trimmingCharacters(in: .whitespaces) }
    if parts.count == 1 && parts[0].isEmpty { return [] }
    var commands: [Command] = []
    for part in parts {
      guard !part.isEmpty else { throw CommandError("an empty command between ';'") }
      commands.append(try parse(part))
    }
    if commands.count > 1, let other = commands.first(where: { !$0.isEdit }) {
      throw CommandError("only edits can be joined with ';', not \(other.verb)")
    }
    return commands
  }

  /// The release years the demo accepts (recorded music, give or take).
  static let releaseYears = 1900...2099

  /// Parses one command.
  static func parse(_ text: String) throws(CommandError) -> Command {
    let words = text.split(whereSeparator: \.isWhitespace).map(String.init)
    guard let verb = words.first?.lowercased() else { throw CommandError("no command") }
    let arguments = Array(words.dropFirst())
    func number(_ index: Int, _ what: String, _ usage: String) throws(CommandError) -> Int {
      guard index < arguments.count, let value = Int(arguments[index]) else {
        throw CommandError("\(verb) needs \(what): \(usage)")
      }
      return value
    }
    func releaseYear(_ year: Int) throws(CommandError) -> Int {
      guard Self.releaseYears.contains(year) else {
        throw CommandError(
          "a release year is \(Self.releaseYears.lowerBound) to \(Self.releaseYears.upperBound), "
            + "not \(year)")
      }
      return year
    }
    func noMore(_ count: Int, _ usage: String) throws(CommandError) {
      if arguments.count > count { throw CommandError("too many words for \(verb): \(usage)") }
    }
    switch verb {
    case "rename":
      let usage = "rename 2 New Title"
      let row = try number(0, "a row number and a title", usage)
      guard arguments.count > 1 else { throw CommandError("rename needs a title: \(usage)") }
      return .rename(row: row, title: arguments.dropFirst().joined(separator: " "))
    case "year":
      let usage = "year 2 1999"
      let row = try number(0, "a row number and a year", usage)
      let year = try releaseYear(number(1, "a year", usage))
      try noMore(2, usage)
      return .year(row: row, year: year)
    case "live", "studio":
      let usage = "\(verb) 2"
      let row = try number(0, "a row number", usage)
      try noMore(1, usage)
      return verb == "live" ? .live(row: row) : .studio(row: row)
    case "add":
      let usage = "add Some Title 1985"
      guard arguments.count >= 2, let year = arguments.last.flatMap({ Int($0) }) else {
        throw CommandError("add needs a title and a year: \(usage)")
      }
      return .add(title: arguments.dropLast().joined(separator: " "), year: try releaseYear(year))
    case "remove":
      let usage = "remove 2"
      let row = try number(0, "a row number", usage)
      try noMore(1, usage)
      return .remove(row: row)
    case "track":
      let usage = "track 2 7"
      let row = try number(0, "a row number and minutes", usage)
      let minutes = try number(1, "minutes", usage)
      try noMore(2, usage)
      guard (1...99).contains(minutes) else {
        throw CommandError("a track lasts 1 to 99 minutes, not \(minutes)")
      }
      return .track(row: row, minutes: minutes)
    case "sort":
      let keys = SortKey.allCases.map(\.rawValue).joined(separator: "|")
      guard arguments.count == 1, let key = SortKey(rawValue: arguments[0].lowercased()) else {
        throw CommandError("sort needs one of \(keys): sort title")
      }
      return .sort(key)
    case "show", "hide":
      guard arguments.count == 1, arguments[0].lowercased() == "live" else {
        throw CommandError("\(verb) live is the only \(verb) command")
      }
      return .showLive(verb == "show")
    case "list", "ls":
      try noMore(0, verb)
      return .list
    case "help", "?":
      return .help
    case "quit", "exit", "q":
      return .quit
    default:
      throw CommandError("unknown command \"\(verb)\" (type help)")
    }
  }

  /// The command's first word.
  var verb: String {
    switch self {
    case .rename: "rename"
    case .year: "year"
    case .live: "live"
    case .studio: "studio"
    case .add: "add"
    case .remove: "remove"
    case .track: "track"
    case .sort: "sort"
    case .showLive(let show): show ? "show" : "hide"
    case .list: "list"
    case .help: "help"
    case .quit: "quit"
    }
  }
}

/// A line the interactive mode could not run, with what is wrong.
struct CommandError: Error, Equatable, CustomStringConvertible {
  let message: String

  init(_ message: String) { self.message = message }

  var description: String { message }
}
