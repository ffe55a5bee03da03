import Binding
import Foundation

@testable import CollectionController

/// A record label: a to-one target of albums.
final class Label: ObservableModel, CustomStringConvertible {
  let observation = ObservationStorage()
  @Observed var name: String

  init(_ name: String) { self.name = name }
  var description: String { "Label(\(name))" }
}

/// A track: a to-many child of albums.
final class Track: ObservableModel {
  let observation = ObservationStorage()
  @Observed var duration: Int

  init(_ duration: Int) { self.duration = duration }
}

/// An album: the element type of relation tests. Hashable by identity (for set relations).
final class Album: ObservableModel, Hashable, CustomStringConvertible {
  let observation = ObservationStorage()
  let name: String
  @Observed var year: Int
  @Observed var title: String
  @Observed var isLive: Bool
  @Observed var label: Label?
  @Observed var tracks: [Track]
  /// Not observed: changing it is invisible to controllers.
  var plain = 0
  /// Not observed either: a stored property that ThreadSanitizer sees, which an `@Observed`
  /// property's storage is not (it is reached through a key path, in the standard library,
  /// which is not instrumented). `CrossThreadStressTests` bump it with each write of an album
  /// and read it in the controllers' functions, so that a read racing a write is reported.
  var raceMark = 0

  init(
    _ name: String, year: Int = 2000, title: String = "", isLive: Bool = false,
    label: Label? = nil, tracks: [Track] = []
  ) {
    self.name = name
    self.year = year
    self.title = title
    self.isLive = isLive
    self.label = label
    self.tracks = tracks
  }

  var decade: Int { year / 10 * 10 }
  /// Read-only and computed from the plain property: a key path that cannot be written, yet
  /// whose value changes unobserved.
  var plainTwice: Int { plain * 2 }
  /// The first letter of the name: a constant that elements share (a group).
  var group: Substring { name.prefix(1) }
  var totalDuration: Int { tracks.reduce(0) { $0 + $1.duration } }
  var labelName: String { label?.name ?? "" }
  /// The label's name, or `""` once the label announced its deletion: a key that the label's
  /// deletion changes. The name is read either way, so that a controller watches the label.
  var liveLabelName: String {
    guard let label else { return "" }
    let name = label.name
    return label.isDeleted ? "" : name
  }
  /// The average track duration: NaN (0 / 0) for an album without tracks, a sort key that is
  /// not totally ordered.
  var averageDuration: Double { Double(totalDuration) / Double(tracks.count) }
  var description: String { name }

  static func == (lhs: Album, rhs: Album) -> Bool { lhs === rhs }
  func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// An element whose `==` says every two instances are equal: identity must still decide.
final class Twin: ObservableModel, Equatable, CustomStringConvertible {
  let observation = ObservationStorage()
  let name: String
  @Observed var rank: Int

  init(_ name: String, rank: Int = 0) {
    self.name = name
    self.rank = rank
  }

  var description: String { name }
  static func == (lhs: Twin, rhs: Twin) -> Bool { true }
}

/// The owner of the relations.
final class Artist: ObservableModel {
  let observation = ObservationStorage()
  @Observed var albums: [Album]
  @Observed var albumSet: Set<Album> = []
  @Observed var twins: [Twin] = []

  init(_ albums: [Album] = []) { self.albums = albums }
}

/// Records every change set of a controller and checks each one as it arrives: replayed with
/// UITableView's rules onto the previous content it gives the controller's content, and
/// `apply(to:)` agrees.
final class ChangeLog<Element: ObservableModel, Key: Hashable & Comparable>:
  @unchecked Sendable
{
  // `@unchecked Sendable`: its state is written only by the controller's deliveries, which the
  // controller serialises, and read by the test after the deliveries it waits for.
  let controller: RelationController<Element, Key>
  private(set) var changes: [RelationChangeSet<Element>] = []
  private(set) var failures: [String] = []
  private var previous: [[ObjectIdentifier]]
  private var previousElements: [[Element]]
  private var subscription: ObservationToken?

  init(_ controller: RelationController<Element, Key>) {
    self.controller = controller
    previous = controller.snapshot.itemIdentifiers
    previousElements = controller.sections.map(\.objects)
    subscription = controller.onChange { [unowned self] in self.record($0) }
  }

  var last: RelationChangeSet<Element>? { changes.last }
  var count: Int { changes.count }

  private func record(_ change: RelationChangeSet<Element>) {
    changes.append(change)
    let current = controller.snapshot.itemIdentifiers
    do {
      let replayed = try BatchUpdateReplayer.replay(
        old: previous, changes: change, dataSource: current)
      if replayed != current { failures.append("replay \(replayed) != \(current) for \(change)") }
    } catch {
      failures.append("\(error)")
    }
    var applied = previousElements
    change.apply(to: &applied)
    if applied.map({ $0.map(ObjectIdentifier.init) }) != current {
      failures.append("apply(to:) disagrees for \(change)")
    }
    previous = current
    previousElements = controller.sections.map(\.objects)
  }
}

extension RelationController {
  /// The names of the elements per section, for readable expectations.
  func names() -> [[String]] {
    sections.map { $0.objects.map { "\($0)" } }
  }
}
