import ArgumentParser
import Foundation

/// The files both commands read and write.
struct FileOptions: ParsableArguments {
    @Option(help: "Every email of the mailbox, as {\"emails\": [...]}; actions and new emails are written back.")
    var mailbox: String

    @Option(help: "State file: delivered emails and the last badge. Missing: this run is the first launch.")
    var state: String

    var mailboxURL: URL { URL(fileURLWithPath: mailbox) }
    var stateURL: URL { URL(fileURLWithPath: state) }
}
