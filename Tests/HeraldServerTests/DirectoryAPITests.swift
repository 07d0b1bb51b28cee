import APNsCore
import Foundation
import HTTPTypes
import HeraldCore
import HeraldServer
import HeraldTesting
import Postgres
import Testing

@Suite(.sharesMachine, .timeLimit(.minutes(1))) struct DirectoryAPITests {
    @Test func upsertsAndDeletesFollowTheRules() async throws {
        let harness = try await APIHarness.make()
        try await harness.run { api in
            let admin = harness.admin()
            let created = try await api.call(
                .put, "/api/v1/users/ada", headers: admin, json: #"{"email":"Ada@Example.com","name":"Ada"}"#)
            #expect(created.status == .created)
            #expect(created.json?["id"] == .string("ada"))
            #expect(
                try await api.call(
                    .put, "/api/v1/users/ada", headers: admin, json: #"{"email":"ada@example.com","name":"Ada L."}"#
                ).status == .ok)
            let twin = try await api.call(
                .put, "/api/v1/users/twin", headers: admin, json: #"{"email":"ADA@example.com","name":"Twin"}"#)
            #expect(twin.status == .conflict)
            #expect(twin.error == "conflict")
            #expect(twin.field == "email")
            let project = try await api.call(
                .put, "/api/v1/projects/p-1", headers: admin, json: #"{"name":"Feedback","ownerId":"ada"}"#)
            #expect(project.status == .created)
            #expect(project.json?["ownerId"] == .string("ada"))
            let ownerDelete = try await api.call(.delete, "/api/v1/users/ada", headers: admin)
            #expect(ownerDelete.status == .conflict)
            #expect(try await api.call(.put, "/api/v1/projects/p-1/members/ghost", headers: admin).status == .notFound)
            #expect(try await api.call(.put, "/api/v1/projects/nope/members/ada", headers: admin).status == .notFound)
            #expect(try await api.call(.delete, "/api/v1/projects/p-1/members/ada", headers: admin).status == .notFound)
            #expect(try await api.call(.delete, "/api/v1/projects/p-1", headers: admin).status == .noContent)
            #expect(try await api.call(.delete, "/api/v1/projects/p-1", headers: admin).status == .notFound)
            #expect(try await api.call(.delete, "/api/v1/users/ada", headers: admin).status == .noContent)
            #expect(try await harness.count("users") == 0)
        }
    }

    /// Herald's own user (the APNs ingress's, which holds the tokens only it has seen) is no backend's: it cannot be
    /// written, own a project or join one, even once it exists.
    @Test func heraldsOwnUserCannotBeWrittenOwnAProjectOrJoinOne() async throws {
        let harness = try await APIHarness.make()
        try await harness.run { api in
            let admin = harness.admin()
            try await harness.client.execute(
                """
                INSERT INTO users (external_id, email, name)
                VALUES ('herald:apns-ingress', 'apns-ingress@herald.invalid', 'APNs ingress')
                """)
            let written = try await api.call(
                .put, "/api/v1/users/herald:apns-ingress", headers: admin,
                json: #"{"email":"x@example.com","name":"X"}"#)
            #expect(written.status == .unprocessableContent && written.field == "userId")
            _ = try await api.call(
                .put, "/api/v1/users/ada", headers: admin, json: #"{"email":"a@example.com","name":"A"}"#)
            #expect(
                try await api.call(
                    .put, "/api/v1/projects/p-1", headers: admin, json: #"{"name":"Feedback","ownerId":"ada"}"#
                ).status == .created)
            let owned = try await api.call(
                .put, "/api/v1/projects/p-1", headers: admin,
                json: #"{"name":"Feedback","ownerId":"herald:apns-ingress"}"#)
            #expect(owned.status == .unprocessableContent && owned.field == "ownerId")
            let joined = try await api.call(.put, "/api/v1/projects/p-1/members/herald:apns-ingress", headers: admin)
            #expect(joined.status == .unprocessableContent && joined.field == "userId")
            let owner = try await harness.client.query(
                "SELECT u.external_id FROM projects p JOIN users u ON u.id = p.owner_id WHERE p.external_id = 'p-1'"
            ).scalar(String.self)
            #expect(owner == "ada", "the refused requests changed nothing")
            #expect(try await harness.count("project_members") == 0)
        }
    }
}
