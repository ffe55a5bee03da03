// Stand-ins for the part of SwiftUI that the documentation's SwiftUI examples use, spelled as
// SwiftUI spells it, so that the examples compile here unchanged (Linux has no SwiftUI): a copy
// of CollectionControllerTests's Support/SwiftUIStandIns.swift, for the example of the
// controller's `Observable` conformance, which makes `Album` `Identifiable` (that test target's
// `Album` already is, by the Getting Started article's example). `render(_:)` evaluates a
// view's body, as SwiftUI does when it draws it, into lines of text. The example is in
// DocCommentExamplesTests.swift.

/// A view: its body, down to the views that draw themselves.
@MainActor
protocol View {
  associatedtype Body: View
  @ViewBuilder var body: Body { get }
}

/// A view that draws itself (its body is never evaluated).
@MainActor
protocol PrimitiveView: View where Body == Never {
  func lines() -> [String]
}

extension PrimitiveView {
  var body: Never { fatalError("\(Self.self) draws itself") }
}

extension Never: View {
  var body: Never { fatalError("Never has no body") }
}

/// What a view shows, as lines of text.
@MainActor
func render(_ view: some View) -> [String] {
  if let primitive = view as? any PrimitiveView { return primitive.lines() }
  return render(view.body)
}

/// Builds a view from a closure's one expression.
@resultBuilder
enum ViewBuilder {
  static func buildBlock<Content: View>(_ content: Content) -> Content { content }
}

/// A line of text.
struct Text: PrimitiveView {
  let content: String
  init(_ content: String) { self.content = content }
  func lines() -> [String] { [content] }
}

/// A view per element of a collection of identifiable elements.
struct ForEach: PrimitiveView {
  private let rendered: () -> [String]

  init<Data: RandomAccessCollection, Content: View>(
    _ data: Data, @ViewBuilder content: @escaping (Data.Element) -> Content
  ) where Data.Element: Identifiable {
    rendered = { data.flatMap { render(content($0)) } }
  }

  func lines() -> [String] { rendered() }
}

/// A titled section: its title, then its content, indented.
struct Section: PrimitiveView {
  let title: String
  private let rendered: [String]

  init<Content: View>(_ title: String, @ViewBuilder content: () -> Content) {
    self.title = title
    rendered = render(content())
  }

  func lines() -> [String] { [title] + rendered.map { "  \($0)" } }
}

/// A list of rows, one per element of a collection, identified by a key path.
struct List: PrimitiveView {
  private let rendered: () -> [String]

  init<Data: RandomAccessCollection, ID: Hashable, RowContent: View>(
    _ data: Data, id: KeyPath<Data.Element, ID>,
    @ViewBuilder rowContent: @escaping (Data.Element) -> RowContent
  ) {
    rendered = { data.flatMap { render(rowContent($0)) } }
  }

  func lines() -> [String] { rendered() }
}
