/*:
 # Coalescing

 Several edits, one notification. Inside `coalesce { }`, registrations made with the
 `.coalesced` option wait until the block ends, then hear once, with the first old value and
 the last new value. Everything else (registrations without the option, bindings) hears each
 write at once, as usual.
 */
import Binding

final class Document: ObservableModel {
  let observation = ObservationStorage()
  @Observed var title = "Untitled"
  @Observed var words = 0
  var summary: String { "\(title), \(words) words" }
}

let document = Document()

//: A plain registration hears every write; a coalesced one hears the block once.
example("Three writes, one coalesced delivery") {
  let each = document.observe(\.title) { print("each:", $0.oldValue, "→", $0.newValue) }
  let once = document.observe(\.title, options: .coalesced) {
    print("once:", $0.oldValue, "→", $0.newValue)
  }
  coalesce {
    document.title = "Draft"
    document.title = "Draft 2"
    document.title = "Report"
  }
  each.cancel()
  once.cancel()
}

//: Each coalesced registration hears once, in the order of its first change. A computed
//: property that reads several changed properties is one registration: it hears once too.
example("Several properties, in the order of their first change") {
  let tokens = [
    document.observe(\.title, options: .coalesced) { print("title:", $0.newValue) },
    document.observe(\.words, options: .coalesced) { print("words:", $0.newValue) },
    document.observe(\.summary, options: .coalesced) { print("summary:", $0.newValue) },
  ]
  coalesce {
    document.words = 120
    document.title = "Report, second draft"
    document.words = 180
  }
  for token in tokens { token.cancel() }
}

//: Blocks nest: only the outermost one delivers. A block that throws still ends, delivers what
//: changed before the throw, and rethrows the error.
struct Abandoned: Error {}

example("Nested blocks, and a block that throws") {
  let token = document.observe(\.words, options: .coalesced) {
    print("words:", $0.oldValue, "→", $0.newValue)
  }
  coalesce {
    document.words = 200
    coalesce { document.words = 250 }
    print("the inner block ended: nothing delivered yet")
  }
  do {
    try coalesce {
      document.words = 300
      throw Abandoned()
    }
  } catch {
    print("caught", error)
  }
  token.cancel()
}

//: Outside any block, one write and what its observers write in response are one transaction:
//: here an observer of `title` resets `words`, and the coalesced observer of `summary` hears
//: the two writes once.
example("A write and what its observers write: one transaction") {
  let reset = document.observe(\.title) { _ in document.words = 0 }
  let summary = document.observe(\.summary, options: .coalesced) { print($0.newValue) }
  document.title = "New document"
  reset.cancel()
  summary.cancel()
}

//: Relation controllers and the dependency tracker coalesce the same way: one `coalesce`
//: block of edits is one change set (the Collections page) and one event per object (the
//: Dependencies page).
