/// The catalog the demo starts from. The artists and albums are made up.
extension Catalog {
  static func sample() -> Catalog {
    Catalog([
      Artist(
        "The Harbour Lights",
        albums: [
          album("Low Tide", 1974, ["Low Tide": 262, "Driftwood": 231, "Gulls": 305]),
          album("Salt & Signal", 1977, ["Signal": 248, "Salt": 290, "Mooring": 356]),
          album("Live at the Pier", 1978, live: true, ["Low Tide (live)": 421, "Gulls": 512]),
          album("Night Ferry", 1981, ["Night Ferry": 334, "Crossing": 282, "Foghorn": 198]),
          album("Paper Lanterns", 1984, ["Lanterns": 241, "Kites": 215, "Paper Moon": 268]),
          album("Semaphore", 1989, ["Flags": 226, "Semaphore": 402]),
          album("Lights Out: Live '91", 1991, live: true, ["Night Ferry": 515, "Flags": 380]),
          album("Undertow", 1993, ["Undertow": 372, "Riptide": 254, "Slack Water": 301]),
          album("Breakwater", 1997, ["Breakwater": 288, "Harbour Wall": 317]),
        ]),
      Artist(
        "Mira Okafor",
        albums: [
          album("First Light", 2008, ["Dawn Chorus": 212, "Early": 198]),
          album("Field Notes", 2012, ["Notebook": 245, "Meadow": 233, "Heron": 276]),
        ]),
    ])
  }

  private static func album(
    _ title: String, _ year: Int, live: Bool = false, _ tracks: KeyValuePairs<String, Int>
  ) -> Album {
    Album(
      title, year: year, isLive: live,
      tracks: tracks.map { Track($0.key, seconds: $0.value) })
  }
}
