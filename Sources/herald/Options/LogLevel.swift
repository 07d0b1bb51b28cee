import Logging

extension Logger {
    /// A logger at `HERALD_LOG_LEVEL` (trace, debug, info, notice, warning, error or critical; default info),
    /// the one level setting of every `herald` command.
    static func herald(label: String, environment: [String: String]) throws -> Logger {
        var logger = Logger(label: label)
        guard let text = environment["HERALD_LOG_LEVEL"], !text.isEmpty else { return logger }
        guard let level = Logger.Level(rawValue: text.lowercased()) else {
            let names = Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")
            throw CommandFailure("HERALD_LOG_LEVEL must be one of \(names), not \"\(text)\"")
        }
        logger.logLevel = level
        return logger
    }
}
