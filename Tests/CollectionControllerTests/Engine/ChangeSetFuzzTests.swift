import TestSupport
import Testing

@testable import CollectionController

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Seeded randomized transactions: every change set, replayed with UITableView rules onto the
/// previous content, must give the content recomputed from scratch.
///
/// The default is 20,000 edits (4 runs of up to 5,000, seeds 0 to 3: each run shape once). Set
/// `FUZZ_OPERATIONS` to run more (CI's long step in `.ci/run` runs a million in release); the
/// failure message names the run and transaction; set `FUZZ_FIRST_RUN` to start from that run.
@Suite struct ChangeSetFuzzTests {}

extension ChangeSetFuzzTests {
  static func environment(_ name: String) -> Int? {
    getenv(name).flatMap { Int(String(cString: $0)) }
  }

  @Test func randomTransactionsReplayToTheRecomputedContent() async throws {
    let totalEdits = Self.environment("FUZZ_OPERATIONS") ?? 20_000
    let firstRun = Self.environment("FUZZ_FIRST_RUN") ?? 0
    // On a thread of its own, not on the cooperative pool that the other tests need.
    let outcome = await onNewThread { () -> Result<(Int, Int, Int, ChangeTally), any Error> in
      Result {
        var run = firstRun
        var edits = 0
        var transactions = 0
        var stats = ChangeTally()
        while edits < totalEdits {
          let done = try Self.fuzzRun(seed: UInt64(run), budget: min(5_000, totalEdits - edits)) {
            transactions += 1
            stats.add($0)
          }
          edits += done
          run += 1
        }
        return (edits, transactions, run, stats)
      }
    }
    let (edits, transactions, run, stats) = try outcome.get()
    #expect(edits >= totalEdits)
    print("ChangeSetFuzzTests: \(edits) edits, \(transactions) transactions, \(run) runs; \(stats)")
    // The generator must reach every kind of change.
    #expect(stats.empty > 0 && stats.sectionInserts > 0 && stats.sectionDeletes > 0)
    #expect(stats.inserts > 0 && stats.deletes > 0 && stats.moves > 0 && stats.updates > 0)
    #expect(stats.changedMoves > 0)
  }

  /// One relation evolving through transactions of 1–50 random edits until `budget` edits.
  static func fuzzRun(
    seed: UInt64, budget: Int, onTransaction: (RelationChangeSet<Item>?) -> Void
  ) throws -> Int {
    var rng = SplitMix64(seed: seed)
    // Run shapes: unsectioned and large, sectioned and large, many small sections that come and
    // go, few medium sections.
    let shape = Int(seed % 4)
    let sectioned = shape != 0
    let sortRange = seed % 2 == 0 ? 0..<8 : 0..<40
    let sectionRange = 0..<[1, 6, 12, 3][shape]
    let largeSize = [300, 300, 15, 40][shape]
    let relation = Relation(permanentSection: sectioned ? nil : 0)
    var counter = 0
    func makeItem(_ rng: inout SplitMix64) -> Item {
      defer { counter += 1 }
      return relation.make(
        "s\(seed)i\(counter)", Int.random(in: sortRange, using: &rng),
        section: Int.random(in: sectionRange, using: &rng),
        passes: Int.random(in: 0..<8, using: &rng) != 0)
    }
    relation.load((0..<Int.random(in: 0...largeSize, using: &rng)).map { _ in makeItem(&rng) })
    var edits = 0
    var transaction = 0
    while edits < budget {
      var touched: [ObjectIdentifier: Int] = [:]
      var list: [(Item, Bool)] = []
      func touch(_ item: Item, _ changed: Bool) {
        if let i = touched[item.id] {
          list[i].1 = list[i].1 || changed
        } else {
          touched[item.id] = list.count
          list.append((item, changed))
        }
      }
      let count = Int.random(in: 1...50, using: &rng)
      let replaceAll = Int.random(in: 0..<100, using: &rng) == 0
      for _ in 0..<count {
        let members = relation.members
        let kind = members.isEmpty ? 0 : Int.random(in: 0..<12, using: &rng)
        let target = members.randomElement(using: &rng)
        switch (kind, target) {
        case (0...1, _):
          let item = makeItem(&rng)
          relation.add(item)
          touch(item, false)
        case (2...3, let item?):
          // Bias removal when the relation is large, insertion when small.
          if members.count > largeSize || kind == 2 {
            relation.remove(item)
            touch(item, false)
          } else {
            let added = makeItem(&rng)
            relation.add(added)
            touch(added, false)
          }
        case (4...6, let item?):
          item.sortKey = Int.random(in: sortRange, using: &rng)
          touch(item, Bool.random(using: &rng))
        case (7...8, let item?):
          item.sectionKey = Int.random(in: sectionRange, using: &rng)
          touch(item, false)
        case (9, let item?):
          item.passes.toggle()
          touch(item, false)
        case (_, let item?):
          touch(item, true)
        default:
          break
        }
      }
      if replaceAll {
        for item in relation.members { touch(item, Int.random(in: 0..<10, using: &rng) == 0) }
      }
      do {
        onTransaction(try relation.commit(list))
      } catch {
        throw Relation.VerificationFailure(
          description: "seed \(seed), transaction \(transaction): \(error)")
      }
      edits += count
      transaction += 1
    }
    return edits
  }
}
