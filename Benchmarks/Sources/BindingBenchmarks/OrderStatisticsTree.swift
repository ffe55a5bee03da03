// The limit line of the move benchmark: the fastest plausible hand-written structure that keeps
// albums sorted by (year, title, source offset) and repositions one when its keys change.

/// A treap with subtree sizes (an order-statistics tree) over entries identified by an `Int32`
/// id in `0..<n`, ordered by year ascending, then title ascending (`String`'s `<`), then
/// `order` ascending (the source offset, a tie-breaker, so that no two entries compare equal).
///
/// Not generic: the keys are kept per id in `years`, `titles` and `order`, and the links in one
/// contiguous array of 20-byte structs indexed by id, with `-1` for "none". An id that is not
/// in the tree has a size of 0. Priorities are a fixed bijective hash of the id (so no two are
/// equal, none is stored, and every run builds the same shape).
struct LimitTree {
  /// One node's links and its subtree's sizes. `size` is 0 when the id is not in the tree;
  /// `leftSize` (the size of the left subtree) saves reading the left child when counting.
  private struct Node {
    var left: Int32 = -1
    var right: Int32 = -1
    var parent: Int32 = -1
    var size: Int32 = 0
    var leftSize: Int32 = 0
  }

  /// The sort key's first component, per id.
  private(set) var years: [Int]
  /// The sort key's second component, per id.
  private(set) var titles: [String]
  /// The tie-breaker, per id (the source offset).
  private(set) var order: [Int]
  /// The links, per id.
  private var nodes: [Node]
  /// The root's id, or -1 when the tree is empty.
  private var root: Int32 = -1

  /// Builds the tree from every id whose `included[id]` is true (O(n log n): a sort, then a
  /// linear Cartesian-tree build). The four arrays must have the same count, below `Int32.max`.
  init(years: [Int], titles: [String], order: [Int], included: [Bool]) {
    let n = years.count
    precondition(titles.count == n && order.count == n && included.count == n)
    precondition(n < Int(Int32.max))
    self.years = years
    self.titles = titles
    self.order = order
    nodes = Array(repeating: Node(), count: n)
    var ids = (0..<Int32(n)).filter { included[Int($0)] }
    ids.sort { a, b in
      let (a, b) = (Int(a), Int(b))
      if years[a] != years[b] { return years[a] < years[b] }
      if titles[a] != titles[b] { return titles[a] < titles[b] }
      return order[a] < order[b]
    }
    buildCartesianTree(sortedIDs: ids)
  }

  /// The number of entries in the tree.
  var count: Int { root < 0 ? 0 : Int(nodes[Int(root)].size) }

  /// Whether `id` is in the tree.
  func contains(_ id: Int32) -> Bool { nodes[Int(id)].size > 0 }

  /// The 0-based position of `id` in sorted order, in O(log n) (expected) by walking the parent
  /// links up to the root. `id` must be in the tree.
  func rank(_ id: Int32) -> Int {
    precondition(contains(id), "id \(id) is not in the tree")
    var node = id
    var result = Int(nodes[Int(node)].leftSize)
    while true {
      let parent = nodes[Int(node)].parent
      if parent < 0 { return result }
      let links = nodes[Int(parent)]
      if links.right == node { result += Int(links.leftSize) + 1 }
      node = parent
    }
  }

  /// Moves `id` to its place for its new keys: removes it (counting its rank on the way up),
  /// keeps `year` and `title` as its keys, inserts it again (counting its rank on the way
  /// down), and returns its rank before and after. O(log n) expected: a treap needs fewer than
  /// two rotations per removal and per insertion on average. `id` must be in the tree.
  mutating func reposition(_ id: Int32, year: Int, title: String) -> (from: Int, to: Int) {
    precondition(contains(id), "id \(id) is not in the tree")
    // The removal reads no key, so the keys can be replaced first.
    years[Int(id)] = year
    titles[Int(id)] = title
    let (years, titles, order) = (self.years, self.titles, self.order)
    var root = self.root
    let ranks = years.withUnsafeBufferPointer { years in
      titles.withUnsafeBufferPointer { titles in
        order.withUnsafeBufferPointer { order in
          nodes.withUnsafeMutableBufferPointer { nodes in
            var links = Links(nodes: nodes, root: root)
            let from = links.remove(id)
            let to = links.insert(id, years: years, titles: titles, order: order)
            root = links.root
            return (from: from, to: to)
          }
        }
      }
    }
    self.root = root
    return ranks
  }

