import Binding
import CollectionController
import Foundation
import Observation
import TestSupport
import Testing

@testable import MusicCatalog

// Examples of documentation comments, compiled and run with the demo's models: each region
// between `// snippet NAME: DOCUMENT` and `// end snippet` is, line for line, a ```swift block of
// the `///` comments of the source file it names (`DocumentationSnippetTests` in
// CollectionControllerTests fails when the two differ). The SwiftUI example of
// RelationController.swift is here because it makes `Album` `Identifiable`, which
// CollectionControllerTests's `Album` already is; SwiftUI is modelled in Support/.

// snippet cc-controller-swiftui: Sources/CollectionController/Relation/RelationController.swift
extension Album: Identifiable {}  // a class: its identity is its id

struct AlbumsView: View {
  let albums: RelationController<Album, Int>
  var body: some View {
    List(albums.sections, id: \.key) { section in
      Section(section.name) { ForEach(section.objects) { Text($0.title) } }
    }
  }
}
// end snippet

@Suite struct DocCommentExamplesTests {}

extension DocCommentExamplesTests {
  /// The view reads the controller, Swift Observation tells when a change set changed the
  /// content, and the view drawn again shows it.
  @MainActor @Test func aSwiftUIViewShowsTheContentOfEachChangeSet() throws {
    let artist = Artist("Miles Davis", albums: [Album("Kind of Blue", year: 1959, tracks: [])])
    let albums = try RelationController(
      \.albums, of: artist, sortedBy: [SortDescriptor(\.year)], sectionedBy: { $0.year / 10 * 10 })
    let view = AlbumsView(albums: albums)
    let changed = _Lock(false)
    let first = withObservationTracking {
      render(view)
    } onChange: {
      changed.withLock { $0 = true }
    }
    #expect(first == ["1950", "  Kind of Blue"])
    artist.albums.append(Album("Tutu", year: 1986, tracks: []))
    #expect(changed.withLock { $0 })
    #expect(render(view) == ["1950", "  Kind of Blue", "1980", "  Tutu"])
  }

  @Test func theDemoRunsItsScript() throws {
    var lines: [String] = []
    func print(_ line: String) { lines.append(line) }
    // snippet cc-catalog-demo: Sources/MusicCatalog/CatalogDemo.swift
    let demo = try CatalogDemo(output: { print($0) })
    let fitted = try demo.runScript()  // scripted edits; `runInteractive` reads commands
    // end snippet
    #expect(fitted)
    #expect(lines.contains("== Done =="))
  }
}
