import APNsCore
import Foundation
import Testing

@testable import HeraldCore

/// The expansion statement reads `notifications.targets` in SQL; these tests hold it to the keys the Swift type writes.
@Suite struct NotificationTargetsTests {
    let everything = NotificationTargets(
        actor: ExternalID("actor"), submitter: .user(ExternalID("submitter")!), voters: [.email("v@example.com")],
        votersOfFeedback: "f-1", userIDs: [ExternalID("u-1")!], deviceIDs: [UUID()], project: ExternalID("p-1"),
        app: ExternalID("app-1"),
        pushToStart: ActivityAttributesType("DeliveryAttributes"), activity: ExternalID("activity-1"))

    func keys(_ value: some Encodable) throws -> Set<String> {
        let json = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(value))
        guard case .object(let members) = json else { return [] }
        return Set(members.keys)
    }

    func captures(_ pattern: String) throws -> Set<String> {
        let sql = NotificationExpander.ExpandNextStatement.sql
        return Set(sql.matches(of: try Regex(pattern)).compactMap { $0.output[1].substring.map(String.init) })
    }

    @Test func theExpansionReadsEveryTargetKeyByTheNameTheTypeWrites() throws {
        let read = try captures(#"targets\s*(?:->>|->|\?)\s*'(\w+)'"#)
        #expect(read == (try keys(everything)))
        #expect(read == Set(NotificationTargets.Key.allCases.map(\.stringValue)))
    }

    @Test func theExpansionReadsPeopleByTheNamesTheirReferencesWrite() throws {
        let read = try captures(#"(?:person|'submitter')\s*->>\s*'(\w+)'"#)
        let written = try keys(PersonReference.user(ExternalID("u")!)).union(keys(PersonReference.email("e@x.org")))
        #expect(read == written)
    }

    @Test func roundTripsWithLowercaseDeviceIDs() throws {
        let data = try JSONEncoder().encode(everything)
        #expect(try JSONDecoder().decode(NotificationTargets.self, from: data) == everything)
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains(everything.deviceIDs[0].uuidString.lowercased()))
    }
}