  /// The ids in sorted order (for checking), in O(n).
  func inOrder() -> [Int32] {
    var result: [Int32] = []
    result.reserveCapacity(count)
    var stack: [Int32] = []
    var node = root
    while node >= 0 || !stack.isEmpty {
      while node >= 0 {
        stack.append(node)
        node = nodes[Int(node)].left
      }
      // The stack is not empty: either it was not, or the inner loop just pushed a node.
      let top = stack.removeLast()
      result.append(top)
      node = nodes[Int(top)].right
    }
    return result
  }

  /// Checks every link, size and priority, calling `precondition` on the first inconsistency
  /// (for the self-check; O(n)).
  func checkInvariants() {
    if root >= 0 { precondition(nodes[Int(root)].parent < 0, "the root has a parent") }
    var reached = 0
    var stack: [Int32] = root < 0 ? [] : [root]
    while let node = stack.popLast() {
      reached += 1
      let links = nodes[Int(node)]
      let (leftSize, rightSize) = (size(links.left), size(links.right))
      precondition(links.size == leftSize + rightSize + 1, "wrong size at \(node)")
      precondition(links.leftSize == leftSize, "wrong left size at \(node)")
      for child in [links.left, links.right] where child >= 0 {
        precondition(nodes[Int(child)].parent == node, "wrong parent at \(child)")
        precondition(
          Self.priority(of: child) < Self.priority(of: node), "heap order broken at \(child)")
        stack.append(child)
      }
    }
    precondition(reached == count, "\(reached) nodes reached, count is \(count)")
    precondition(nodes.count(where: { $0.size > 0 }) == count, "stray sizes")
  }

  // MARK: - Private

  /// The fixed priority of `id`: a bijective hash (an odd multiplier, then the finalizer of
  /// MurmurHash3), so distinct ids never tie.
  private static func priority(of id: Int32) -> UInt32 {
    var h = UInt32(bitPattern: id) &* 0x9E37_79B9
    h ^= h >> 16
    h &*= 0x85EB_CA6B
    h ^= h >> 13
    h &*= 0xC2B2_AE35
    h ^= h >> 16
    return h
  }

  /// The size of the subtree at `node`, 0 for "none".
  private func size(_ node: Int32) -> Int32 { node < 0 ? 0 : nodes[Int(node)].size }

  /// Links `sortedIDs` into a treap in O(n): the Cartesian tree of their priorities (with a
  /// stack of the current right spine), then the sizes, children before parents.
  private mutating func buildCartesianTree(sortedIDs: [Int32]) {
    var spine: [Int32] = []
    for id in sortedIDs {
      let priority = Self.priority(of: id)
      var lastPopped: Int32 = -1
      while let top = spine.last, Self.priority(of: top) < priority {
        lastPopped = spine.removeLast()
      }
      nodes[Int(id)].left = lastPopped
      if lastPopped >= 0 { nodes[Int(lastPopped)].parent = id }
      if let top = spine.last {
        nodes[Int(top)].right = id
        nodes[Int(id)].parent = top
      }
      spine.append(id)
    }
    root = spine.first ?? -1
    // Sizes by an explicit post-order walk (each node after both of its children).
    var stack: [(node: Int32, childrenDone: Bool)] = root < 0 ? [] : [(root, false)]
    while let (node, childrenDone) = stack.popLast() {
      let links = nodes[Int(node)]
      if childrenDone {
        nodes[Int(node)].leftSize = size(links.left)
        nodes[Int(node)].size = size(links.left) + size(links.right) + 1
      } else {
        stack.append((node, true))
        if links.left >= 0 { stack.append((links.left, false)) }
        if links.right >= 0 { stack.append((links.right, false)) }
      }
    }
  }

  /// The timed operations, on the links' storage without bounds or uniqueness checks (every id
  /// handled is a valid index: the public entry points check theirs, and links only hold ids of
  /// the tree).
  private struct Links {
    /// The tree's `nodes`, valid for the duration of one `reposition`.
    let nodes: UnsafeMutableBufferPointer<Node>
    /// The root's id, or -1 when the tree is empty; the tree's `root` is set from it after.
    var root: Int32

