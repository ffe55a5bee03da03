// Stand-ins for the part of SwiftUI that the documentation's SwiftUI examples use, spelled as
// SwiftUI spells it, so that the examples compile here unchanged (Linux has no SwiftUI), and
// reduced to what a test needs: `render(_:)` evaluates a view's body, as SwiftUI does when it
// draws it, into lines of text (a section's title, then its rows, indented). The examples are in
// CollectionControllerTests/TableViewExamplesTests.swift and
// MusicCatalogTests/DocCommentExamplesTests.swift.

/// A view: its body, down to the views that draw themselves.
@MainActor
public protocol View {
  associatedtype Body: View
  @ViewBuilder var body: Body { get }
}

/// A view that draws itself (its body is never evaluated).
@MainActor
public protocol PrimitiveView: View where Body == Never {
  func lines() -> [String]
}

extension PrimitiveView {
  public var body: Never { fatalError("\(Self.self) draws itself") }
}

extension Never: View {
  public var body: Never { fatalError("Never has no body") }
}

/// What a view shows, as lines of text.
@MainActor
public func render(_ view: some View) -> [String] {
  if let primitive = view as? any PrimitiveView { return primitive.lines() }
  return render(view.body)
}

/// Builds a view from a closure's one expression.
@resultBuilder
public enum ViewBuilder {
  public static func buildBlock<Content: View>(_ content: Content) -> Content { content }
}

/// A line of text.
public struct Text: PrimitiveView {
  let content: String
  public init(_ content: String) { self.content = content }
  public func lines() -> [String] { [content] }
}

/// A view per element of a collection of identifiable elements.
public struct ForEach: PrimitiveView {
  private let rendered: () -> [String]

  public init<Data: RandomAccessCollection, Content: View>(
    _ data: Data, @ViewBuilder content: @escaping (Data.Element) -> Content
  ) where Data.Element: Identifiable {
    rendered = { data.flatMap { render(content($0)) } }
  }

  public func lines() -> [String] { rendered() }
}

/// A titled section: its title, then its content, indented.
public struct Section: PrimitiveView {
  public let title: String
  private let rendered: [String]

  public init<Content: View>(_ title: String, @ViewBuilder content: () -> Content) {
    self.title = title
    rendered = render(content())
  }

  public func lines() -> [String] { [title] + rendered.map { "  \($0)" } }
}

/// A list of rows, one per element of a collection, identified by a key path.
public struct List: PrimitiveView {
  private let rendered: () -> [String]

  public init<Data: RandomAccessCollection, ID: Hashable, RowContent: View>(
    _ data: Data, id: KeyPath<Data.Element, ID>,
    @ViewBuilder rowContent: @escaping (Data.Element) -> RowContent
  ) {
    rendered = { data.flatMap { render(rowContent($0)) } }
  }

  public func lines() -> [String] { rendered() }
}
