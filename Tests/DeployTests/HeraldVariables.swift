import Foundation

/// The environment variables Herald reads, taken from its own sources rather than a list that could drift: every
/// string literal shaped like a variable name (`APNS_KEY_ID`, `HERALD_PORT`, …) in the modules `herald` runs.
enum HeraldVariables {
    static let modules = [
        "Sources/herald", "Sources/APNs", "Sources/HeraldCore", "Sources/HeraldServer", "Sources/Postgres",
    ]

    static func read() throws -> Set<String> {
        var names: Set<String> = []
        for module in modules {
            let folder = RepositoryFiles.url(module)
            guard let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else {
                continue
            }
            for case let file as URL in files where file.pathExtension == "swift" {
                let source = try String(contentsOf: file, encoding: .utf8)
                for match in source.matches(of: #/"([A-Z][A-Z0-9]*_[A-Z0-9_]+)"/#) {
                    names.insert(String(match.output.1))
                }
            }
        }
        return names
    }

    /// The page whose configuration reference documents every variable, each in backticks.
    static let referencePage = "docs/operations.md"

    /// The names among `names` that Herald neither reads nor documents in ``referencePage``.
    static func unknown(_ names: some Sequence<String>) throws -> [String] {
        let read = try read()
        let reference = try RepositoryFiles.text(referencePage)
        return names.filter { !read.contains($0) || !reference.contains("`\($0)`") }.sorted()
    }
}
