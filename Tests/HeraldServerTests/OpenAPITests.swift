import Foundation
import HTTPTypes
import HeraldCore
import HeraldServer
import HeraldTesting
import Hummingbird
import Postgres
import Testing
import Yams

@Suite(.sharesMachine, .timeLimit(.minutes(1))) struct OpenAPITests {
    /// `(method, path)` of every operation under `paths:` in the document.
    static func operations(in document: String) -> Set<String> {
        var result: Set<String> = []
        var inPaths = false
        var path: String?
        for line in document.split(separator: "\n", omittingEmptySubsequences: false) {
            if line == "paths:" {
                inPaths = true
                continue
            }
            guard inPaths else { continue }
            if !line.isEmpty, !line.hasPrefix(" ") { break }
            if line.hasPrefix("  /"), line.hasSuffix(":"), !line.hasPrefix("   ") {
                path = String(line.dropFirst(2).dropLast())
            } else if line.hasPrefix("    "), !line.hasPrefix("     "), let path {
                let key = line.trimmingCharacters(in: .whitespaces).dropLast()
                if ["get", "put", "post", "patch", "delete"].contains(String(key)) {
                    result.insert("\(key.uppercased()) \(path)")
                }
            }
        }
        return result
    }

    /// Every response of every operation is a map a YAML parser reads: a status listed among another status's
    /// lines breaks the document for every client generator while the line-based checks here still pass.
    @Test func theDocumentIsValidYAMLWithAResponseMapPerOperation() throws {
        let document = try #require(OpenAPIDocument.load())
        let root = try #require(try Yams.load(yaml: document) as? [String: Any])
        let paths = try #require(root["paths"] as? [String: Any])
        var operations = 0
        for (path, item) in paths {
            let methods = try #require(item as? [String: Any], "\(path)")
            for (method, operation) in methods where ["get", "put", "post", "patch", "delete"].contains(method) {
                let responses = try #require((operation as? [String: Any])?["responses"] as? [String: Any])
                for (status, response) in responses {
                    #expect(response is [String: Any], "\(method) \(path) \(status)")
                }
                operations += 1
            }
        }
        #expect(operations == 56)
    }

    @Test func documentAndRoutesAgree() async throws {
        let harness = try await APIHarness.make()
        defer { harness.client.shutdown() }
        let document = try #require(OpenAPIDocument.load())
        let router = HeraldApplication.router(settings: harness.settings, services: harness.services)
        let served = Set(router.routes.map { "\($0.method.rawValue) \($0.path)" })
        let documented = Self.operations(in: document)
        #expect(served.count == 56)
        #expect(served.subtracting(documented).isEmpty, "undocumented: \(served.subtracting(documented).sorted())")
        #expect(documented.subtracting(served).isEmpty, "not served: \(documented.subtracting(served).sorted())")
    }

    @Test func theDocumentIsServed() async throws {
        let harness = try await APIHarness.make()
        let onDisk = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("openapi.yaml"), encoding: .utf8)
        try await harness.run { api in
            let answer = try await api.call(.get, "/openapi.yaml")
            #expect(answer.status == .ok)
            #expect(answer.text == onDisk)
            #expect(answer.headers[.contentType]?.hasPrefix("application/yaml") == true)
        }
    }
}
