import Testing

@testable import MusicCatalog

@Suite struct CatalogDemoTests {}

/// The lines of one step of a transcript: from its heading to the next heading.
private func step(_ number: Int, of lines: [String]) -> [String] {
  guard let start = lines.firstIndex(where: { $0.hasPrefix("== \(number). ") }) else { return [] }
  let end = lines[(start + 1)...].firstIndex { $0.hasPrefix("== ") } ?? lines.endIndex
  return Array(lines[start..<end])
}

extension CatalogDemoTests {
  @Test func theScriptRunsEveryStepAndEveryChangeSetFits() throws {
    var lines: [String] = []
    let demo = try CatalogDemo { lines.append($0) }
    #expect(try demo.runScript())
    #expect(demo.stepCount == 10)
    #expect(demo.changeSetCounts == ["byDecade": 9, "byLength": 1])
    #expect(!lines.contains { $0.contains("MISMATCH") })
    #expect(lines.contains("== Done =="))

    let coalesced = step(6, of: lines)
    #expect(coalesced.first == "== 6. Four edits in one coalesce block: one change set ==")
    #expect(coalesced.contains("byDecade: 1 change set, as a table view applies it:"))

    let longer = step(8, of: lines)
    #expect(longer.contains("byLength: 1 change set, as a table view applies it:"))
    #expect(longer.contains { $0.hasPrefix("  move   row [0, 3] → [0, 0]  Paper Lanterns") })
  }

  @Test func interactiveCommandsEditTheModelsAndReportErrors() throws {
    var lines: [String] = []
    var input = [
      "rename 1 Ebb", "year 2 1999", "live 9", "bogus", "add New 2020; remove 1", "sort title",
      "show live", "quit", "never read",
    ]
    let demo = try CatalogDemo { lines.append($0) }
    let fitted = try demo.runInteractive(prompt: { _ in }) {
      input.isEmpty ? nil : input.removeFirst()
    }
    #expect(fitted)
    #expect(input == ["never read"])
    #expect(demo.artist.albums.map(\.title).contains("New"))
    #expect(!demo.artist.albums.map(\.title).contains("Ebb"))  // renamed, then removed
    #expect(demo.album("Salt & Signal").year == 1999)
    #expect(lines.contains("? no row 9: the list has rows 1 to 7"))
    #expect(lines.contains("? unknown command \"bogus\" (type help)"))
    #expect(step(3, of: lines).contains("byDecade: 1 change set, as a table view applies it:"))
    #expect(demo.changeSetCounts == ["byDecade": 5])
    #expect(demo.byDecade.controller.count == 9)  // one added, one removed, live ones shown
  }

  @Test func theEndOfTheInputEndsTheInteractiveMode() throws {
    let demo = try CatalogDemo { _ in }
    #expect(try demo.runInteractive(prompt: { _ in }) { nil })
    #expect(demo.stepCount == 0)
  }
}
