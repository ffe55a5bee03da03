// The prototype of the index behind a relation controller: an order-statistics B+tree, measured
// against the treap of the limit line (`LimitTree`) by `--prototype-index`. Same keys, same
// operations, same writes; only the structure differs. The controller's index
// (`_OrderedIndex`) is built on it since it measured 0.5x the treap at 10^6; it routes by each
// child's first element instead of separators kept by value, and keeps no key inline (kept keys
// are the user's types, compared through their stores).

/// The capacities of a `BTreeLimit`'s leaves and nodes (static, so that the measured tree's
/// code is compiled for its constants).
protocol BTreeShape {
  static var leafCapacity: Int { get }
  static var fanout: Int { get }
  /// Which keys a leaf keeps beside its ids (the others are read by id, at random).
  static var leafKeys: LeafKeys { get }
}

/// The keys a `BTreeLimit` leaf keeps inline, beside its ids.
enum LeafKeys {
  /// None: a leaf search reads every key by id, as the controller's index reads its kept keys
  /// by slot.
  case none
  /// The year (a title is read by id on a tie of years).
  case year
  /// The year and the title.
  case yearAndTitle
}

extension BTreeShape {
  static var leafKeys: LeafKeys { .year }
}

/// `WideNodes` with leaves that keep no key inline.
enum WideNodesNoLeafKeys: BTreeShape {
  static let leafCapacity = 64
  static let fanout = 32
  static let leafKeys = LeafKeys.none
}

/// `WideNodes` with leaves that keep the year and the title inline.
enum WideNodesAllLeafKeys: BTreeShape {
  static let leafCapacity = 64
  static let fanout = 32
  static let leafKeys = LeafKeys.yearAndTitle
}

/// The measured shape: leaves of 64 ids (four cache lines of ids), nodes of 32 children.
enum WideNodes: BTreeShape {
  static let leafCapacity = 64
  static let fanout = 32
}

/// The self-check's shape: small enough that a few thousand repositions split and empty leaves
/// and nodes at every level, the root included.
enum NarrowNodes: BTreeShape {
  static let leafCapacity = 4
  static let fanout = 4
}

/// A B+tree with subtree counts over entries identified by an `Int32` id in `0..<n`, in the
/// order of `LimitTree`: year ascending, then title (`String`'s `<`), then `order`.
///
/// Leaves hold up to `leafCapacity` ids with their years inline (a comparison reads the title
/// and the order by id only on a tie of years); internal nodes hold up to `fanout` children
/// with each child's entry count and a lower bound of its keys (the separator, kept by value).
/// Every node is a fixed-size run of flat arrays (node `k` at `k * capacity`), and `leafOf`
/// maps an id to its leaf, so a rank is a scan of one leaf plus, per level, a scan of one node's
/// children and counts. A leaf or node that fills up splits in two; one that empties is
/// unlinked (its storage is not reused: a prototype).
struct BTreeLimit<Shape: BTreeShape> {
  static var leafCapacity: Int { Shape.leafCapacity }
  static var fanout: Int { Shape.fanout }

  /// The keys, per id.
  private(set) var years: [Int]
  private(set) var titles: [String]
  private(set) var order: [Int]
  /// The leaf holding each id, `-1` when the id is not in the tree.
  private var leafOf: [Int32]

  private var leafIDs: [Int32] = []
  private var leafYears: [Int] = []
  /// The titles beside the ids, when `Shape.leafKeys` is `.yearAndTitle`.
  private var leafTitles: [String] = []
  private var leafCount: [Int32] = []
  private var leafParent: [Int32] = []

  private var children: [Int32] = []
  private var childCounts: [Int32] = []
  private var separatorYears: [Int] = []
  private var separatorTitles: [String] = []
  private var separatorOrder: [Int] = []
  private var nodeCount: [Int32] = []
  private var nodeParent: [Int32] = []
  /// Whether a node's children are leaves.
  private var isBottom: [Bool] = []
  private var root: Int32 = -1
  private(set) var count = 0

