import APNsMock
import Cryptography
import Foundation
import FoundationNetworking
import HeraldCore
import HeraldTesting
import Postgres
import Testing

extension Networked {
    /// Several apps and keys in one `herald serve`: each app's pushes are signed by a key allowed for its topic (here
    /// one sealed in the database under the master key), the settings' key keeps signing for the default app, and a
    /// key Apple refuses gives way to the team's next key for that topic without pausing anything else.
    @Suite struct KeyRoutingTests {
        @Test func eachAppIsSignedByItsKeyAndARefusedKeyGivesWayToTheNext() async throws {
            let topical = TestSigningKey.generate(keyID: "KEYTOPIC02")
            // Not trusted by the mock, and tried first: its id sorts before the other topic-specific key's.
            let refused = TestSigningKey.generate(keyID: "KEYAAAAAA1")
            let harness = try await EngineHarness.start(trustedKeys: [topical], bundleIDs: ["com.example.two"])
            var files: [String] = []
            defer { for file in files { try? FileManager.default.removeItem(atPath: file) } }
            let keys = SigningKeyStore(client: harness.client)
            func definition(_ key: TestSigningKey) throws -> SigningKeyDefinition {
                try SigningKeyDefinition(
                    teamID: EngineHarness.teamID, keyID: key.keyID, environments: .both, topics: ["com.example.two"])
            }
            // The refused key stays in a file on the host; the good one is sealed in the database.
            let refusedFile = EngineHarness.keyFile()
            files.append(refusedFile)
            try refused.writePrivateKey(to: refusedFile)
            _ = try await keys.add(try definition(refused), keyPath: refusedFile)
            let masterKey = SecureRandom.bytes(count: 32)
            let masterKeyFile = EngineHarness.keyFile()
            files.append(masterKeyFile)
            try Data(Data(masterKey).base64EncodedString().utf8).write(to: URL(fileURLWithPath: masterKeyFile))
            _ = try await keys.add(
                try definition(topical), pem: topical.privateKeyPEM, masterKey: try AES256GCM(key: masterKey))
            _ = try await AppStore(client: harness.client).put(
                ExternalID("two")!,
                try AppDefinition(
                    name: "Two", bundleID: "com.example.two", teamID: EngineHarness.teamID,
                    defaultEnvironment: .sandbox))
            let devices = 100
            let first = try await harness.insertFanOut(count: devices, tokenPrefix: "a1")
            let second = try await harness.insertFanOut(count: devices, tokenPrefix: "b2")
            try await harness.client.execute(
                "UPDATE device_tokens SET topic = 'com.example.two' WHERE token LIKE 'b2%'")

            let keyFile = EngineHarness.keyFile()
            files.append(keyFile)
            var environment = try harness.heraldEnvironment(keyFile: keyFile)
            environment["HERALD_MASTER_KEY_FILE"] = masterKeyFile
            let server = try BuiltProgram.herald.start(["serve", "--port", "0"], environment: environment)
            let port = try await server.servingPort()
            var sent = (0, 0)
            for _ in 0..<300 where sent != (devices, devices) {
                sent = (
                    try await harness.states(of: first)["sent"] ?? 0, try await harness.states(of: second)["sent"] ?? 0
                )
                if sent != (devices, devices) { try await Task.sleep(for: .milliseconds(100)) }
            }
            let (metrics, _) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/metrics")!)
            _ = await server.stop()
            #expect(sent == (devices, devices), "every device of both apps got its push")
            let pausedLine = #"herald_apns_key_paused{key="\#(EngineHarness.teamID)/\#(refused.keyID)"} 1"#
            #expect(String(decoding: metrics, as: UTF8.self).contains(pausedLine), "the refused key shows as paused")

            let requests = harness.sandbox.recordedRequests
            func signer(_ request: MockRecordedRequest) -> String? { Self.keyID(request.header("authorization")) }
            let twos = requests.filter { $0.header("apns-topic") == "com.example.two" }
            let ones = requests.filter { $0.header("apns-topic") == EngineHarness.bundleID }
            #expect(ones.count == devices && ones.allSatisfy { signer($0) == harness.key.keyID })
            #expect(Set(twos.compactMap(signer)).isSubset(of: [topical.keyID, refused.keyID]))
            let byRefused = twos.filter { signer($0) == refused.keyID }
            #expect(!byRefused.isEmpty, "the refused key was tried first")
            #expect(
                byRefused.allSatisfy {
                    $0.verdict == .reject(status: 403, reason: "InvalidProviderToken", timestamp: nil)
                })
            #expect(twos.filter { signer($0) == topical.keyID }.count == devices)
            #expect(server.output.contains("refused signing key \(EngineHarness.teamID)/\(refused.keyID)"))
            print(
                "key routing: \(ones.count) pushes for the default app, \(twos.count) for app two, \(byRefused.count) of them refused for \(refused.keyID)"
            )
            try await harness.stop()
        }

