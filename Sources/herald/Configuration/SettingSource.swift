import Logging

/// Reads a setting from its flag, else its environment variable; an empty variable counts as unset.
struct SettingSource {
    let environment: [String: String]

    func string(_ flag: String?, _ variable: String) -> String? {
        if let flag, !flag.isEmpty { return flag }
        guard let text = environment[variable], !text.isEmpty else { return nil }
        return text
    }

    func integer(_ flag: Int?, _ variable: String) throws -> Int? {
        if let flag { return flag }
        guard let text = environment[variable], !text.isEmpty else { return nil }
        guard let value = Int(text) else { throw CommandFailure("\(variable) must be a whole number") }
        return value
    }

    func positiveInteger(_ flag: Int?, _ variable: String) throws -> Int? {
        guard let value = try integer(flag, variable) else { return nil }
        guard value > 0 else { throw CommandFailure("\(variable) must be a positive whole number") }
        return value
    }

    /// `HERALD_LOG_LEVEL`: trace, debug, info, notice, warning, error or critical; default info.
    func logLevel() throws -> Logger.Level {
        guard let text = string(nil, "HERALD_LOG_LEVEL") else { return .info }
        guard let level = Logger.Level(rawValue: text.lowercased()) else {
            let names = Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")
            throw CommandFailure("HERALD_LOG_LEVEL must be one of \(names), not \"\(text)\"")
        }
        return level
    }
}