  /// Builds the tree from every id whose `included[id]` is true: a sort, then leaves and nodes
  /// filled to three quarters, bottom up. At least one id must be included.
  init(years: [Int], titles: [String], order: [Int], included: [Bool]) {
    let n = years.count
    precondition(titles.count == n && order.count == n && included.count == n)
    self.years = years
    self.titles = titles
    self.order = order
    leafOf = Array(repeating: -1, count: n)
    var ids = (0..<Int32(n)).filter { included[Int($0)] }
    precondition(!ids.isEmpty, "the prototype is built non-empty")
    ids.sort { a, b in Self.less(a, b, years, titles, order) }
    count = ids.count
    // Leaves.
    let perLeaf = Self.leafCapacity * 3 / 4
    var level: [(node: Int32, count: Int32)] = []
    for start in stride(from: 0, to: ids.count, by: perLeaf) {
      let chunk = ids[start..<min(start + perLeaf, ids.count)]
      let leaf = newLeaf()
      for (k, id) in chunk.enumerated() {
        leafIDs[Int(leaf) * Self.leafCapacity + k] = id
        leafYears[Int(leaf) * Self.leafCapacity + k] = years[Int(id)]
        if Shape.leafKeys == .yearAndTitle {
          leafTitles[Int(leaf) * Self.leafCapacity + k] = titles[Int(id)]
        }
        leafOf[Int(id)] = leaf
      }
      leafCount[Int(leaf)] = Int32(chunk.count)
      level.append((leaf, Int32(chunk.count)))
    }
    // Internal levels, until one node holds them all.
    let perNode = Self.fanout * 3 / 4
    var bottom = true
    repeat {
      var next: [(node: Int32, count: Int32)] = []
      for start in stride(from: 0, to: level.count, by: perNode) {
        let chunk = level[start..<min(start + perNode, level.count)]
        let node = newNode(bottom: bottom)
        var total: Int32 = 0
        for (k, child) in chunk.enumerated() {
          let at = Int(node) * Self.fanout + k
          children[at] = child.node
          childCounts[at] = child.count
          total += child.count
          let first = firstID(of: child.node, bottom: bottom)
          (separatorYears[at], separatorTitles[at], separatorOrder[at]) = (
            self.years[Int(first)], self.titles[Int(first)], self.order[Int(first)]
          )
          setParent(of: child.node, bottom: bottom, to: node)
        }
        nodeCount[Int(node)] = Int32(chunk.count)
        next.append((node, total))
      }
      level = next
      bottom = false
    } while level.count > 1
    root = level[0].node
  }

  /// The 0-based position of `id` in sorted order: its offset in its leaf, plus the counts of
  /// the children before it at each level up to the root. `id` must be in the tree.
  func rank(_ id: Int32) -> Int {
    let leaf = leafOf[Int(id)]
    precondition(leaf >= 0, "id \(id) is not in the tree")
    var rank = offset(of: id, inLeaf: leaf)
    var child = leaf
    var node = leafParent[Int(leaf)]
    while node >= 0 {
      rank += countBefore(child, in: node).count
      child = node
      node = nodeParent[Int(node)]
    }
    return rank
  }

  /// The entries in the children of `node` before `child`, and the place of `child`'s count.
  private func countBefore(_ child: Int32, in node: Int32) -> (count: Int, at: Int) {
    let base = Int(node) * Self.fanout
    var (count, k) = (0, 0)
    while children[base + k] != child {
      count += Int(childCounts[base + k])
      k += 1
    }
    return (count, base + k)
  }

  /// Moves `id` to its place for its new keys and returns its rank before and after.
  mutating func reposition(_ id: Int32, year: Int, title: String) -> (from: Int, to: Int) {
    let from = remove(id)
    years[Int(id)] = year
    titles[Int(id)] = title
    let to = insert(id)
    return (from, to)
  }

  /// The ids in sorted order (for checking).
  func inOrder() -> [Int32] {
    var result: [Int32] = []
    func walk(_ node: Int32) {
      let base = Int(node) * Self.fanout
      for k in 0..<Int(nodeCount[Int(node)]) {
        let child = children[base + k]
        if isBottom[Int(node)] {
          let leafBase = Int(child) * Self.leafCapacity
          result += leafIDs[leafBase..<leafBase + Int(leafCount[Int(child)])]
        } else {
          walk(child)
        }
      }
    }
    walk(root)
    return result
  }

