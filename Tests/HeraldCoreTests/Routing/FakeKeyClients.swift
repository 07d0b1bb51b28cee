import APNs
import APNsCore
import APNsMock
import Cryptography
import Foundation
import HeraldCore
import Logging
import Synchronization

/// Signing-key clients that answer from a script instead of Apple: each key accepts, unless it is told to refuse.
final class FakeKeyClients: SigningKeyClients {
    private struct State {
        var refusing: [String: APNsReason] = [:]
        var sent: [String: Int] = [:]
        var made: [String] = []
        var running: Set<String> = []
    }

    private let state = Mutex(State())

    /// Makes `keyID` answer every push with `reason`, or accept again when nil.
    func refuse(_ keyID: String, with reason: APNsReason?) { state.withLock { $0.refusing[keyID] = reason } }
    func sent(_ keyID: String) -> Int { state.withLock { $0.sent[keyID] ?? 0 } }
    var made: [String] { state.withLock { $0.made } }
    var running: Set<String> { state.withLock { $0.running } }

    /// The client of a key that is not in the database: the router's default.
    func client(keyID: String, teamID: String) throws -> any SigningKeyClient {
        let key = TestSigningKey.generate(keyID: keyID)
        let tokens = ProviderTokenSource(
            key: try P256PrivateKey(pem: key.privateKeyPEM), keyID: keyID, teamID: teamID,
            logger: Logger(label: "test"))
        return Client(keyID: keyID, tokens: tokens, owner: self)
    }

    func makeClient(for key: SigningKey, privateKeyPEM: String) throws -> any SigningKeyClient {
        let tokens = ProviderTokenSource(
            key: try P256PrivateKey(pem: privateKeyPEM), keyID: key.keyID, teamID: key.teamID,
            logger: Logger(label: "test"))
        state.withLock { $0.made.append(key.keyID) }
        return Client(keyID: key.keyID, tokens: tokens, owner: self)
    }

    fileprivate func answer(_ keyID: String) -> PushResult {
        let refusal = state.withLock { state in
            state.sent[keyID, default: 0] += 1
            return state.refusing[keyID]
        }
        guard let refusal else { return .accepted(PushReceipt(apnsID: APNsID(), uniqueID: nil)) }
        return .rejected(PushRejection(status: refusal.status ?? 400, reason: refusal, apnsID: nil, timestamp: nil))
    }

    fileprivate func setRunning(_ keyID: String, _ running: Bool) {
        state.withLock { state in
            if running { state.running.insert(keyID) } else { state.running.remove(keyID) }
        }
    }

    private struct Client: SigningKeyClient {
        let keyID: String
        let tokens: any ProviderTokenSharing
        let owner: FakeKeyClients

        func send(_ request: PushRequest, environment: APNsEnvironment) async throws -> PushResult {
            owner.answer(keyID)
        }

        func send(_ requests: [PushRequest], environment: APNsEnvironment) -> PushAnswers {
            PushAnswers.concurrently(requests) { _ in owner.answer(keyID) }
        }

        func run() async {
            owner.setRunning(keyID, true)
            while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
            owner.setRunning(keyID, false)
        }
    }
}
