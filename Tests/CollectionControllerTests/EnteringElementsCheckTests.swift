import Binding
import Foundation
import Testing

@testable import CollectionController

/// A note with a plain (unobserved) `var`: a function that reads only it goes stale.
/// Internal, not private: a private type's name prints with its file's discriminator in
/// release builds, which the messages checked below would then carry.
final class Memo: ObservableModel {
  let observation = ObservationStorage()
  let name: String
  /// Not observed.
  var pinned: Bool
  @Observed var rank: Int

  init(_ name: String, pinned: Bool = false, rank: Int = 0) {
    self.name = name
    self.pinned = pinned
    self.rank = rank
  }
}

final class Pad: ObservableModel {
  let observation = ObservationStorage()
  @Observed var memos: [Memo]
  init(_ memos: [Memo] = []) { self.memos = memos }
}

/// A function that the creation accepted without proof (the relation was empty, or the
/// function gave every element the same result) and that turns out to decide on something
/// unobservable once elements enter is reported once, on standard error, naming the function
/// and the element type, instead of going stale without a word.
@Suite(.serialized) struct EnteringElementsCheckTests {
  func issues(about type: String) -> [String] {
    _runtimeIssueLog.withLock { log in log.filter { $0.contains("RelationController<\(type),") } }
  }

  @Test func aFilterOnAPlainVarOverAnEmptyRelationIsReportedOnceWhenElementsEnter() throws {
    let pad = Pad()
    let before = issues(about: "Memo").count
    let memos = try RelationController(
      \.memos, of: pad, filter: .matching { !$0.pinned }, delivery: .synchronous)
    #expect(issues(about: "Memo").count == before)  // nothing to tell at creation
    pad.memos.append(Memo("a"))
    pad.memos.append(Memo("b", pinned: true))
    let reported = issues(about: "Memo")
    #expect(reported.count == before + 1)
    #expect(reported.last?.contains("the filter reads no @Observed property of Memo") == true)
    pad.memos.append(Memo("c", pinned: true))
    pad.memos.append(Memo("d"))
    #expect(issues(about: "Memo").count == before + 1)  // once
    #expect(memos.count == 2)
  }

  @Test func aFunctionThatReadsSomethingObservedIsNeverReported() throws {
    let pad = Pad()
    let before = issues(about: "Memo").count
    let memos = try RelationController(
      \.memos, of: pad, filter: .matching { $0.rank >= 0 }, delivery: .synchronous)
    pad.memos.append(Memo("a", pinned: true))
    pad.memos.append(Memo("b", rank: -1))
    pad.memos.append(Memo("c", rank: 3))
    #expect(issues(about: "Memo").count == before)
    #expect(memos.count == 2)
  }
}
