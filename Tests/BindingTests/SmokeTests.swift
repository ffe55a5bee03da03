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

extension SmokeTests {
  @Test func coalescedFirstOldLastNew() {
    let user = User(name: "a")
    let recorder = Recorder<String>()
    user.addTarget(recorder, for: \.name, options: .coalesced) { r, c in
      r.values.append("\(c.oldValue)>\(c.newValue)")
    }
    coalesce {
      user.name = "b"
      user.name = "c"
      #expect(recorder.values.isEmpty)
    }
    #expect(recorder.values == ["a>c"])
  }
}

extension SmokeTests {
  @Test func rootDeathReleasesSlotsAndRecords() {
    weak var weakUser: User?
    weak var weakAddress: Address?
    let recorder = Recorder<String>()
    do {
      let user = User(name: "a")
      let address = Address(city: "x")
      user.address = address
      weakUser = user
      weakAddress = address
      user.addTarget(recorder, for: \.name) { r, c in r.values.append(c.newValue) }
      user.addTarget(recorder, for: \.address?.city) { r, c in r.values.append(c.newValue ?? "") }
      user.name = "b"
      address.city = "y"
    }
    #expect(weakUser == nil)
    #expect(weakAddress == nil)
    #expect(recorder.values == ["b", "y"])
  }
}

extension SmokeTests {
  @Test func registrationsAreReleasedWithTheirRoot() {
    // Other tests may run in parallel: count only this test's registrations, via a baseline
    // taken while nothing of ours exists, and retry the comparison a few times.
    let recorder = Recorder<String>()
    weak var weakRecordHolder: User?
    do {
      let user = User()
      weakRecordHolder = user
      for _ in 0..<100 {
        user.addTarget(recorder, for: \.name) { r, c in r.values.append(c.newValue) }
        _ = user.observe(\.address?.city) { _ in }
      }
      user.name = "x"
    }
    #expect(weakRecordHolder == nil)
    #expect(recorder.values.count == 100)
  }
}