  /// Checks counts, parents, inline years, `leafOf` and separators (for the self-check).
  func checkInvariants() {
    precondition(nodeParent[Int(root)] < 0, "the root has a parent")
    func check(_ node: Int32) -> Int {
      let base = Int(node) * Self.fanout
      var total = 0
      precondition(nodeCount[Int(node)] > 0, "an empty node is linked")
      for k in 0..<Int(nodeCount[Int(node)]) {
        let child = children[base + k]
        let size: Int
        if isBottom[Int(node)] {
          precondition(leafParent[Int(child)] == node, "wrong leaf parent")
          size = Int(leafCount[Int(child)])
          precondition(size > 0, "an empty leaf is linked")
          for j in 0..<size {
            let id = leafIDs[Int(child) * Self.leafCapacity + j]
            precondition(leafOf[Int(id)] == child, "wrong leafOf")
            precondition(leafYears[Int(child) * Self.leafCapacity + j] == years[Int(id)])
            if Shape.leafKeys == .yearAndTitle {
              precondition(leafTitles[Int(child) * Self.leafCapacity + j] == titles[Int(id)])
            }
          }
        } else {
          precondition(nodeParent[Int(child)] == node, "wrong node parent")
          size = check(child)
        }
        precondition(Int(childCounts[base + k]) == size, "wrong count")
        if k > 0 {
          let first = firstEntry(of: child, bottom: isBottom[Int(node)])
          precondition(!lessThanSeparator(first, node, k), "a separator above its child's keys")
        }
        total += size
      }
      return total
    }
    precondition(check(root) == count, "wrong total")
    precondition(leafOf.count(where: { $0 >= 0 }) == count, "stray leafOf")
  }

  // MARK: - Private

  private static func less(
    _ a: Int32, _ b: Int32, _ years: [Int], _ titles: [String], _ order: [Int]
  ) -> Bool {
    let (a, b) = (Int(a), Int(b))
    if years[a] != years[b] { return years[a] < years[b] }
    if titles[a] != titles[b] { return titles[a] < titles[b] }
    return order[a] < order[b]
  }

  private mutating func newLeaf() -> Int32 {
    leafIDs.append(contentsOf: repeatElement(-1, count: Self.leafCapacity))
    leafYears.append(contentsOf: repeatElement(0, count: Self.leafCapacity))
    if Shape.leafKeys == .yearAndTitle {
      leafTitles.append(contentsOf: repeatElement("", count: Self.leafCapacity))
    }
    leafCount.append(0)
    leafParent.append(-1)
    return Int32(leafCount.count - 1)
  }

  private mutating func newNode(bottom: Bool) -> Int32 {
    children.append(contentsOf: repeatElement(-1, count: Self.fanout))
    childCounts.append(contentsOf: repeatElement(0, count: Self.fanout))
    separatorYears.append(contentsOf: repeatElement(0, count: Self.fanout))
    separatorTitles.append(contentsOf: repeatElement("", count: Self.fanout))
    separatorOrder.append(contentsOf: repeatElement(0, count: Self.fanout))
    nodeCount.append(0)
    nodeParent.append(-1)
    isBottom.append(bottom)
    return Int32(nodeCount.count - 1)
  }

  private mutating func setParent(of child: Int32, bottom: Bool, to node: Int32) {
    if bottom { leafParent[Int(child)] = node } else { nodeParent[Int(child)] = node }
  }

  private func firstID(of child: Int32, bottom: Bool) -> Int32 {
    bottom
      ? leafIDs[Int(child) * Self.leafCapacity]
      : firstID(of: children[Int(child) * Self.fanout], bottom: isBottom[Int(child)])
  }

  private func firstEntry(of child: Int32, bottom: Bool) -> (Int, String, Int) {
    let id = Int(firstID(of: child, bottom: bottom))
    return (years[id], titles[id], order[id])
  }