    /// Replaces `old` by `new` (possibly "none") as the child of `parent` (possibly "none":
    /// then as the root), and sets `new`'s parent.
    mutating func replaceChild(of parent: Int32, _ old: Int32, with new: Int32) {
      if parent < 0 {
        root = new
      } else if nodes[Int(parent)].left == old {
        nodes[Int(parent)].left = new
      } else {
        nodes[Int(parent)].right = new
      }
      if new >= 0 { nodes[Int(new)].parent = parent }
    }

    /// Rotates `child` above its parent, keeping the in-order sequence and fixing both sizes
    /// from the two nodes' own fields (no other node is read).
    mutating func rotateUp(_ child: Int32) {
      let c = nodes[Int(child)]
      let parent = c.parent
      let p = nodes[Int(parent)]
      if p.left == child {
        // The child's right subtree becomes the parent's left one.
        let inner = c.right
        let innerSize = c.size - c.leftSize - 1
        nodes[Int(parent)].left = inner
        nodes[Int(parent)].leftSize = innerSize
        nodes[Int(parent)].size = p.size - c.size + innerSize
        if inner >= 0 { nodes[Int(inner)].parent = parent }
        nodes[Int(child)].right = parent
      } else {
        // The child's left subtree becomes the parent's right one.
        let inner = c.left
        let parentSize = p.size - c.size + c.leftSize
        nodes[Int(parent)].right = inner
        nodes[Int(parent)].size = parentSize
        if inner >= 0 { nodes[Int(inner)].parent = parent }
        nodes[Int(child)].left = parent
        nodes[Int(child)].leftSize = parentSize
      }
      nodes[Int(child)].size = p.size
      nodes[Int(parent)].parent = child
      replaceChild(of: p.parent, parent, with: child)
    }

    /// Unlinks `id` and returns its rank: rotates it down (its higher-priority child up, which
    /// keeps the rank) until it has at most one child, splices it out, then walks up to the
    /// root, decrementing the sizes and adding the entries before it.
    mutating func remove(_ id: Int32) -> Int {
      while true {
        let links = nodes[Int(id)]
        if links.left < 0 || links.right < 0 { break }
        let leftWins = priority(of: links.left) > priority(of: links.right)
        rotateUp(leftWins ? links.left : links.right)
      }
      let links = nodes[Int(id)]
      var rank = Int(links.leftSize)
      var parent = links.parent
      var fromLeft = parent >= 0 && nodes[Int(parent)].left == id
      replaceChild(of: parent, id, with: links.left >= 0 ? links.left : links.right)
      nodes[Int(id)] = Node()
      while parent >= 0 {
        let p = nodes[Int(parent)]
        nodes[Int(parent)].size = p.size - 1
        nodes[Int(parent)].leftSize = p.leftSize - (fromLeft ? 1 : 0)
        rank += fromLeft ? 0 : Int(p.leftSize) + 1
        fromLeft = p.parent >= 0 && nodes[Int(p.parent)].left == parent
        parent = p.parent
      }
      return rank
    }

    /// Links `id` (not in the tree, its keys already kept) as a leaf at its place, counting the
    /// entries before it and growing the sizes on the way down, then rotates it up while its
    /// priority beats its parent's (rotations keep the rank). Returns its rank.
    mutating func insert(
      _ id: Int32, years: UnsafeBufferPointer<Int>, titles: UnsafeBufferPointer<String>,
      order: UnsafeBufferPointer<Int>
    ) -> Int {
      nodes[Int(id)].size = 1
      guard root >= 0 else {
        root = id
        return 0
      }
      let (year, title, offset) = (years[Int(id)], titles[Int(id)], order[Int(id)])
      var rank = 0
      var node = root
      while true {
        let other = Int(node)
        let goesLeft =
          year != years[other]
          ? year < years[other]
          : title != titles[other] ? title < titles[other] : offset < order[other]
        let links = nodes[other]
        nodes[other].size = links.size + 1
        nodes[other].leftSize = links.leftSize + (goesLeft ? 1 : 0)
        rank += goesLeft ? 0 : Int(links.leftSize) + 1
        let next = goesLeft ? links.left : links.right
        if next < 0 {
          if goesLeft { nodes[other].left = id } else { nodes[other].right = id }
          break
        }
        node = next
      }
      nodes[Int(id)].parent = node
      let priority = priority(of: id)
      while true {
        let parent = nodes[Int(id)].parent
        if parent < 0 || LimitTree.priority(of: parent) > priority { break }
        rotateUp(id)
      }
      return rank
    }

