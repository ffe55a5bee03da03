// The benchmark of the package: every figure is a ratio against a baseline measured in the
// same run, because the machines are shared and noisy.
//
// How the figures are measured (so that they mean the same next time):
// - Time: best of 5 repetitions of N iterations (2,000,000; 200,000 with --quick), nanoseconds
//   per iteration from DispatchTime. Values are `Int` (`age`), set to the loop index so that
//   every write changes the value.
// - Inlining: each set or get is one call of an `@inline(never)` function, for the baseline and
//   for the candidate alike, so that the optimiser can neither merge a loop's stores nor hoist a
//   read out of it; the getters read from 64 objects in turn for the same reason. The property
//   accessors themselves inline as they do in user code (the `@Observed` accessors are
//   `@inline(__always)`).
// - "didSet calling one stored closure": a class whose `age` has a `didSet` calling a closure
//   stored in a property, made by an `@inline(never)` factory so that it stays opaque.
// - "one synchronous target": `addTarget` registered from nonisolated code (so delivery is
//   synchronous), the target held weakly as the API promises; "observe closure" is the same
//   with a token and a closure that holds the sink strongly, like the baseline's closure.
// - Swift Observation re-arm loop: `withObservationTracking` on `age`, then a write, per
//   iteration (the loop `@Observable` users write to hear every change).
// - OpenCombine: `@Published var age` with one `sink`.
// - Memory: glibc's `mallinfo2().uordblks` before and after creating 10^6 objects into an array
//   reserved beforehand, divided by 10^6; it includes malloc's rounding (a 48-byte object takes
//   a 64-byte chunk). The model has `String`, `Int` and `Double` properties.
// - Coalescing: 10 coalesced targets on one property, 1,000 writes inside one `coalesce` block.

import Binding
import CHeapStats
import Foundation
import Observation
import OpenCombine
import Synchronization

let quick = CommandLine.arguments.contains("--quick")
if CommandLine.arguments.contains("--profile-target") {
  let model = Observed3()
  let sink = Sink()
  let token = addSyncObserver(model, sink)
  setObserved(model, 20_000_000)
  blackHole(token)
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

/// Registers a target-less observer (a closure holding the sink strongly, like the `didSet`
/// baseline's stored closure) from nonisolated code.
nonisolated func addSyncObserver(_ model: Observed3, _ sink: Sink) -> ObservationToken {
  model.observe(\.age) { change in sink.total &+= change.newValue &- change.oldValue }
}

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

let observedByClosure = Observed3()
let closureSink = Sink()
let closureToken = addSyncObserver(observedByClosure, closureSink)
let closureCost = measure(iterations: n) { setObserved(observedByClosure, $0) }
add("one synchronous observer closure (observe) / didSet calling one stored closure", ratio(closureCost / didSetCost) + " (\(ns(closureCost)))", goal: "<= 2x", met: closureCost / didSetCost <= 2)
blackHole(closureToken)

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

// MARK: Memory

/// Bytes allocated per object when 10^6 objects are created into a reserved array, read from
/// glibc's `mallinfo2()` (bytes in use), so malloc's own rounding is included.
func bytesPerObject<T>(_ make: () -> T) -> Double {
  let count = 1_000_000 / scale
  var objects: [T] = []
  objects.reserveCapacity(count)
  let before = heap_bytes_in_use()
  for _ in 0..<count { objects.append(make()) }
  let after = heap_bytes_in_use()
  blackHole(objects)
  return Double(after - before) / Double(count)
}
let plainBytes = bytesPerObject { Plain3() }
let observedBytes = bytesPerObject { Observed3() }
let swiftObservableBytes = bytesPerObject { SwiftObservable3() }
add("memory, 3 properties nobody observes: @Observed / plain class", ratio(observedBytes / plainBytes) + " (\(Int(observedBytes)) B vs \(Int(plainBytes)) B)", goal: "<= 1.5x", met: observedBytes / plainBytes <= 1.5)
add("memory: Swift @Observable / plain class", ratio(swiftObservableBytes / plainBytes) + " (\(Int(swiftObservableBytes)) B)")

// MARK: Coalescing

nonisolated func addCoalescedTargets(_ model: Observed3, _ sinks: [Sink]) {
  for sink in sinks {
    model.addTarget(sink, for: \.age, options: .coalesced) { sink, _ in sink.total &+= 1 }
  }
}
let coalescedModel = Observed3()
let coalescedSinks = (0..<10).map { _ in Sink() }
addCoalescedTargets(coalescedModel, coalescedSinks)
let blocks = 2_000 / scale
let blockCost = measure(iterations: blocks) { count in
  for block in 0..<count {
    coalesce {
      for edit in 0..<1_000 { set(coalescedModel, block &* 1_000 &+ edit &+ 1) }
    }
  }
}
let deliveries = coalescedSinks.map(\.total).reduce(0, +)
let blocksRun = blocks * 5
add("10 targets, 1,000 edits in one coalesce block: time per block", String(format: "%.1f us", blockCost / 1_000))
add("  deliveries per target per block (expect 1)", String(format: "%.2f", Double(deliveries) / Double(10 * blocksRun)), goal: "1", met: deliveries == 10 * blocksRun)

blackHole((didSetSink.total, targetSink.total, counter.value.load(ordering: .relaxed)))