  /// Whether the key `(year, title, order)` sorts before separator `k` of `node`.
  private func lessThanSeparator(_ key: (Int, String, Int), _ node: Int32, _ k: Int) -> Bool {
    let at = Int(node) * Self.fanout + k
    if key.0 != separatorYears[at] { return key.0 < separatorYears[at] }
    if key.1 != separatorTitles[at] { return key.1 < separatorTitles[at] }
    return key.2 < separatorOrder[at]
  }

  private func offset(of id: Int32, inLeaf leaf: Int32) -> Int {
    let base = Int(leaf) * Self.leafCapacity
    var k = 0
    while leafIDs[base + k] != id { k += 1 }
    return k
  }

  /// Unlinks `id`, returning its rank; a leaf (or node) left empty is unlinked from its parent.
  private mutating func remove(_ id: Int32) -> Int {
    let leaf = leafOf[Int(id)]
    let at = offset(of: id, inLeaf: leaf)
    var rank = at
    // Counts on the way up.
    var child = leaf
    var node = leafParent[Int(leaf)]
    while node >= 0 {
      let (before, at) = countBefore(child, in: node)
      rank += before
      childCounts[at] -= 1
      child = node
      node = nodeParent[Int(node)]
    }
    // Out of the leaf.
    let base = Int(leaf) * Self.leafCapacity
    let last = Int(leafCount[Int(leaf)]) - 1
    for k in at..<last {
      leafIDs[base + k] = leafIDs[base + k + 1]
      leafYears[base + k] = leafYears[base + k + 1]
      if Shape.leafKeys == .yearAndTitle { leafTitles[base + k] = leafTitles[base + k + 1] }
    }
    leafCount[Int(leaf)] = Int32(last)
    leafOf[Int(id)] = -1
    count -= 1
    if last == 0 { unlink(leaf, bottom: true) }
    return rank
  }

  /// Removes the empty `child` from its parent (and a parent left empty from its own, but never
  /// the root).
  private mutating func unlink(_ child: Int32, bottom: Bool) {
    let node = bottom ? leafParent[Int(child)] : nodeParent[Int(child)]
    guard node >= 0 else { return }
    let base = Int(node) * Self.fanout
    var k = 0
    while children[base + k] != child { k += 1 }
    let last = Int(nodeCount[Int(node)]) - 1
    for j in k..<last { moveChild(base + j + 1, to: base + j) }
    nodeCount[Int(node)] = Int32(last)
    if last == 0 && node != root { unlink(node, bottom: false) }
  }

  private mutating func moveChild(_ from: Int, to: Int) {
    children[to] = children[from]
    childCounts[to] = childCounts[from]
    separatorYears[to] = separatorYears[from]
    separatorTitles[to] = separatorTitles[from]
    separatorOrder[to] = separatorOrder[from]
  }

  /// Links `id` (not in the tree, its keys already kept) at its place and returns its rank.
  private mutating func insert(_ id: Int32) -> Int {
    let key = (years[Int(id)], titles[Int(id)], order[Int(id)])
    var rank = 0
    var node = root
    while true {
      let base = Int(node) * Self.fanout
      let last = Int(nodeCount[Int(node)])
      // The last child whose separator is not above the key (the first child takes keys below
      // every separator).
      // Binary search: separators in one node often share a year (then titles compare).
      var (low, high) = (1, last)  // the first separator above the key is in low...high
      while low < high {
        let middle = (low + high) / 2
        if lessThanSeparator(key, node, middle) { high = middle } else { low = middle + 1 }
      }
      let k = low - 1
      for j in 0..<k { rank += Int(childCounts[base + j]) }
      childCounts[base + k] += 1
      let child = children[base + k]
      if isBottom[Int(node)] {
        rank += insert(id, key: key, into: child)
        return rank
      }
      node = child
    }
  }

