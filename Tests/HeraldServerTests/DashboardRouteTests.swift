import Foundation
import HTTPTypes
import HeraldServer
import HeraldTesting
import Testing

/// The dashboard's files are served without credentials, with their types, no caching of stale copies, and a
/// policy that lets the page load nothing but its own script and style and talk to nothing but this server.
@Suite(.sharesMachine, .timeLimit(.minutes(1))) struct DashboardRouteTests {
    static let files = [
        ("/dashboard", "text/html; charset=utf-8", "index.html"),
        ("/dashboard/dashboard.css", "text/css; charset=utf-8", "dashboard.css"),
        ("/dashboard/dashboard.js", "text/javascript; charset=utf-8", "dashboard.js"),
    ]

    static func source(_ name: String) throws -> String {
        try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("Sources/HeraldServer/Dashboard/\(name)"),
            encoding: .utf8)
    }

    @Test func theFilesAreServedAsTheyAreInTheSourceTree() async throws {
        let harness = try await APIHarness.make()
        try await harness.run { api in
            for (path, contentType, name) in Self.files {
                let answer = try await api.call(.get, path)
                #expect(answer.status == .ok, "\(path)")
                #expect(answer.headers[.contentType] == contentType)
                #expect(answer.headers[.cacheControl] == "no-cache")
                #expect(answer.headers[.xContentTypeOptions] == "nosniff")
                let policy = try #require(answer.headers[.contentSecurityPolicy])
                #expect(policy.hasPrefix("default-src 'self';"))
                #expect(!policy.contains("unsafe"))
                #expect(answer.text == (try Self.source(name)))
            }
            let unknown = try await api.call(.get, "/dashboard/secrets.txt")
            #expect(unknown.status == .notFound)
        }
    }

    /// Everything the page shows comes from the API, so every value must enter the page as text.
    @Test func theScriptInsertsDataOnlyAsTextAndLoadsNothingFromElsewhere() throws {
        let script = try Self.source("dashboard.js")
        for markupSink in ["innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("] {
            #expect(!script.contains(markupSink), "\(markupSink)")
        }
        let page = try Self.source("index.html")
        #expect(page.contains(#"<meta name="viewport" content="width=device-width, initial-scale=1">"#))
        // The SVG namespace is a name, not something fetched.
        for file in [page, script, try Self.source("dashboard.css")] {
            let references = file.replacingOccurrences(of: "http://www.w3.org/2000/svg", with: "")
            #expect(
                !references.contains("http://") && !references.contains("https://") && !references.contains("//cdn"))
        }
        #expect(!page.contains("<script>") && !page.contains(" style="), "no inline script or style for the CSP")
    }
}
