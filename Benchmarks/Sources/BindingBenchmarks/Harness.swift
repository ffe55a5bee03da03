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