        /// Two apps on two teams: each app's pushes carry a token of its own team's key (`iss` and `kid`, checked by
        /// the mock) and go out on connections of their own, which close when idle and open again for the next push.
        @Test func twoTeamsSignWithTheirOwnKeysOnTheirOwnConnections() async throws {
            let otherTeam = "TEAM000003"
            let theirs = TestSigningKey.generate(keyID: "KEYTEAM003")
            let harness = try await EngineHarness.start(
                bundleIDs: ["com.example.three"], otherTeams: [otherTeam: [theirs]])
            let theirsFile = EngineHarness.keyFile()
            let keyFile = EngineHarness.keyFile()
            defer { for file in [theirsFile, keyFile] { try? FileManager.default.removeItem(atPath: file) } }
            try theirs.writePrivateKey(to: theirsFile)
            _ = try await SigningKeyStore(client: harness.client).add(
                try SigningKeyDefinition(teamID: otherTeam, keyID: theirs.keyID, environments: .both, topics: []),
                keyPath: theirsFile)
            _ = try await AppStore(client: harness.client).put(
                ExternalID("three")!,
                try AppDefinition(
                    name: "Three", bundleID: "com.example.three", teamID: otherTeam, defaultEnvironment: .sandbox))
            let devices = 200
            let first = try await harness.insertFanOut(count: devices, tokenPrefix: "d1")
            let second = try await harness.insertFanOut(count: devices, tokenPrefix: "e3")
            try await harness.client.execute(
                "UPDATE device_tokens SET topic = 'com.example.three' WHERE token LIKE 'e3%'")
            var environment = try harness.heraldEnvironment(keyFile: keyFile)
            environment["HERALD_APNS_KEY_IDLE_SECONDS"] = "1"
            let server = try BuiltProgram.herald.start(["serve", "--port", "0"], environment: environment)
            _ = try await server.servingPort()
            func waitUntilSent(_ notifications: [UUID]) async throws -> [Int] {
                var sent: [Int] = []
                for _ in 0..<300 {
                    sent = []
                    for notification in notifications {
                        sent.append(try await harness.states(of: notification)["sent"] ?? 0)
                    }
                    if sent.allSatisfy({ $0 == devices }) { break }
                    try await Task.sleep(for: .milliseconds(100))
                }
                return sent
            }
            #expect(try await waitUntilSent([first, second]) == [devices, devices], "both teams' apps delivered")
            let requests = harness.sandbox.recordedRequests
            let ours = requests.filter { $0.header("apns-topic") == EngineHarness.bundleID }
            let three = requests.filter { $0.header("apns-topic") == "com.example.three" }
            #expect(ours.count == devices && three.count == devices, "no push refused or sent twice")
            #expect(ours.allSatisfy { Self.keyID($0.header("authorization")) == harness.key.keyID })
            #expect(three.allSatisfy { Self.keyID($0.header("authorization")) == theirs.keyID })
            let theirConnections = Set(three.map(\.connectionID))
            #expect(Set(ours.map(\.connectionID)).isDisjoint(with: theirConnections))

            // Idle for a second, the other team's key closes its connections (at the router's next 5 s round);
            // the settings' key keeps its own open.
            let openWhileSending = harness.sandbox.openConnectionCount
            let idleLine = "closed the APNs connections of signing key \(otherTeam)/\(theirs.keyID): idle"
            for _ in 0..<200 where !server.output.contains(idleLine) { try await Task.sleep(for: .milliseconds(100)) }
            #expect(server.output.contains(idleLine))
            for _ in 0..<50 where harness.sandbox.openConnectionCount > openWhileSending - theirConnections.count {
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(harness.sandbox.openConnectionCount == openWhileSending - theirConnections.count)
            let later = try await harness.insertFanOut(count: devices, tokenPrefix: "f3", topic: "com.example.three")
            #expect(try await waitUntilSent([later]) == [devices], "a closed key's connections open again")
            let reopened = harness.sandbox.recordedRequests.filter {
                $0.header("apns-topic") == "com.example.three" && !theirConnections.contains($0.connectionID)
            }
            #expect(
                reopened.count == devices
                    && reopened.allSatisfy { Self.keyID($0.header("authorization")) == theirs.keyID })
            _ = await server.stop()
            try await harness.stop()
        }

