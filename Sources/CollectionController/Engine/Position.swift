import Foundation

/// The place of an element in sectioned content: a section index and a row inside that section.
///
/// Foundation's `IndexPath` has no `section` or `row` on Linux (those are UIKit and AppKit
/// extensions, so declaring them ourselves would collide there); this small value type reads the
/// same on every platform and converts to and from `IndexPath`. Positions order by section, then
/// row.
///
/// ```swift
/// let position = RowPosition(section: 0, row: 2)
/// let album = albums.object(at: position)
/// tableView.reloadRows(at: [IndexPath(position)], with: .automatic)  // UIKit takes IndexPaths
/// ```
public struct RowPosition: Hashable, Comparable, Sendable, CustomStringConvertible {
  /// The index of the section, counted from 0 in section-key order.
  public var section: Int
  /// The index of the element inside its section, counted from 0 in sort order.
  public var row: Int

  /// Creates a position.
  ///
  /// - Parameters:
  ///   - section: The index of the section.
  ///   - row: The index of the row inside the section.
  @inlinable
  public init(section: Int, row: Int) {
    self.section = section
    self.row = row
  }

  /// Creates a position from a two-index `IndexPath` (section, then row or item).
  ///
  /// - Parameter indexPath: An index path of exactly two indexes.
  /// - Precondition: `indexPath.count == 2`.
  @inlinable
  public init(_ indexPath: IndexPath) {
    _require(
      indexPath.count == 2, "RowPosition needs an IndexPath of 2 indexes, got \(indexPath)")
    self.init(section: indexPath[0], row: indexPath[1])
  }

  /// Orders by section, then by row.
  ///
  /// - Parameters:
  ///   - lhs: A position.
  ///   - rhs: Another position.
  /// - Returns: Whether `lhs` comes before `rhs`.
  @inlinable
  public static func < (lhs: RowPosition, rhs: RowPosition) -> Bool {
    lhs.section != rhs.section ? lhs.section < rhs.section : lhs.row < rhs.row
  }

  /// `[section, row]`.
  @inlinable
  public var description: String { "[\(section), \(row)]" }
}

extension IndexPath {
  /// Creates the two-index path `[section, row]` of `position` (what UIKit and AppKit take).
  ///
  /// - Parameter position: The position to convert.
  @inlinable
  public init(_ position: RowPosition) {
    self.init(indexes: [position.section, position.row])
  }
}