    /// The fixed priority of `id`.
    private func priority(of id: Int32) -> UInt32 { LimitTree.priority(of: id) }
  }
}

/// What the self-check needs of an order-statistics structure over ids `0..<n` (the limit
/// line's treap, and the B+tree prototype measured against it).
protocol RepositioningIndex {
  init(years: [Int], titles: [String], order: [Int], included: [Bool])
  var count: Int { get }
  func rank(_ id: Int32) -> Int
  mutating func reposition(_ id: Int32, year: Int, title: String) -> (from: Int, to: Int)
  func inOrder() -> [Int32]
  func checkInvariants()
}

extension LimitTree: RepositioningIndex {}
extension BTreeLimit: RepositioningIndex {}

/// Checks `Tree` against a plain sort: `n` random entries (about one in ten left out), years
/// from 1950..<2025 and titles from a pool of 50, so ties on the year and on both keys are
/// common; then `steps` random repositions, after each comparing `inOrder()` to the included ids
/// sorted with `sorted(by:)`, the returned ranks to the positions before and after, `rank` and
/// `count`, and the structure's own invariants. Calls `precondition` on any mismatch.
func limitTreeSelfCheck<Tree: RepositioningIndex>(
  _: Tree.Type = LimitTree.self, n: Int = 2_000, steps: Int = 2_000
) {
  var rng = SplitMix64(seed: 0x5EED_1DEA)
  let pool = (0..<50).map { "Title \($0 * 37 % 50)" }
  func randomYear() -> Int { 1950 + Int(rng.next() % 75) }
  func randomTitle() -> String { pool[Int(rng.next() % UInt64(pool.count))] }
  var years = (0..<n).map { _ in randomYear() }
  var titles = (0..<n).map { _ in randomTitle() }
  let order = Array(0..<n).shuffled(using: &rng)
  let included = (0..<n).map { _ in rng.next() % 10 != 0 }
  var tree = Tree(years: years, titles: titles, order: order, included: included)
  let members = (0..<Int32(n)).filter { included[Int($0)] }

  func expected() -> [Int32] {
    members.sorted { a, b in
      let (a, b) = (Int(a), Int(b))
      if years[a] != years[b] { return years[a] < years[b] }
      if titles[a] != titles[b] { return titles[a] < titles[b] }
      return order[a] < order[b]
    }
  }

  var sorted = expected()
  precondition(tree.inOrder() == sorted, "built tree out of order")
  precondition(tree.count == members.count, "wrong count after building")
  tree.checkInvariants()
  for step in 0..<steps {
    // One in four repositions takes the first entry in order, so that the front thins out
    // (emptying what held it); one in three goes to the last year, so that entries crowd there
    // (splitting what holds them). Some keep a key, or both (then the entry stays in place).
    let id = step % 4 == 1 ? sorted[0] : members[Int(rng.next() % UInt64(members.count))]
    let year = step % 7 == 0 ? years[Int(id)] : step % 3 == 0 ? 2024 : randomYear()
    let title = step % 5 == 0 ? titles[Int(id)] : randomTitle()
    let expectedFrom = sorted.firstIndex(of: id)
    years[Int(id)] = year
    titles[Int(id)] = title
    let (from, to) = tree.reposition(id, year: year, title: title)
    sorted = expected()
    precondition(from == expectedFrom, "step \(step): from \(from), expected \(expectedFrom ?? -1)")
    precondition(to == sorted.firstIndex(of: id), "step \(step): wrong rank after")
    precondition(tree.rank(id) == to, "step \(step): rank disagrees with reposition")
    precondition(tree.inOrder() == sorted, "step \(step): out of order")
    precondition(tree.count == members.count, "step \(step): wrong count")
    if step % 100 == 0 { tree.checkInvariants() }
  }
  tree.checkInvariants()
}
