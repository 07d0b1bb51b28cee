/// A failure to report to the operator as one plain sentence, without the usage text that argument errors get.
struct CommandFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) { self.description = description }
}
