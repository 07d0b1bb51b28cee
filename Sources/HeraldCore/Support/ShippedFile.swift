public import Foundation

/// Files Herald ships beside its binary (the migrations, `openapi.yaml`): found in the working directory, in
/// `share/herald` next to the installed binary, or in the source tree the binary was built from.
public enum ShippedFile {
    /// The running binary, read from `/proc/self/exe`: `argv[0]` is a bare name when `herald` is found on `PATH`.
    public static var runningExecutable: URL {
        let link = URL(fileURLWithPath: "/proc/self/exe")
        if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: link.path) {
            return URL(fileURLWithPath: target)
        }
        return URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath()
    }

    /// The first existing `name` (in the working directory or source tree) or `share/herald/<installedName>` that
    /// is a folder when `isFolder`, else a file.
    public static func locate(
        _ name: String, installedName: String, isFolder: Bool,
        workingDirectory: URL = URL(fileURLWithPath: FileManager.default.currentDirectoryPath),
        executable: URL = runningExecutable
    ) -> URL? {
        let sourceTree = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let candidates = [
            workingDirectory.appendingPathComponent(name),
            executable.deletingLastPathComponent().appendingPathComponent("../share/herald/\(installedName)"),
            sourceTree.appendingPathComponent(name),
        ]
        return candidates.first { candidate in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory)
                && isDirectory.boolValue == isFolder
        }?.standardizedFileURL
    }
}
