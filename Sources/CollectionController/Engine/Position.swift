/// The place of an element in sectioned content: a section index and a row inside that section.
///
/// Foundation's `IndexPath` has no `section` or `row` on Linux (those are UIKit/AppKit extensions),
/// so the engine uses this small value type. Positions order by section, then row.
struct Position: Hashable, Comparable, Sendable, CustomStringConvertible {
  /// The index of the section, counted from 0 in section-key order.
  var section: Int
  /// The index of the element inside its section, counted from 0 in sort order.
  var row: Int

  init(section: Int, row: Int) {
    self.section = section
    self.row = row
  }

  static func < (lhs: Position, rhs: Position) -> Bool {
    lhs.section != rhs.section ? lhs.section < rhs.section : lhs.row < rhs.row
  }

  var description: String { "[\(section), \(row)]" }
}
