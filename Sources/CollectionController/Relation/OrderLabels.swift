import Foundation

/// Order-maintenance labels: the place of each element of an array relation, as a `UInt64`
/// whose order is the array's order, so that the ordered index breaks ties of the sort by
/// relation order without knowing array positions (which an insert at the front would shift).
///
/// A new element gets a label between its neighbours'; when they leave no room, a window around
/// it (doubling until its label range leaves room for about its size again) is spread evenly.
/// A whole new array keeps the labels of the elements whose relative order did not change (an
/// increasing run) and places the others between them.
///
/// ```swift
/// let labels = _OrderLabels.Neighbourhood(count: 3) { [100, 0, 200][$0] }
/// let label = labels.between(around: 1)  // 150: between its neighbours' 100 and 200
/// ```
///
/// Not generic: it sees labels by offset only, through a closure.
@usableFromInline
enum _OrderLabels {
  /// The label of the element at `offset` of `count`, spaced evenly over the whole range.
  @inlinable
  static func evenlySpaced(_ offset: Int, of count: Int) -> UInt64 {
    UInt64.max / UInt64(count + 1) * UInt64(offset + 1)
  }

  /// The labels for the elements of a new array that are not kept (new, or retained but out of
  /// order), spaced evenly between the labels of the kept elements around them; `nil` when some
  /// gap has no room (then everything is relabeled).
  ///
  /// - Parameters:
  ///   - keep: Whether each retained element keeps its label, parallel to `retained` (an
  ///     increasing run of labels).
  ///   - retained: The offsets (in the new array) of the elements that were members.
  ///   - labels: Their labels, parallel to `retained`.
  ///   - count: The number of distinct elements of the new array.
  /// - Returns: The offsets of the elements not kept, with their new labels, in order.
  /// - Complexity: O(count).
  @inlinable
  static func between(
    kept keep: [Bool], retained: [Int], labels: [UInt64], count: Int
  ) -> [(offset: Int, label: UInt64)]? {
    var placed: [(offset: Int, label: UInt64)] = []
    var run: [Int] = []
    var low: UInt64 = 0
    func flush(below high: UInt64) -> Bool {
      guard !run.isEmpty else { return true }
      let count = UInt64(run.count)
      guard high > low, (high - low) / (count + 1) >= 2 else { return false }
      let step = (high - low) / (count + 1)
      for (k, offset) in run.enumerated() { placed.append((offset, low + step * UInt64(k + 1))) }
      run.removeAll(keepingCapacity: true)
      return true
    }
    // By retained element, not by offset: the offsets between two retained ones are new
    // elements, appended as a range (a churn of 1% has few, and long stretches of kept ones).
    var offset = 0
    for next in retained.indices {
      let retainedOffset = retained[next]
      if offset < retainedOffset { run.append(contentsOf: offset..<retainedOffset) }
      offset = retainedOffset + 1
      if keep[next] {
        let label = labels[next]
        guard flush(below: label) else { return nil }
        low = label
      } else {
        run.append(retainedOffset)
      }
    }
    if offset < count { run.append(contentsOf: offset..<count) }
    guard flush(below: .max) else { return nil }
    return placed
  }

  /// The labels of an array's elements, by offset, around one element that needs a label.
  @usableFromInline
  struct Neighbourhood {
    /// The number of elements.
    @usableFromInline
    let count: Int
    /// The label of the element at an offset (never asked for the element being labeled).
    @usableFromInline
    let label: (Int) -> UInt64

    /// A label for the element at `index` between its neighbours', or `nil` when they leave no
    /// room. Appends and prepends leave room for more of the same.
    ///
    /// - Complexity: O(1).
    @inlinable
    func between(around index: Int) -> UInt64? {
      let low: UInt64 = index > 0 ? label(index - 1) : 0
      let high: UInt64 = index + 1 < count ? label(index + 1) : .max
      guard high > low && high - low >= 2 else { return nil }
      let gap = high - low
      if index + 1 >= count { return low + min(gap / 2, 1 << 32) }
      if index == 0 { return high - min(gap / 2, 1 << 32) }
      return low + gap / 2
    }

    /// Spreads the labels of the smallest window around `index` (doubling) whose label range
    /// leaves a gap of about its size between neighbours.
    ///
    /// - Returns: The label for `index`, and the new labels of the window's other elements.
    /// - Complexity: Amortized O(log n) over a sequence of inserts.
    @inlinable
    func relabel(around index: Int) -> (label: UInt64, others: [(offset: Int, label: UInt64)]) {
      var size = 2
      while true {
        let lo = max(0, index - size / 2)
        let hi = min(count, lo + size + 1)
        let low: UInt64 = lo > 0 ? label(lo - 1) : 0
        let high: UInt64 = hi < count ? label(hi) : .max
        let width = UInt64(hi - lo)
        let step = high > low ? (high - low) / (width + 1) : 0
        if step >= 2 * width + 2 || (lo == 0 && hi == count) {
          var result: UInt64 = 0
          var others: [(offset: Int, label: UInt64)] = []
          for offset in lo..<hi {
            let label = low + step * UInt64(offset - lo + 1)
            if offset == index {
              result = label
            } else {
              others.append((offset, label))
            }
          }
          return (result, others)
        }
        size *= 2
      }
    }

    @inlinable
    init(count: Int, label: @escaping (Int) -> UInt64) {
      self.count = count
      self.label = label
    }
  }
}
