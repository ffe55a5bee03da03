import Foundation

/// Traps with `message` unless `condition` holds, in every build configuration.
///
/// For programmer errors that callers must be told about (an index out of range): `precondition`
/// keeps its check in optimised builds but drops its message there, so a release build would
/// trap without saying what is wrong. `Array` names the problem in every build; so do we.
@inline(__always)
@inlinable
func _require(
  _ condition: Bool, _ message: @autoclosure () -> String, file: StaticString = #file,
  line: UInt = #line
) {
  if !condition { fatalError(message(), file: file, line: line) }
}
