import Foundation
import HeraldTesting
import Yams

/// Files of the repository these tests were built from, found from this source file's path.
enum RepositoryFiles {
    static func url(_ relativePath: String) -> URL { Repository.root.appendingPathComponent(relativePath) }

    static func text(_ relativePath: String) throws -> String {
        try String(contentsOf: url(relativePath), encoding: .utf8)
    }

    /// Every document of a YAML file (Kubernetes files hold several, separated by `---`).
    static func yamlDocuments(_ relativePath: String) throws -> [Node] {
        var documents = try Yams.compose_all(yaml: text(relativePath))
        var nodes: [Node] = []
        while let node = documents.next() { nodes.append(node) }
        if let error = documents.error { throw error }
        return nodes
    }

    /// The names of the files in a folder of the repository ending in `suffix`, sorted.
    static func files(in folder: String, endingWith suffix: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: url(folder).path)
            .filter { $0.hasSuffix(suffix) }.sorted()
    }
}
