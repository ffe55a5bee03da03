import Testing

@testable import MusicCatalog

@Suite struct CommandTests {}

extension CommandTests {
  @Test(
    arguments: [
      ("rename 2 New Title", Command.rename(row: 2, title: "New Title")),
      ("  RENAME   2   Two  Words ", .rename(row: 2, title: "Two Words")),
      ("year 2 1999", .year(row: 2, year: 1999)),
      ("live 3", .live(row: 3)),
      ("studio 3", .studio(row: 3)),
      ("add Ebb and Flow 1985", .add(title: "Ebb and Flow", year: 1985)),
      ("remove 1", .remove(row: 1)),
      ("track 4 7", .track(row: 4, minutes: 7)),
      ("sort length", .sort(.length)),
      ("show live", .showLive(true)),
      ("hide live", .showLive(false)),
      ("list", .list),
      ("help", .help),
      ("quit", .quit),
    ])
  func parsesOneCommand(line: String, command: Command) throws {
    #expect(try Command.parseLine(line) == [command])
  }

  @Test func anEmptyLineIsNoCommand() throws {
    #expect(try Command.parseLine("   ").isEmpty)
  }

  @Test func editsJoinWithSemicolons() throws {
    #expect(
      try Command.parseLine("rename 1 Ebb; year 2 2001 ;live 3")
        == [.rename(row: 1, title: "Ebb"), .year(row: 2, year: 2001), .live(row: 3)])
  }

  @Test(
    arguments: [
      ("bogus", "unknown command \"bogus\" (type help)"),
      ("rename", "rename needs a row number and a title: rename 2 New Title"),
      ("rename 2", "rename needs a title: rename 2 New Title"),
      ("year two 1999", "year needs a row number and a year: year 2 1999"),
      ("year 2 1999 2000", "too many words for year: year 2 1999"),
      ("year 1 -300", "a release year is 1900 to 2099, not -300"),
      ("add Future 2150", "a release year is 1900 to 2099, not 2150"),
      ("add 1985", "add needs a title and a year: add Some Title 1985"),
      ("add Title", "add needs a title and a year: add Some Title 1985"),
      ("track 1 0", "a track lasts 1 to 99 minutes, not 0"),
      ("sort colour", "sort needs one of year|title|length: sort title"),
      ("show dead", "show live is the only show command"),
      ("rename 1 A; sort title", "only edits can be joined with ';', not sort"),
      ("rename 1 A;", "an empty command between ';'"),
    ])
  func rejectsWithAMessage(line: String, message: String) {
    #expect(throws: CommandError(message)) { try Command.parseLine(line) }
  }
}
