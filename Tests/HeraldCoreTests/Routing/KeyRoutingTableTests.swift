import Foundation
import HeraldTesting
import Testing

@testable import HeraldCore

/// The routing rules alone: which keys may sign a topic, in which order, and for how long a paused key waits.
@Suite struct KeyRoutingTableTests {
    typealias Table = KeyRoutingTable<TestClock.Instant>

    static let defaultKey = SigningKeyRef(teamID: "TEAMA", keyID: "DEFAULT")
    static let start = TestClock.Instant(offset: .zero)

    static func key(
        _ keyID: String, team: String = "TEAMA", environments: SigningKey.Environments = .both, topics: [String] = []
    ) -> Table.Route {
        Table.Route(
            key: SigningKey(
                teamID: team, keyID: keyID, environments: environments, topics: topics, storage: .file, state: .active,
                createdAt: Date(), retiredAt: nil),
            material: .file(path: "/nonexistent/\(keyID).p8"))
    }

    static func app(_ bundleID: String, team: String) -> App {
        App(
            id: UUID(), externalID: ExternalID(bundleID.replacingOccurrences(of: ".", with: "-"))!, name: bundleID,
            bundleID: bundleID, teamID: team, defaultEnvironment: .sandbox, isDefault: false, deliveryWeight: 1,
            createdAt: Date(),
            updatedAt: Date())
    }

    static func table(_ keys: [Table.Route], apps: [App] = []) -> Table {
        var table = Table(defaultKey: defaultKey)
        table.load(apps: apps, keys: keys)
        return table
    }

    static func keyIDs(_ routes: [Table.Route]?) -> [String]? { routes?.map(\.key.keyID) }

    @Test func beforeTheFirstReadThereAreNoCandidates() {
        let table = Table(defaultKey: Self.defaultKey)
        #expect(table.candidates(topic: "com.example.a", environment: .sandbox, now: Self.start) == nil)
    }

    @Test func topicKeysComeFirstThenTheDefaultKeyThenByKeyID() {
        let table = Self.table([
            Self.key("ZULU"), Self.key("ALPHA"), Self.key("DEFAULT"), Self.key("TOPIC", topics: ["com.example.a"]),
            Self.key("OTHERTOPIC", topics: ["com.example.b"]),
        ])
        let ids = Self.keyIDs(table.candidates(topic: "com.example.a", environment: .sandbox, now: Self.start))
        #expect(ids == ["TOPIC", "DEFAULT", "ALPHA", "ZULU"])
    }

    @Test func onlyKeysOfTheAppsTeamAllowedForTheEnvironmentSign() {
        let table = Self.table(
            [
                Self.key("A1"), Self.key("B1", team: "TEAMB"), Self.key("B2", team: "TEAMB", environments: .production),
                Self.key("B3", team: "TEAMB", environments: .sandbox),
            ],
            apps: [Self.app("com.example.b", team: "TEAMB")])
        #expect(
            Self.keyIDs(table.candidates(topic: "com.example.b", environment: .production, now: Self.start))
                == ["B1", "B2"])
        #expect(
            Self.keyIDs(table.candidates(topic: "com.example.b", environment: .sandbox, now: Self.start))
                == ["B1", "B3"])
        // A topic no app claims belongs to the default key's team.
        #expect(Self.keyIDs(table.candidates(topic: "com.unknown", environment: .sandbox, now: Self.start)) == ["A1"])
    }

    @Test func aPushTypesTopicBelongsToTheLongestBundleIDItExtends() {
        let bundles = ["com.example", "com.example.app", "com.other"]
        #expect(Table.bundleID(of: "com.example.app", among: bundles) == "com.example.app")
        #expect(Table.bundleID(of: "com.example.app.voip", among: bundles) == "com.example.app")
        #expect(Table.bundleID(of: "com.example.app.push-type.liveactivity", among: bundles) == "com.example.app")
        #expect(Table.bundleID(of: "com.exampleapp", among: bundles) == nil)
        let table = Self.table(
            [Self.key("A1"), Self.key("B1", team: "TEAMB", topics: ["com.example.b"])],
            apps: [Self.app("com.example.b", team: "TEAMB")])
        // A topic-specific key names the bundle id and signs its push types' topics too.
        #expect(
            Self.keyIDs(table.candidates(topic: "com.example.b.voip", environment: .sandbox, now: Self.start))
                == ["B1"])
    }

    @Test func aPausedKeyWaitsUntilItsPauseIsOver() {
        var table = Self.table([Self.key("DEFAULT"), Self.key("SECOND")])
        let until = Self.start.advanced(by: .seconds(60))
        table.pause(Self.defaultKey, until: until)
        #expect(Self.keyIDs(table.candidates(topic: "t", environment: .sandbox, now: Self.start)) == ["SECOND"])
        #expect(table.endPauses(at: Self.start.advanced(by: .seconds(59))).isEmpty)
        #expect(table.isPaused(Self.defaultKey, at: Self.start.advanced(by: .seconds(59))))
        #expect(table.endPauses(at: until) == [Self.defaultKey])
        #expect(Self.keyIDs(table.candidates(topic: "t", environment: .sandbox, now: until)) == ["DEFAULT", "SECOND"])
    }

    @Test func reloadingKeepsPausesAndDropsRetiredKeys() {
        var table = Self.table([Self.key("DEFAULT"), Self.key("SECOND"), Self.key("THIRD")])
        table.pause(SigningKeyRef(teamID: "TEAMA", keyID: "SECOND"), until: Self.start.advanced(by: .seconds(60)))
        table.load(apps: [], keys: [Self.key("SECOND"), Self.key("THIRD")])
        #expect(
            table.activeKeys == [
                SigningKeyRef(teamID: "TEAMA", keyID: "SECOND"), SigningKeyRef(teamID: "TEAMA", keyID: "THIRD"),
            ])
        #expect(Self.keyIDs(table.candidates(topic: "t", environment: .sandbox, now: Self.start)) == ["THIRD"])
    }
}
