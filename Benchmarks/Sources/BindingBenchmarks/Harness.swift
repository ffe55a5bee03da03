import Dispatch

/// Keeps a value alive and opaque to the optimiser.
@inline(never)
func blackHole<T>(_ value: T) {
  withExtendedLifetime(value) {}
}

/// Nanoseconds per iteration of `body`, best of `repetitions` runs of `iterations` each.
///
/// The best run is the least disturbed by other work on a shared machine; every figure in the
/// report is a ratio of two such measurements taken in the same process.
func measure(
  iterations: Int, repetitions: Int = 5, _ body: (Int) -> Void
) -> Double {
  var best = Double.infinity
  for _ in 0..<repetitions {
    let start = DispatchTime.now().uptimeNanoseconds
    body(iterations)
    let elapsed = DispatchTime.now().uptimeNanoseconds - start
    best = min(best, Double(elapsed) / Double(iterations))
  }
  return best
}

/// One line of the report.
struct Row {
  let name: String
  let value: String
  let goal: String
  let met: Bool?
}

/// Formats nanoseconds.
func ns(_ value: Double) -> String {
  value < 10 ? String(format: "%.2f ns", value) : String(format: "%.1f ns", value)
}

/// Formats a ratio.
func ratio(_ value: Double) -> String { String(format: "%.2fx", value) }

/// Formats bytes.
func bytes(_ value: Double) -> String { "\(Int(value.rounded())) B" }

/// Variants measured in interleaved rounds: each round runs every variant once, in the order
/// they were added, so that a disturbance of the machine hits all of them alike; a ratio is
/// computed within each round, and the report gives the median of the rounds with their
/// spread (never the best of N).
@MainActor
final class Rounds {
  private var bodies: [(iterations: Int, body: (Int) -> Void)] = []
  private var samples: [[Double]] = []

  /// Adds a variant: `body(iterations)` runs `iterations` operations. Returns its index.
  func add(iterations: Int, _ body: @escaping (Int) -> Void) -> Int {
    bodies.append((iterations, body))
    samples.append([])
    return bodies.count - 1
  }

  /// Runs `count` rounds (after one warm-up round that is not kept).
  func run(_ count: Int) {
    for round in 0...count {
      for (index, variant) in bodies.enumerated() {
        let start = DispatchTime.now().uptimeNanoseconds
        variant.body(variant.iterations)
        let elapsed = DispatchTime.now().uptimeNanoseconds - start
        if round > 0 { samples[index].append(Double(elapsed) / Double(variant.iterations)) }
      }
    }
  }

  /// The median nanoseconds per operation of a variant.
  func median(_ index: Int) -> Double { Spread(samples[index]).median }

  /// The per-round ratios `value / baseline`.
  func ratios(_ value: Int, over baseline: Int) -> Spread {
    Spread(zip(samples[value], samples[baseline]).map { $0 / $1 })
  }
}

/// The median and the range of a set of samples.
struct Spread {
  let median: Double
  let low: Double
  let high: Double

  init(_ values: [Double]) {
    let sorted = values.sorted()
    let middle = sorted.count / 2
    median =
      sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    low = sorted.first ?? .nan
    high = sorted.last ?? .nan
  }
}
