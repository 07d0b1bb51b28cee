public import Foundation

/// Finds `openapi.yaml`: beside the working directory, in `share/herald` next to the installed binary, or in the
/// source tree the binary was built from, so `herald serve` serves it from any directory.
public enum OpenAPIDocument {
    public static func load(
        workingDirectory: URL = URL(fileURLWithPath: FileManager.default.currentDirectoryPath),
        executable: URL = URL(fileURLWithPath: CommandLine.arguments.first ?? "")
    ) -> String? {
        let sourceTree = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let candidates = [
            workingDirectory.appendingPathComponent("openapi.yaml"),
            executable.resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent(
                "../share/herald/openapi.yaml"),
            sourceTree.appendingPathComponent("openapi.yaml"),
        ]
        for candidate in candidates {
            if let text = try? String(contentsOf: candidate, encoding: .utf8) { return text }
        }
        return nil
    }
}
