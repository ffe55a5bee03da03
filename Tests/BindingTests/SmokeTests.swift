import Binding
import Testing

@Suite struct SmokeTests {
  @Test func directTarget() {
    let user = User()
    let recorder = Recorder<String>()
    user.addTarget(recorder, for: \.name) { r, change in r.values.append("\(change.oldValue)>\(change.newValue)") }
    user.name = "a"
    user.name = "b"
    user.name = "b"
    #expect(recorder.values == [">a", "a>b"])
  }

  @Test func nested() {
    let user = User()
    let recorder = Recorder<String?>()
    let token = user.observe(\.address?.city) { recorder.values.append($0.newValue) }
    let a1 = Address(city: "Paris")
    user.address = a1
    a1.city = "Lyon"
    let a2 = Address(city: "Rome")
    user.address = a2
    a1.city = "Nice"
    a2.city = "Milan"
    user.address = nil
    #expect(recorder.values == ["Paris", "Lyon", "Rome", "Milan", nil])
    token.cancel()
  }
}
