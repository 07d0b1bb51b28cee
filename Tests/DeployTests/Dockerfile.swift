import Foundation

/// A Dockerfile's instructions in order, with continuation lines joined and comments dropped.
struct Dockerfile {
    struct Instruction {
        let keyword: String
        let arguments: String
    }

    let instructions: [Instruction]

    init(parsing text: String) {
        var instructions: [Instruction] = []
        var pending = ""
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("#") { continue }
            if line.hasSuffix("\\") {
                pending += line.dropLast() + " "
                continue
            }
            let whole = (pending + line).trimmingCharacters(in: .whitespaces)
            pending = ""
            guard !whole.isEmpty else { continue }
            let keyword = whole.prefix { !$0.isWhitespace }
            instructions.append(
                Instruction(
                    keyword: keyword.uppercased(),
                    arguments: whole.dropFirst(keyword.count).trimmingCharacters(in: .whitespaces)))
        }
        self.instructions = instructions
    }

    /// The build stages, each starting at its `FROM`.
    var stages: [[Instruction]] {
        var stages: [[Instruction]] = []
        for instruction in instructions {
            if instruction.keyword == "FROM" { stages.append([]) }
            if !stages.isEmpty { stages[stages.count - 1].append(instruction) }
        }
        return stages
    }

    /// The `ENV` assignments of a stage (`NAME=value` pairs).
    static func environment(of stage: [Instruction]) -> [String: String] {
        var variables: [String: String] = [:]
        for instruction in stage where instruction.keyword == "ENV" {
            for assignment in instruction.arguments.split(whereSeparator: \.isWhitespace) {
                let parts = assignment.split(separator: "=", maxSplits: 1)
                if parts.count == 2 { variables[String(parts[0])] = String(parts[1]) }
            }
        }
        return variables
    }
}