        /// Rotation during a 5,000-push fan-out: a new team key is added, then the settings' key retired. Every push
        /// is accepted, and once the router has read the retirement (told at once by `NOTIFY`) and the pushes already
        /// signed have finished, none is signed by the old key.
        @Test func aKeyRotatedMidFanOutDropsNothing() async throws {
            let next = TestSigningKey.generate(keyID: "KEYNEXT001")
            let harness = try await EngineHarness.start(trustedKeys: [next])
            harness.sandbox.setResponseDelay(.milliseconds(5))
            var files: [String] = []
            defer { for file in files { try? FileManager.default.removeItem(atPath: file) } }
            let devices = 5000
            let notification = try await harness.insertFanOut(count: devices, tokenPrefix: "c3")
            let keyFile = EngineHarness.keyFile()
            let nextFile = EngineHarness.keyFile()
            files += [keyFile, nextFile]
            try next.writePrivateKey(to: nextFile)
            var environment = try harness.heraldEnvironment(keyFile: keyFile)
            environment["HERALD_DELIVERY_BATCH_SIZE"] = "100"
            let server = try BuiltProgram.herald.start(["serve", "--port", "0"], environment: environment)
            _ = try await server.servingPort()
            while harness.sandbox.recordedRequests.count < devices / 10 { try await Task.sleep(for: .milliseconds(5)) }

            let keys = SigningKeyStore(client: harness.client)
            _ = try await keys.add(
                try SigningKeyDefinition(
                    teamID: EngineHarness.teamID, keyID: next.keyID, environments: .both, topics: []),
                keyPath: nextFile)
            let retired = try await keys.retire(keyID: harness.key.keyID)
            #expect(retired.count == 1)
            let retiredAt = harness.sandbox.recordedRequests.count
            // The router reads the change when notified; then pushes already signed finish within a moment.
            while !harness.sandbox.recordedRequests.contains(where: {
                Self.keyID($0.header("authorization")) == next.keyID
            }) {
                try await Task.sleep(for: .milliseconds(20))
            }
            try await Task.sleep(for: .milliseconds(500))
            let settled = harness.sandbox.recordedRequests.count

            var sent = 0
            for _ in 0..<600 where sent < devices {
                sent = try await harness.states(of: notification)["sent"] ?? 0
                if sent < devices { try await Task.sleep(for: .milliseconds(100)) }
            }
            _ = await server.stop()
            #expect(sent == devices, "every device got its push")
            let requests = harness.sandbox.recordedRequests
            #expect(requests.allSatisfy { $0.header("apns-id") != nil })
            let afterwards = requests.dropFirst(settled)
            #expect(afterwards.allSatisfy { Self.keyID($0.header("authorization")) == next.keyID })
            let refused = requests.filter {
                if case .reject = $0.verdict { true } else { false }
            }
            #expect(refused.isEmpty, "\(refused.count) pushes refused")
            print(
                """
                key rotation: \(retiredAt) pushes before the retirement, \(settled - retiredAt) while it was read, \
                \(afterwards.count) after, all signed by \(next.keyID)
                """)
            try await harness.stop()
        }

        /// The `kid` of a bearer provider token.
        static func keyID(_ authorization: String?) -> String? {
            guard let token = authorization?.split(separator: " ").last,
                let header = token.split(separator: ".").first
            else { return nil }
            var base64 = header.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            while base64.count % 4 != 0 { base64 += "=" }
            guard let data = Data(base64Encoded: base64),
                let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
            else { return nil }
            return object["kid"] as? String
        }
    }
}
