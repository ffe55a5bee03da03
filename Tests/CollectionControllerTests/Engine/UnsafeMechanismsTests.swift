import Testing

@testable import CollectionController

/// Unchecked array access (`UncheckedArrayAccess.swift`): views read and write in place within
/// the bounds, and debug builds trap on an index outside them, naming it.
@Suite struct UncheckedArrayAccessTests {
  /// A view reads every element, and a mutable view changes them where they are stored.
  @Test func viewsReadAndWriteInPlace() {
    var array: ContiguousArray<Int?> = [1, nil, 3]
    array._withUncheckedMutableElements { elements in
      for index in elements.indices { elements[index]? += 10 }
    }
    #expect(array == [11, nil, 13])
    #expect(array._withUncheckedElements { $0.indices.map { $0 } } == [0, 1, 2])
    #expect([5, 6]._withUncheckedElements { $0[1] } == 6)
  }

  /// A prefetch takes any index, even one far outside the array: it never reads the address.
  @Test func prefetchesTakeAnyIndex() {
    let array: ContiguousArray<Int32> = [1, 2, 3]
    array._prefetchElement(at: 1 << 40)
    array._prefetchElements(from: -(1 << 30), count: 100)
    ContiguousArray<Int32>()._prefetchElement(at: 7)
    _KeptColumn(array).prefetch(-1)
    #expect(array == [1, 2, 3])
  }

  #if DEBUG
    /// Reading past the end breaks the invariant: a debug build traps, naming the index.
    @Test func aReadPastTheEndTraps() async throws {
      let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
        let array: ContiguousArray<Int> = [1, 2, 3]
        _ = array._withUncheckedElements { $0[3] }
      }
      let message = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
      #expect(message.contains("unchecked index 3 outside 0..<3"))
    }

    /// Writing before the start breaks the invariant: a debug build traps, naming the index.
    @Test func aWriteBeforeTheStartTraps() async throws {
      let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
        var array: ContiguousArray<Int> = [1, 2, 3]
        array._withUncheckedMutableElements { $0[-1] = 0 }
      }
      let message = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
      #expect(message.contains("unchecked index -1 outside 0..<3"))
    }
  #endif

  /// An uninitialised array's initialiser that counts more elements than it was given room
  /// for breaks the invariant: the build traps (in every configuration).
  @Test func anUninitialisedArrayCountingTooManyTraps() async {
    await #expect(processExitsWith: .failure) {
      _ = [Int](_uninitializedCount: 2) { buffer, count in
        buffer.initialize(repeating: 0)
        count = 3
      }
    }
    await #expect(processExitsWith: .failure) {
      _ = [Int](_uninitializedCount: 0) { _, count in count = 1 }
    }
  }
}

/// The staged comparison (`StagedComparison.swift`): the key stores' columns skip exclusivity
/// checks and the comparison holds its stores unretained in release builds only; a debug build
/// traps on an access that overlaps another, and on a comparison used after its stores went.
@Suite struct StagedComparisonTests {
  /// The staged key compares with the kept ones, in the store's direction.
  @Test func theStagedKeyComparesWithTheKeptOnes() {
    let store = _IntKeys(ascending: false)
    store.store(1, at: 0)
    store.store(3, at: 1)
    store.staged = 2
    let comparison = _StagedComparison([store])
    #expect(comparison.compare(with: 0) == .orderedAscending)
    #expect(comparison.compare(with: 1) == .orderedDescending)
  }

  #if DEBUG
    /// A comparison while an access to the store's values is open breaks the invariant (no
    /// access to a store's columns overlaps another): a debug build traps.
    @Test func aComparisonDuringAWriteOfTheValuesTraps() async throws {
      let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
        /// Calls `body` while a modification of `values` is open.
        func modifying(_ values: inout ContiguousArray<Int>, _ body: () -> Void) { body() }
        let store = _IntKeys(ascending: true)
        store.store(1, at: 0)
        store.staged = 2
        modifying(&store.values) { _ = _StagedComparison([store]).compare(with: 0) }
      }
      let message = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
      #expect(message.contains("Simultaneous accesses"))
    }

    /// A comparison used after its stores went breaks the invariant (every store outlives the
    /// comparisons that call it): a debug build traps, naming the violation.
    @Test func aComparisonOutlivingItsStoresTraps() async throws {
      let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
        var store: _IntKeys? = _IntKeys(ascending: true)
        store?.store(1, at: 0)
        store?.staged = 2
        let comparison = _StagedComparison([store!])
        store = nil
        _ = comparison.compare(with: 0)
      }
      let message = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
      #expect(message.contains("a staged comparison was used after its key stores went"))
    }
  #endif
}
