/// Prints a header, then runs one example.
public func example(_ title: String, _ body: () throws -> Void) rethrows {
  print("\n--- \(title) ---")
  try body()
}