  /// Inserts into `leaf`, splitting it when full; returns the offset in the leaf.
  private mutating func insert(_ id: Int32, key: (Int, String, Int), into leaf: Int32) -> Int {
    let base = Int(leaf) * Self.leafCapacity
    let last = Int(leafCount[Int(leaf)])
    // The first entry above the key, by binary search: years inline, the rest by id only on
    // a tie (at 10^6 a leaf's entries often share one year).
    var (at, high) = (0, last)
    while at < high {
      let middle = (at + high) / 2
      let other = Int(leafIDs[base + middle])
      let year = Shape.leafKeys == .none ? years[other] : leafYears[base + middle]
      let title = Shape.leafKeys == .yearAndTitle ? leafTitles[base + middle] : titles[other]
      let below =
        key.0 != year
        ? key.0 < year : key.1 != title ? key.1 < title : key.2 < order[other]
      if below { high = middle } else { at = middle + 1 }
    }
    var k = last
    while k > at {
      leafIDs[base + k] = leafIDs[base + k - 1]
      leafYears[base + k] = leafYears[base + k - 1]
      if Shape.leafKeys == .yearAndTitle { leafTitles[base + k] = leafTitles[base + k - 1] }
      k -= 1
    }
    leafIDs[base + at] = id
    leafYears[base + at] = key.0
    if Shape.leafKeys == .yearAndTitle { leafTitles[base + at] = key.1 }
    leafCount[Int(leaf)] = Int32(last + 1)
    leafOf[Int(id)] = leaf
    count += 1
    if last + 1 == Self.leafCapacity { splitLeaf(leaf) }
    return at
  }

  private mutating func splitLeaf(_ leaf: Int32) {
    let half = Self.leafCapacity / 2
    let sibling = newLeaf()
    let (from, to) = (Int(leaf) * Self.leafCapacity, Int(sibling) * Self.leafCapacity)
    for k in 0..<(Self.leafCapacity - half) {
      let id = leafIDs[from + half + k]
      leafIDs[to + k] = id
      leafYears[to + k] = leafYears[from + half + k]
      if Shape.leafKeys == .yearAndTitle { leafTitles[to + k] = leafTitles[from + half + k] }
      leafOf[Int(id)] = sibling
    }
    leafCount[Int(leaf)] = Int32(half)
    leafCount[Int(sibling)] = Int32(Self.leafCapacity - half)
    let first = Int(leafIDs[to])
    addChild(
      sibling, bottom: true, after: leaf, count: Int32(Self.leafCapacity - half),
      separator: (years[first], titles[first], order[first]), in: leafParent[Int(leaf)])
  }

  /// Adds `child` right after `previous` in `node` (whose count for `previous` still includes
  /// the entries that moved to `child`), splitting `node` when full.
  private mutating func addChild(
    _ child: Int32, bottom: Bool, after previous: Int32, count: Int32,
    separator: (Int, String, Int), in node: Int32
  ) {
    let base = Int(node) * Self.fanout
    let last = Int(nodeCount[Int(node)])
    var k = 0
    while children[base + k] != previous { k += 1 }
    childCounts[base + k] -= count
    var j = last
    while j > k + 1 {
      moveChild(base + j - 1, to: base + j)
      j -= 1
    }
    children[base + k + 1] = child
    childCounts[base + k + 1] = count
    (separatorYears[base + k + 1], separatorTitles[base + k + 1], separatorOrder[base + k + 1]) =
      separator
    nodeCount[Int(node)] = Int32(last + 1)
    setParent(of: child, bottom: bottom, to: node)
    if last + 1 == Self.fanout { splitNode(node) }
  }

  private mutating func splitNode(_ node: Int32) {
    let half = Self.fanout / 2
    let bottom = isBottom[Int(node)]
    let sibling = newNode(bottom: bottom)
    let (from, to) = (Int(node) * Self.fanout, Int(sibling) * Self.fanout)
    var moved: Int32 = 0
    for k in 0..<(Self.fanout - half) {
      moveChild(from + half + k, to: to + k)
      moved += childCounts[to + k]
      setParent(of: children[to + k], bottom: bottom, to: sibling)
    }
    nodeCount[Int(node)] = Int32(half)
    nodeCount[Int(sibling)] = Int32(Self.fanout - half)
    let separator = (separatorYears[to], separatorTitles[to], separatorOrder[to])
    var parent = nodeParent[Int(node)]
    if parent < 0 {
      // A new root above both.
      let total = (0..<half).reduce(moved) { $0 + childCounts[from + $1] }
      parent = newNode(bottom: false)
      let base = Int(parent) * Self.fanout
      children[base] = node
      childCounts[base] = total
      nodeCount[Int(parent)] = 1
      nodeParent[Int(node)] = parent
      root = parent
    }
    addChild(sibling, bottom: false, after: node, count: moved, separator: separator, in: parent)
  }
}

