import Foundation

/// The section key of a relation controller without sections: one value, so one section.
///
/// A controller created without `sectionedBy:` is a `RelationController<Element, Unsectioned>`.
/// It has exactly one section at all times, even when empty, and never reports
/// that section as inserted or deleted (CMSetController created a spurious section on the first
/// mutation of an unsectioned controller; this type makes that impossible).
///
/// ```swift
/// let albums = try RelationController(\.albums, of: artist)
/// print(albums.numberOfSections)  // 1, always
/// ```
public struct Unsectioned: Hashable, Comparable, Sendable, CustomStringConvertible,
  CustomDebugStringConvertible
{
  /// The one section key.
  @inlinable
  public init() {}

  /// Never true: there is one value.
  ///
  /// - Parameters:
  ///   - lhs: The one value.
  ///   - rhs: The one value.
  /// - Returns: `false`.
  @inlinable
  public static func < (lhs: Unsectioned, rhs: Unsectioned) -> Bool { false }

  /// The empty string (the one section's name).
  @inlinable
  public var description: String { "" }

  /// `Unsectioned()`, so that a printed snapshot shows its one section
  /// (`sectionIdentifiers: [Unsectioned()]`, not `[]`).
  @inlinable
  public var debugDescription: String { "Unsectioned()" }
}
