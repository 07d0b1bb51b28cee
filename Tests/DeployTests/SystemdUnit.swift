import Foundation

/// A systemd unit file as systemd reads it: `[Section]` headers and `Key=value` lines, `#` and `;` comments,
/// a trailing backslash continuing a line. A key may repeat (systemd appends, or resets on an empty value), so
/// each key keeps every value in order.
struct SystemdUnit {
    struct ParseError: Error, CustomStringConvertible {
        let line: Int
        let reason: String
        var description: String { "line \(line): \(reason)" }
    }

    private var settings: [String: [String: [String]]] = [:]

    init(parsing text: String) throws {
        var section: String?
        var pending = ""
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = pending + rawLine.trimmingCharacters(in: .whitespaces)
            if line.hasSuffix("\\") {
                pending = String(line.dropLast()) + " "
                continue
            }
            pending = ""
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("[") {
                guard line.hasSuffix("]") else { throw ParseError(line: index + 1, reason: "unclosed section header") }
                section = String(line.dropFirst().dropLast())
                continue
            }
            guard let current = section else { throw ParseError(line: index + 1, reason: "setting before a section") }
            guard let equals = line.firstIndex(of: "=") else {
                throw ParseError(line: index + 1, reason: "no '=' in \"\(line)\"")
            }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces)
            let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            settings[current, default: [:]][key, default: []].append(value)
        }
    }

    /// Every value given for `key` in `section`, in order.
    func values(_ key: String, in section: String = "Service") -> [String] {
        settings[section]?[key] ?? []
    }

    /// The value systemd uses for a single-valued `key`: the last one.
    func value(_ key: String, in section: String = "Service") -> String? {
        values(key, in: section).last
    }

    /// `Environment=` assignments, `NAME=value` separated by spaces.
    var environment: [String: String] {
        var variables: [String: String] = [:]
        for line in values("Environment") {
            for assignment in line.split(separator: " ") {
                let parts = assignment.split(separator: "=", maxSplits: 1)
                variables[String(parts[0])] = parts.count == 2 ? String(parts[1]) : ""
            }
        }
        return variables
    }
}
