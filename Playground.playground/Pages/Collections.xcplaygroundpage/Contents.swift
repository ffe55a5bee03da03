/*:
 # Collections

 A `RelationController` shows one to-many relation of one model (an artist's albums) as a
 filtered, sorted, sectioned list, and reports every change as a change set that a table view
 applies as it is, in `performBatchUpdates`: deletions and reloads at old positions, insertions
 at new ones, moves from old to new. `swift run music-catalog` runs a longer version of this
 page in the terminal.
 */
import Binding
import CollectionController
import Foundation
import Observation

final class Artist: ObservableModel {
  let observation = ObservationStorage()
  @Observed var albums: [Album] = []
}

final class Album: ObservableModel {
  let observation = ObservationStorage()
  @Observed var title: String
  @Observed var year: Int
  @Observed var isLive = false
  /// A plain stored property: nothing can observe it.
  var decadeLabel = ""
  var decade: Int { year / 10 * 10 }

  init(_ title: String, _ year: Int) {
    self.title = title
    self.year = year
  }
}

let lowTide = Album("Low Tide", 1974)
let saltAndSignal = Album("Salt & Signal", 1977)
let nightFerry = Album("Night Ferry", 1981)
let paperLanterns = Album("Paper Lanterns", 1984)
let undertow = Album("Undertow", 1993)
let breakwater = Album("Breakwater", 1997)

let artist = Artist()
artist.albums = [lowTide, nightFerry, saltAndSignal, paperLanterns, undertow, breakwater]

//: The controller filters (no live albums), sorts (by year; ties keep the array's order) and
//: sections (by decade; sections are ordered by key). A change of what these read, or of an
//: attribute named in `observing:`, is an update (a move flagged `*` when the row moves). The
//: initial content is read, not reported.
let albums = try RelationController(
  \.albums, of: artist,
  filter: .matching { !$0.isLive },
  sortedBy: [SortDescriptor(\.year)],
  sectionedBy: { $0.decade },
  sectionName: { "the \($0)s" },
  observing: [\.title])

func show(_ sections: [[String]]) {
  for (section, titles) in zip(albums.sections, sections) {
    print("  \(section.name): \(titles.joined(separator: ", "))")
  }
}

//: A table view's data source keeps its own copy of the content and applies each change set to
//: it; `apply(to:)` does exactly that for an array of sections. After each change set the copy
//: equals what the controller shows.
var shown = albums.sections.map { $0.objects.map(\.title) }
let token = albums.onChange { changes in  // keep it: released, it ends the handler
  print(changes)
  changes.apply(to: &shown) { $0.title }
  show(shown)
  if shown != albums.sections.map({ $0.objects.map(\.title) }) { print("  the copy differs!") }
}

example("Filtered, sorted, in sections") {
  show(shown)
  print("the album at [1, 0]:", albums.object(at: RowPosition(section: 1, row: 0)).title)
}

example("An observed attribute changes: an update, at the old position") {
  paperLanterns.title = "Paper Lanterns (Remastered)"
}

example("The sort key changes: a move, here into another section") {
  saltAndSignal.year = 1982
}

example("Leaving the filter is a delete, never an update") {
  undertow.isLive = true
}

example("An album of a new decade arrives with its section; the last of one leaves with it") {
  artist.albums.append(Album("Tidewater", 2003))
  artist.remove(at: 0, from: \.albums)  // Low Tide, the last of the 1970s: a fine-grained edit
}

example("One coalesce block, one change set") {
  coalesce {
    nightFerry.year = 1999
    saltAndSignal.title = "Salt and Signal"
    artist.insert(Album("Lighthouse", 2006), at: 0, into: \.albums)
  }
}

example("A whole new array is diffed by identity") {
  artist.albums = artist.albums.filter { $0 !== paperLanterns } + [Album("Anthology", 1995)]
}

//: The filter, sort and sections can change at run time; the difference is one change set.
try example("Reconfiguration: live albums too, newest first within each decade") {
  try albums.reconfigure { configuration in
    configuration.filter = nil
    configuration.sortedBy = [SortDescriptor(\.year, order: .reverse)]
  }
}

token.cancel()

//: The same controller is `Observable` (Swift Observation): a SwiftUI `List` over
//: `albums.sections` refreshes by itself on every change set, while a table view applies the
//: change sets. `withObservationTracking` shows it here (SwiftUI re-arms it on every render).
example("Swift Observation sees each change set too (what a SwiftUI List needs)") {
  withObservationTracking {
    _ = albums.sections
  } onChange: {
    print("Observation: the content changed; a SwiftUI view renders again")
  }
  artist.albums.append(Album("Encore", 2010))
  print("sections now:", albums.sections.map(\.name).joined(separator: ", "))
}

//: A filter, sort or section function that reads a plain (non-`@Observed`) property could never
//: see a change; the controller rejects it instead of going stale without a word.
example("No silent failure: a sort on a property nobody can observe is rejected") {
  do {
    try albums.reconfigure { $0.sortedBy = [SortDescriptor(\.decadeLabel)] }
  } catch {
    print(error)
  }
}
