import Binding
import Foundation
import Observation
import OpenCombine
import Synchronization

let quick = CommandLine.arguments.contains("--quick")
if CommandLine.arguments.contains("--profile-target") {
  let model = Observed3()
  let sink = Sink()
  addSyncTarget(model, sink)
  setObserved(model, 20_000_000)
  print(sink.total)
  exit(0)
}
let scale = quick ? 10 : 1
let n = 2_000_000 / scale

var rows: [Row] = []

@MainActor func add(_ name: String, _ value: String, goal: String = "report", met: Bool? = nil) {
  rows.append(Row(name: name, value: value, goal: goal, met: met))
  print(String(format: "%-78@ %14@  %@", name as NSString, value as NSString, goal as NSString)
    + (met.map { $0 ? "  ok" : "  MISSED" } ?? ""))
  fflush(nil)
}

// MARK: Binding

// Each operation is one call of an `@inline(never)` function, so that the optimiser can neither
// merge the stores of a loop nor hoist a load out of it; the call overhead is the same on both
// sides of every ratio.
@inline(never) func set(_ o: Plain3, _ v: Int) { o.age = v }
@inline(never) func set(_ o: Observed3, _ v: Int) { o.age = v }
@inline(never) func set(_ o: DidSet3, _ v: Int) { o.age = v }
@inline(never) func set(_ o: SwiftObservable3, _ v: Int) { o.age = v }
@inline(never) func set(_ o: Published3, _ v: Int) { o.age = v }
@inline(never) func get(_ o: Plain3) -> Int { o.age }
@inline(never) func get(_ o: Observed3) -> Int { o.age }

@inline(never) func setPlain(_ o: Plain3, _ n: Int) { for i in 0..<n { set(o, i) } }
@inline(never) func setObserved(_ o: Observed3, _ n: Int) { for i in 0..<n { set(o, i) } }
// The getters cycle through 64 objects so that the optimiser cannot hoist a read out of the loop.
@inline(never) func getPlain(_ o: [Plain3], _ n: Int) -> Int {
  var s = 0
  for i in 0..<n { s &+= get(o[i & 63]) }
  return s
}
@inline(never) func getObserved(_ o: [Observed3], _ n: Int) -> Int {
  var s = 0
  for i in 0..<n { s &+= get(o[i & 63]) }
  return s
}
@inline(never) func setDidSet(_ o: DidSet3, _ n: Int) { for i in 0..<n { set(o, i) } }
@inline(never) func setSwiftObservable(_ o: SwiftObservable3, _ n: Int) {
  for i in 0..<n { set(o, i) }
}
@inline(never) func setPublished(_ o: Published3, _ n: Int) { for i in 0..<n { set(o, i) } }

/// Registers a target from nonisolated code, so that delivery is synchronous on the mutating
/// thread (registering from the main actor would deliver on the main actor).
nonisolated func addSyncTarget(_ model: Observed3, _ sink: Sink) {
  model.addTarget(sink, for: \.age) { sink, change in sink.total &+= change.newValue &- change.oldValue }
}

let plain = Plain3()
let observed = Observed3()
let plainSet = measure(iterations: n) { setPlain(plain, $0) }
let observedSet = measure(iterations: n) { setObserved(observed, $0) }
add("unobserved @Observed set / plain stored set (Int)", ratio(observedSet / plainSet) + " (\(ns(observedSet)) vs \(ns(plainSet)))", goal: "<= 2x", met: observedSet / plainSet <= 2)
let plains = (0..<64).map { _ in Plain3() }
let observeds = (0..<64).map { _ in Observed3() }
let plainGet = measure(iterations: n) { blackHole(getPlain(plains, $0)) }
let observedGet = measure(iterations: n) { blackHole(getObserved(observeds, $0)) }
add("untracked @Observed get / plain get (Int)", ratio(observedGet / plainGet) + " (\(ns(observedGet)) vs \(ns(plainGet)))", goal: "<= 2x", met: observedGet / plainGet <= 2)

let didSet = DidSet3()
let didSetSink = Sink()
didSet.onAge = opaqueAdder(didSetSink)
let didSetCost = measure(iterations: n) { setDidSet(didSet, $0) }

let targeted = Observed3()
let targetSink = Sink()
addSyncTarget(targeted, targetSink)
let targetCost = measure(iterations: n) { setObserved(targeted, $0) }
add("one synchronous target / didSet calling one stored closure", ratio(targetCost / didSetCost) + " (\(ns(targetCost)) vs \(ns(didSetCost)))", goal: "<= 2x", met: targetCost / didSetCost <= 2)

let tracked = SwiftObservable3()
let rearmCount = n / 20
var rearmed = 0
final class Counter: Sendable { let value = Atomic<Int>(0) }
func rearm(_ model: SwiftObservable3, _ counter: Counter) {
  withObservationTracking { _ = model.age } onChange: { counter.value.add(1, ordering: .relaxed) }
}
let counter = Counter()
let rearmCost = measure(iterations: rearmCount) { count in
  for i in 0..<count {
    rearm(tracked, counter)
    tracked.age = i
  }
}
add("withObservationTracking re-arm loop / one synchronous target", ratio(rearmCost / targetCost) + " (\(ns(rearmCost)))", goal: ">= 30x", met: rearmCost / targetCost >= 30)

let published = Published3()
let publishedSink = Sink()
let cancellable = published.$age.sink { publishedSink.total &+= $0 }
let publishedCost = measure(iterations: n) { setPublished(published, $0) }
add("OpenCombine @Published + sink / one synchronous target", ratio(publishedCost / targetCost) + " (\(ns(publishedCost)))", goal: ">= 8x", met: publishedCost / targetCost >= 8)
blackHole(cancellable)

let swiftObservable = SwiftObservable3()
let swiftObservableSet = measure(iterations: n) { setSwiftObservable(swiftObservable, $0) }
add("@Observable unobserved set / unobserved @Observed set", ratio(swiftObservableSet / observedSet) + " (\(ns(swiftObservableSet)) vs \(ns(observedSet)))")

blackHole((didSetSink.total, targetSink.total, counter.value.load(ordering: .relaxed)))
