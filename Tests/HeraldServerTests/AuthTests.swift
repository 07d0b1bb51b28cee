import Cryptography
import Foundation
import HTTPTypes
import HeraldCore
import HeraldServer
import HeraldTesting
import Postgres
import Testing

@Suite(.sharesMachine, .timeLimit(.minutes(1))) struct AuthTests {
    @Test func everyProtectedRouteNeedsCredentials() async throws {
        let harness = try await APIHarness.make()
        try await harness.run { api in
            let routes: [(HTTPRequest.Method, String)] = [
                (.put, "/api/v1/users/u1"), (.delete, "/api/v1/users/u1"), (.put, "/api/v1/projects/p1"),
                (.delete, "/api/v1/projects/p1"), (.put, "/api/v1/projects/p1/members/u1"),
                (.delete, "/api/v1/projects/p1/members/u1"), (.post, "/api/v1/devices/register"),
                (.get, "/api/v1/devices"), (.delete, "/api/v1/devices/\(UUID())"),
                (.patch, "/api/v1/auth/notifications"), (.get, "/api/v1/projects/p1/notification-preferences"),
                (.patch, "/api/v1/projects/p1/notification-preferences"), (.post, "/api/v1/events"),
                (.post, "/api/v1/notifications"), (.get, "/api/v1/notifications/\(UUID())"),
            ]
            for (method, path) in routes {
                let answer = try await api.call(method, path, json: "{}")
                #expect(answer.status == .unauthorized, "\(method) \(path)")
                #expect(answer.error == "unauthorized")
                #expect(answer.headers[.wwwAuthenticate] == "Bearer")
                #expect(answer.headers[.cacheControl] == "no-store", "\(method) \(path)")
            }
            #expect(try await api.call(.get, "/healthz").status == .ok)
            #expect(try await api.call(.get, "/readyz").status == .ok)
        }
    }

    /// Answers hold emails and settings: no cache may keep one, whatever its status.
    @Test func apiAnswersAreNeverStored() async throws {
        let harness = try await APIHarness.make()
        try await harness.run { api in
            let put = try await api.call(
                .put, "/api/v1/users/u1", headers: harness.admin(), json: #"{"email":"u1@example.com","name":"U"}"#)
            let read = try await api.call(.get, "/api/v1/devices", headers: try harness.user("u1"))
            let missing = try await api.call(.delete, "/api/v1/users/nobody", headers: harness.admin())
            let invalid = try await api.call(.put, "/api/v1/users/u2", headers: harness.admin(), json: "{}")
            for (answer, status) in [
                (put, HTTPResponse.Status.created), (read, .ok), (missing, .notFound),
                (invalid, .unprocessableContent),
            ] {
                #expect(answer.status == status)
                #expect(answer.headers[.cacheControl] == "no-store", "\(status)")
            }
            #expect(try await api.call(.get, "/healthz").headers[.cacheControl] == nil)
        }
    }

    @Test func badCredentialsAreRefused() async throws {
        let harness = try await APIHarness.make()
        let revoked = try await harness.services.keys.create(name: "old", scope: .admin)
        _ = try await harness.services.keys.revoke(revoked.key.id.uuidString)
        try await harness.run { api in
            for header in [
                "Basic abc", "Bearer", "Bearer hk_unknownkey", "Bearer \(revoked.secret)", "Bearer not.a.jwt",
            ] {
                let answer = try await api.call(.get, "/api/v1/devices", headers: [.authorization: header])
                #expect(answer.status == .unauthorized, "\(header.prefix(12))")
                #expect(answer.error == "unauthorized")
            }
        }
    }

    @Test func scopesLimitWhatKeysMayDo() async throws {
        let harness = try await APIHarness.make()
        try await harness.run { api in
            let user = #"{"email":"a@example.com","name":"A"}"#
            #expect(
                try await api.call(.put, "/api/v1/users/a", headers: harness.bearer(harness.keys[.send]!), json: user)
                    .status == .forbidden)
            #expect(
                try await api.call(.put, "/api/v1/users/a", headers: harness.bearer(harness.keys[.read]!), json: user)
                    .status == .forbidden)
            #expect(
                try await api.call(.put, "/api/v1/users/a", headers: try harness.user("a"), json: user).status
                    == .forbidden)
            #expect(
                try await api.call(.put, "/api/v1/users/a", headers: harness.admin(), json: user).status == .created)
            let event = #"{"type":"new_feedback","projectId":"p","feedback":{"id":"f","title":"T"}}"#
            let denied = try await api.call(
                .post, "/api/v1/events", headers: harness.bearer(harness.keys[.read]!), json: event)
            #expect(denied.status == .forbidden)
            #expect(denied.error == "forbidden")
            #expect(
                try await api.call(.post, "/api/v1/events", headers: try harness.user("a"), json: event).status
                    == .forbidden)
            var sendActing = harness.bearer(harness.keys[.send]!)
            sendActing[HTTPField.Name("X-Herald-User")!] = "a"
            #expect(try await api.call(.get, "/api/v1/devices", headers: sendActing).status == .forbidden)
            let missing = try await api.call(.get, "/api/v1/devices", headers: harness.admin())
            #expect(missing.status == .unprocessableContent)
            #expect(missing.field == "X-Herald-User")
            #expect(try await api.call(.get, "/api/v1/devices", headers: harness.admin(actingFor: "a")).status == .ok)
            #expect(
                try await api.call(
                    .get, "/api/v1/notifications/\(UUID())", headers: harness.bearer(harness.keys[.read]!)
                ).status == .notFound)
            #expect(try await harness.count("notifications") == 0)
        }
    }

    @Test func userTokensAreVerified() async throws {
        let harness = try await APIHarness.make()
        try await harness.run { api in
            _ = try await api.call(
                .put, "/api/v1/users/a", headers: harness.admin(), json: #"{"email":"a@example.com","name":"A"}"#)
            #expect(
                try await api.call(.get, "/api/v1/devices", headers: harness.bearer(try harness.userToken("a"))).status
                    == .ok)
            #expect(
                try await api.call(.get, "/api/v1/devices", headers: harness.bearer(try harness.es256Token("a"))).status
                    == .ok)

            func refused(_ token: String, _ label: String) async throws {
                let answer = try await api.call(.get, "/api/v1/devices", headers: harness.bearer(token))
                #expect(answer.status == .unauthorized, "\(label)")
                #expect(answer.error == "unauthorized")
            }
            let exp = Int(Date().timeIntervalSince1970) + 300
            let claims = Base64URL.encode(Data(#"{"sub":"a","exp":\#(exp)}"#.utf8))
            // alg none, with and without a signature.
            let none = Base64URL.encode(Data(#"{"alg":"none","typ":"JWT"}"#.utf8))
            try await refused("\(none).\(claims).", "alg none")
            try await refused("\(none).\(claims).c2ln", "alg none signed")
            // Algorithm confusion: an HS256 token keyed with the ES256 public key's PEM text.
            let confused = try JWT.encode(
                APIHarness.Claims(sub: "a", exp: exp), key: .hs256(secret: Array(harness.signingKey.publicKeyPEM.utf8)))
            try await refused(confused, "HS256 with the public key")
            // Tampered claims keep the old signature.
            let valid = try harness.userToken("a").split(separator: ".")
            let other = Base64URL.encode(Data(#"{"sub":"b","exp":\#(exp)}"#.utf8))
            try await refused("\(valid[0]).\(other).\(valid[2])", "tampered")
            // A different secret.
            try await refused(
                try JWT.encode(APIHarness.Claims(sub: "a", exp: exp), key: .hs256(secret: Array("wrong".utf8))),
                "wrong secret")
            // Expired beyond the leeway, and not yet valid.
            try await refused(try harness.userToken("a", expiresIn: -120), "expired")
            try await refused(
                try JWT.encode(
                    APIHarness.Claims(sub: "a", exp: exp, nbf: exp), key: .hs256(secret: harness.hmacSecret)),
                "not yet valid")
            // RS256 and unknown algorithms.
            let rs = Base64URL.encode(Data(#"{"alg":"RS256"}"#.utf8))
            try await refused("\(rs).\(claims).c2ln", "RS256")
        }
    }
}
