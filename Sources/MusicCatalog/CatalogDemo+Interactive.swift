import Binding
import CollectionController
import Foundation

extension CatalogDemo {
  /// Reads commands (`rename 2 New Title`, `help`, …) and runs them until `quit` or the end of
  /// the input, printing each edit's change set and the list as the script does.
  ///
  /// - Parameters:
  ///   - prompt: Writes the prompt (without a line break).
  ///   - readLine: Reads one line, or returns `nil` at the end of the input.
  /// - Returns: Whether every change set fitted its list.
  /// - Throws: `RelationConfigurationError` if a reconfiguration cannot be honoured (the
  ///   commands' filters are closures and their sorts key paths, so it does not).
  @discardableResult
  public func runInteractive(prompt: (String) -> Void, readLine: () -> String?) throws -> Bool {
    write("music-catalog, interactive: edit the albums of \(artist.name), watch the change sets.")
    write()
    for line in Self.controllerCode { write("  \(line)") }
    heading("\(artist.name): studio albums by decade")
    write()
    for line in byDecade.draw() { write(line) }
    write()
    write("Type help for the commands, quit to leave.")
    while true {
      prompt("> ")
      guard let line = readLine() else {
        write()
        break
      }
      let commands: [Command]
      do {
        commands = try Command.parseLine(line)
      } catch {
        write("? \(error)")
        continue
      }
      guard let command = commands.first else { continue }
      switch command {
      case .quit:
        return finishInteractive()
      case .help:
        for line in Command.helpText { write(line) }
      case .list:
        heading("\(artist.name): albums")
        write()
        for line in byDecade.draw() { write(line) }
      case .sort(let key):
        try step(line.trimmingCharacters(in: .whitespaces)) {
          try byDecade.controller.reconfigure { $0.sortedBy = Self.comparators(key) }
          return ["try byDecade.reconfigure { $0.sortedBy = \(Self.comparatorCode(key)) }"]
        }
      case .showLive(let show):
        try step(line.trimmingCharacters(in: .whitespaces)) {
          try byDecade.controller.reconfigure { configuration in
            configuration.filter = show ? nil : .init { !$0.isLive }
          }
          let filter = show ? "nil" : ".init { !$0.isLive }"
          return ["try byDecade.reconfigure { $0.filter = \(filter) }"]
        }
      default:
        do {
          let edits = try commands.map { command throws(CommandError) in try edit(for: command) }
          step(line.trimmingCharacters(in: .whitespaces)) { perform(edits) }
        } catch {
          write("? \(error)")
        }
      }
    }
    return finishInteractive()
  }

  private func finishInteractive() -> Bool {
    let total = changeSetCounts.values.reduce(0, +)
    let count = total == 1 ? "1 change set" : "\(total) change sets"
    write(
      count
        + (allChangeSetsFit ? ", each fitted the list. Bye." : "; some did not fit (see MISMATCH).")
    )
    return allChangeSetsFit
  }

  /// The edit a command makes, with row numbers resolved against the list as drawn.
  func edit(for command: Command) throws(CommandError) -> Edit {
    func album(_ row: Int) throws(CommandError) -> Album {
      guard let album = byDecade.table.row(numbered: row)?.album else {
        let count = byDecade.table.count
        throw CommandError(
          count == 0 ? "the list is empty" : "no row \(row): the list has rows 1 to \(count)")
      }
      return album
    }
    switch command {
    case .rename(let row, let title): return .rename(try album(row), to: title)
    case .year(let row, let year): return .setYear(try album(row), year)
    case .live(let row): return .setLive(try album(row), true)
    case .studio(let row): return .setLive(try album(row), false)
    case .add(let title, let year): return .add(title: title, year: year)
    case .remove(let row): return .remove(try album(row))
    case .track(let row, let minutes): return .addTrack(to: try album(row), seconds: minutes * 60)
    case .sort, .showLive, .list, .help, .quit:
      throw CommandError("\(command.verb) is not an edit")
    }
  }

  static func comparators(_ key: Command.SortKey) -> [any SortComparator<Album>] {
    switch key {
    case .year: [SortDescriptor(\Album.year)]
    case .title: [SortDescriptor(\Album.title)]
    case .length: [KeyPathComparator(\Album.duration, order: .reverse)]
    }
  }

  static func comparatorCode(_ key: Command.SortKey) -> String {
    switch key {
    case .year: "[SortDescriptor(\\.year)]"
    case .title: "[SortDescriptor(\\.title)]"
    case .length: "[KeyPathComparator(\\.duration, order: .reverse)]"
    }
  }
}
