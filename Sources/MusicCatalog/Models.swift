import Binding

/// The whole catalog: every artist. The top-level object of the example app.
final class Catalog: ObservableModel {
  let observation = ObservationStorage()
  @Observed var artists: [Artist]

  init(_ artists: [Artist]) { self.artists = artists }
}

/// An artist and the albums they released: the to-many relation the demo's controllers show.
final class Artist: ObservableModel {
  let observation = ObservationStorage()
  @Observed var name: String
  @Observed var albums: [Album]

  init(_ name: String, albums: [Album]) {
    self.name = name
    self.albums = albums
  }
}

/// An album: studio or live, with its tracks.
final class Album: ObservableModel, CustomStringConvertible {
  let observation = ObservationStorage()
  @Observed var title: String
  @Observed var year: Int
  @Observed var isLive: Bool
  @Observed var tracks: [Track]

  init(_ title: String, year: Int, isLive: Bool = false, tracks: [Track]) {
    self.title = title
    self.year = year
    self.isLive = isLive
    self.tracks = tracks
  }

  /// The decade the album came out in: the section key of the demo's main list.
  var decade: Decade { Decade(containing: year) }

  /// The total length of the tracks, in seconds: computed, and observable through what it
  /// reads (the `tracks` array and each track's `seconds`).
  var duration: Int { tracks.reduce(0) { $0 + $1.seconds } }

  var description: String { title }
}

/// A track of an album.
final class Track: ObservableModel {
  let observation = ObservationStorage()
  @Observed var title: String
  @Observed var seconds: Int

  init(_ title: String, seconds: Int) {
    self.title = title
    self.seconds = seconds
  }
}

/// A section key: the decade of a year. Sections are ordered by key, and named by the key's
/// description ("1980s") unless a controller is configured otherwise.
struct Decade: Hashable, Comparable, CustomStringConvertible {
  let firstYear: Int

  init(containing year: Int) { firstYear = year - (year % 10 + 10) % 10 }

  static func < (lhs: Decade, rhs: Decade) -> Bool { lhs.firstYear < rhs.firstYear }

  var description: String { "\(firstYear)s" }
}

/// `m:ss`.
func formatDuration(_ seconds: Int) -> String {
  let minutes = seconds / 60
  let rest = seconds % 60
  return "\(minutes):\(rest < 10 ? "0" : "")\(rest)"
}
