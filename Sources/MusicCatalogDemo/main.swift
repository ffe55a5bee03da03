// `swift run music-catalog`: MZRelationalCollectionController's example app, a music catalog,
// in the terminal. The demo itself lives in the MusicCatalog target (so that tests drive it).
import Foundation
import MusicCatalog

let usage = """
  usage: music-catalog [--interactive]

    (no option)     run scripted edits of an artist's albums and print each change set
    --interactive   type the edits yourself (rename, year, live, add, remove, …; help lists them)
  """

let arguments = Array(CommandLine.arguments.dropFirst())
let interactive: Bool
switch arguments {
case []: interactive = false
case ["--interactive"], ["-i"]: interactive = true
case ["--help"], ["-h"]:
  print(usage)
  exit(0)
default:
  FileHandle.standardError.write(Data((usage + "\n").utf8))
  exit(2)
}

do {
  let demo = try CatalogDemo(output: { print($0) })
  let fitted: Bool
  if interactive {
    // Piped input is echoed after the prompt, so that the transcript shows the commands.
    let echo = isatty(STDIN_FILENO) == 0
    fitted = try demo.runInteractive(
      prompt: { text in
        print(text, terminator: "")
        fflush(nil)  // all streams: the prompt has no line break to flush it
      },
      readLine: {
        let line = readLine()
        if echo, let line { print(line) }
        return line
      })
  } else {
    fitted = try demo.runScript()
  }
  exit(fitted ? 0 : 1)
} catch {
  FileHandle.standardError.write(Data("music-catalog: \(error)\n".utf8))
  exit(1)
}