/// The prototype's measurement (`--prototype-index`): every structure checked against
/// `sorted(by:)`, then the limit line's repositions through each, at 10^4, 10^5 and 10^6
/// albums, 20,000 per round, 7 interleaved rounds; prints the medians and the per-round ratios.
/// The B+tree runs with leaves that keep the year inline (the prototype), no key (as the
/// controller's index reads its kept keys by slot), and the year and the title.
@MainActor func prototypeIndex() {
  limitTreeSelfCheck(LimitTree.self)
  limitTreeSelfCheck(BTreeLimit<NarrowNodes>.self)
  limitTreeSelfCheck(BTreeLimit<WideNodes>.self)
  limitTreeSelfCheck(BTreeLimit<WideNodesNoLeafKeys>.self)
  limitTreeSelfCheck(BTreeLimit<WideNodesAllLeafKeys>.self)
  print("self-checks passed (treap; B+tree with nodes of 4 and of 32, with each leaf layout)")
  let rounds = Rounds()
  var variants: [(size: Int, treap: Int, year: Int, none: Int, both: Int)] = []
  for (size, seed) in [(10_000, 2), (100_000, 3), (1_000_000, 4)] {
    var rng = SplitMix64(seed: UInt64(seed))
    let albums = makeAlbums(size, &rng)
    let treap = rounds.add(iterations: 20_000, repositionBody(albums, LimitTree.self, seed: 5))
    let year = rounds.add(
      iterations: 20_000, repositionBody(albums, BTreeLimit<WideNodes>.self, seed: 5))
    let none = rounds.add(
      iterations: 20_000, repositionBody(albums, BTreeLimit<WideNodesNoLeafKeys>.self, seed: 5))
    let both = rounds.add(
      iterations: 20_000, repositionBody(albums, BTreeLimit<WideNodesAllLeafKeys>.self, seed: 5))
    variants.append((size, treap, year, none, both))
  }
  rounds.run(7)
  for variant in variants {
    func versus(_ measured: Int, _ baseline: Int) -> String {
      let spread = rounds.ratios(measured, over: baseline)
      return "\(ratio(spread.median)) (\(ratio(spread.low))-\(ratio(spread.high)))"
    }
    print(
      "N=\(variant.size): treap \(ns(rounds.median(variant.treap))); B+tree, leaves keeping the"
        + " year \(ns(rounds.median(variant.year))) (/ treap \(versus(variant.year, variant.treap))),"
        + " no key \(ns(rounds.median(variant.none))) (/ treap \(versus(variant.none, variant.treap))),"
        + " year and title \(ns(rounds.median(variant.both)))"
        + " (/ treap \(versus(variant.both, variant.treap)); / no key \(versus(variant.both, variant.none)))"
    )
  }
}

/// A year change through `Tree`: each change writes a random shown album's year and
/// repositions its entry (the limit line's move with the treap, `limitMoveBody`).
func repositionBody<Tree: RepositioningIndex>(
  _ albums: [Album], _: Tree.Type, seed: UInt64
) -> (Int) -> Void {
  let shown = albums.filter { !$0.isLive }
  var idOfShown: [Int32] = []
  for (offset, album) in albums.enumerated() where !album.isLive {
    idOfShown.append(Int32(offset))
  }
  var tree = Tree(
    years: albums.map(\.year), titles: albums.map(\.title), order: Array(albums.indices),
    included: albums.map { !$0.isLive })
  var writes = MoveWrites(rng: SplitMix64(seed: seed), count: shown.count)
  return { count in
    for _ in 0..<count {
      let (index, year) = writes.next()
      let album = shown[index]
      album.year = year
      blackHole(tree.reposition(idOfShown[index], year: year, title: album.title))
    }
  }
}
