import Foundation
import Testing

/// The documents hold to Herald and to each other: every variable Herald reads is in the configuration reference,
/// and every relative link between them leads to a file, and to a heading of it when it names one. A page that is
/// renamed, or a heading that is reworded, then fails here instead of leaving a reader at a dead link.
@Suite struct DocumentationTests {
    /// The README, every page under `docs/` and the runbook, as paths in the repository.
    static func documents() throws -> [String] {
        ["README.md", "deploy/RUNBOOK.md"]
            + (try RepositoryFiles.files(in: "docs", endingWith: ".md")).map { "docs/\($0)" }
    }

    @Test func everyVariableHeraldReadsIsInTheConfigurationReference() throws {
        let read = try HeraldVariables.read()
        #expect(read.contains("DATABASE_URL") && read.contains("APNS_KEY_ID"), "the sources were read: \(read)")
        let undocumented = try HeraldVariables.unknown(read)
        #expect(undocumented.isEmpty, "read by Herald but not in \(HeraldVariables.referencePage): \(undocumented)")
    }

    @Test func relativeLinksLeadToAFileAndHeading() throws {
        let documents = try Self.documents()
        #expect(documents.contains("docs/operations.md") && documents.contains("docs/api.md"))
        var checked = 0
        for document in documents {
            for link in MarkdownDocument(try RepositoryFiles.text(document)).relativeLinks {
                checked += 1
                let (path, fragment) = Self.split(link)
                guard let target = Self.resolve(path, from: document),
                    FileManager.default.fileExists(atPath: RepositoryFiles.url(target).path)
                else {
                    Issue.record("\(document) links to \(link), which is no file of the repository")
                    continue
                }
                guard let fragment else { continue }
                let anchors = MarkdownDocument(try RepositoryFiles.text(target)).headingAnchors
                #expect(anchors.contains(fragment), "\(document) links to \(link): \(target) has no such heading")
            }
        }
        #expect(checked > 20, "the documents link to each other")
    }

    /// The repository path a link's path leads to from `document`: `../deploy/RUNBOOK.md` from `docs/api.md` is
    /// `deploy/RUNBOOK.md`, an empty path the document itself; nil when it climbs out of the repository.
    static func resolve(_ path: String, from document: String) -> String? {
        guard !path.isEmpty else { return document }
        var components = document.split(separator: "/").dropLast().map(String.init)
        for component in path.split(separator: "/") {
            switch component {
            case ".": continue
            case "..":
                guard !components.isEmpty else { return nil }
                components.removeLast()
            default: components.append(String(component))
            }
        }
        return components.joined(separator: "/")
    }

    /// `docs/api.md#who-may-call-what` → (`docs/api.md`, `who-may-call-what`).
    static func split(_ link: String) -> (path: String, fragment: String?) {
        guard let hash = link.firstIndex(of: "#") else { return (link, nil) }
        return (String(link[..<hash]), String(link[link.index(after: hash)...]))
    }
}

/// A Markdown text as far as links and headings go, with fenced code blocks left out: a `#` comment in a shell
/// example is not a heading, and `](` in code is not a link.
struct MarkdownDocument {
    let proseLines: [Substring]

    init(_ text: String) {
        var inFence = false
        var lines: [Substring] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") {
                inFence.toggle()
            } else if !inFence {
                lines.append(line)
            }
        }
        proseLines = lines
    }

    /// The targets of `[text](target)` links that stay in the repository (no scheme such as `https:`).
    var relativeLinks: [String] {
        proseLines.flatMap { line in
            line.matches(of: /\]\(([^)\s]+)\)/).map { String($0.output.1) }
        }.filter { $0.firstMatch(of: /^[a-z]+:/) == nil }
    }

    /// The anchors GitHub gives the headings, a repeated one numbered from `-1` as GitHub does.
    var headingAnchors: Set<String> {
        var seen: [String: Int] = [:]
        var anchors: Set<String> = []
        for line in proseLines {
            guard let heading = line.firstMatch(of: /^#{1,6} (.+)$/)?.output.1 else { continue }
            let anchor = Self.anchor(of: String(heading))
            if let count = seen[anchor] {
                seen[anchor] = count + 1
                anchors.insert("\(anchor)-\(count + 1)")
            } else {
                seen[anchor] = 0
                anchors.insert(anchor)
            }
        }
        return anchors
    }

    /// GitHub's anchor for a heading: lower-cased, spaces made hyphens, every other character but letters, digits,
    /// `-` and `_` dropped (so "From Swift: HeraldClient" gives `from-swift-heraldclient`).
    static func anchor(of heading: String) -> String {
        String(
            heading.lowercased().compactMap { character -> Character? in
                if character == " " { return "-" }
                return character.isLetter || character.isNumber || character == "-" || character == "_"
                    ? character : nil
            })
    }
}
