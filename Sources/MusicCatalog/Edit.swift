import CollectionController

/// One edit of the catalog's models, as the demo's script and its commands make them.
///
/// Edits change the models only; the controllers hear the changes by themselves.
enum Edit {
  case rename(Album, to: String)
  case setYear(Album, Int)
  case setLive(Album, Bool)
  case add(title: String, year: Int)
  case remove(Album)
  case addTrack(to: Album, seconds: Int)
  case setLength(of: Track, in: Album, seconds: Int)

  /// Said of a write that stores an equal value.
  static let equal = "  // equal to the old value: not a change"

  /// Makes the edit on `artist`'s albums and returns what it did, for the transcript.
  func perform(on artist: Artist) -> String {
    switch self {
    case .rename(let album, let title):
      let old = album.title
      album.title = title
      return "\"\(old)\".title = \"\(title)\"" + (old == title ? Self.equal : "")
    case .setYear(let album, let year):
      let old = album.year
      album.year = year
      return "\"\(album.title)\".year = \(year)" + (old == year ? Self.equal : "  // was \(old)")
    case .setLive(let album, let isLive):
      let old = album.isLive
      album.isLive = isLive
      return "\"\(album.title)\".isLive = \(isLive)" + (old == isLive ? Self.equal : "")
    case .add(let title, let year):
      let album = Album(title, year: year, tracks: [Track(title, seconds: 240)])
      let index = artist.albums.count
      artist.insert(album, at: index, into: \.albums)
      return "artist.insert(Album(\"\(title)\", year: \(year)), at: \(index), into: \\.albums)"
    case .remove(let album):
      guard let index = artist.albums.firstIndex(where: { $0 === album }) else {
        return "\"\(album.title)\" is not one of the artist's albums: nothing to remove"
      }
      artist.remove(at: index, from: \.albums)
      return "artist.remove(at: \(index), from: \\.albums)  // \"\(album.title)\""
    case .addTrack(let album, let seconds):
      let title = "Track \(album.tracks.count + 1)"
      album.tracks.append(Track(title, seconds: seconds))
      return "\"\(album.title)\".tracks.append(Track(\"\(title)\", seconds: \(seconds)))"
    case .setLength(let track, let album, let seconds):
      let old = track.seconds
      track.seconds = seconds
      let index = album.tracks.firstIndex { $0 === track }.map(String.init) ?? "?"
      return "\"\(album.title)\".tracks[\(index)].seconds = \(seconds)  // was \(old)"
    }
  }
}
