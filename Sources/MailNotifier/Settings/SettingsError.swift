/// Why settings could not be read, written or changed.
public enum SettingsError: Error, Hashable, Sendable, CustomStringConvertible {
    case minuteOutOfRange(key: String, value: Int)
    case unknownTimeZone(String)
    case missing(path: String)
    case unreadable(path: String, reason: String)
    case corrupt(path: String, reason: String)
    case writeFailed(path: String, reason: String)

    public var description: String {
        switch self {
        case .minuteOutOfRange(let key, let value): "\(key) must be a minute of the day (0...1439), got \(value)"
        case .unknownTimeZone(let identifier): "unknown time zone \(identifier)"
        case .missing(let path): "no settings file at \(path); using defaults"
        case .unreadable(let path, let reason): "cannot read settings file \(path): \(reason)"
        case .corrupt(let path, let reason): "settings file \(path) is not valid: \(reason)"
        case .writeFailed(let path, let reason): "cannot write settings file \(path): \(reason)"
        }
    }
}
