import Foundation
import HeraldTesting
import Postgres
import Testing

@Suite(.sharesMachine, .timeLimit(.minutes(1))) struct TypeRoundTripTests {
    /// Sends `value` as a parameter, has the server cast it to `sqlType` and reads it back.
    private func roundTrip<T: PostgresEncodable & PostgresDecodable & Equatable>(
        _ value: T, as sqlType: String, on client: PostgresClient
    ) async throws -> T {
        try await client.query("SELECT \(value)::\(unescaped: sqlType)").scalar(T.self)
    }

    @Test func textRoundTripsIncludingEmptyAndUnicode() async throws {
        try await withFreshClient { client, _ async throws in
            for text in [
                "", "plain", "naïve café 日本語 🚀", "quote ' and \" and \\ backslash",
                String(repeating: "x", count: 100_000),
            ] {
                #expect(try await roundTrip(text, as: "text", on: client) == text)
                #expect(try await roundTrip(text, as: "varchar", on: client) == text)
            }
        }
    }

    @Test func integersRoundTripAtTheirLimits() async throws {
        try await withFreshClient { client, _ async throws in
            for value in [Int16.min, -1, 0, 1, Int16.max] {
                #expect(try await roundTrip(value, as: "int2", on: client) == value)
            }
            for value in [Int32.min, -1, 0, Int32.max] {
                #expect(try await roundTrip(value, as: "int4", on: client) == value)
            }
            for value in [Int64.min, -1, 0, Int64.max] {
                #expect(try await roundTrip(value, as: "int8", on: client) == value)
            }
            for value in [Int.min, 42, Int.max] { #expect(try await roundTrip(value, as: "int8", on: client) == value) }
            // Narrower columns widen into wider Swift types.
            #expect(try await client.query("SELECT 7::int2").scalar(Int.self) == 7)
        }
    }

    @Test func int8ThatDoesNotFitIsRefusedNotTruncated() async throws {
        try await withFreshClient { client, _ async throws in
            let error = await #expect(throws: PostgresError.self) {
                try await client.query("SELECT \(Int64(Int32.max) + 1)::int8").scalar(Int32.self)
            }
            #expect(error?.kind == .decoding)
        }
    }

    @Test func boolDoubleUUIDAndBytesRoundTrip() async throws {
        try await withFreshClient { client, _ async throws in
            #expect(try await roundTrip(true, as: "bool", on: client) == true)
            #expect(try await roundTrip(false, as: "bool", on: client) == false)
            for value in [0.0, -1.5, 3.141592653589793, Double.greatestFiniteMagnitude, .infinity, -.infinity] {
                #expect(try await roundTrip(value, as: "float8", on: client) == value)
            }
            #expect(try await roundTrip(Double.nan, as: "float8", on: client).isNaN)
            let id = UUID()
            #expect(try await roundTrip(id, as: "uuid", on: client) == id)
            #expect(
                try await client.query("SELECT 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11'::uuid").scalar(UUID.self)
                    == UUID(uuidString: "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"))
            let bytes = Data((0...255).map { UInt8($0) })
            #expect(try await roundTrip(bytes, as: "bytea", on: client) == bytes)
        }
    }

    @Test func timestamptzKeepsMicroseconds() async throws {
        try await withFreshClient { client, _ async throws in
            let date = Date(timeIntervalSince1970: 1_790_000_000.123456)
            let back = try await roundTrip(date, as: "timestamptz", on: client)
            #expect(abs(back.timeIntervalSince1970 - date.timeIntervalSince1970) < 0.000_001)
            let epoch = try await client.query("SELECT '2000-01-01 00:00:00+00'::timestamptz").scalar(Date.self)
            #expect(epoch.timeIntervalSince1970 == 946_684_800)
            let before = try await client.query("SELECT '1969-07-20 20:17:40.5+00'::timestamptz").scalar(Date.self)
            #expect(before.timeIntervalSince1970 == -14_182_939.5)
            #expect(try await client.query("SELECT 'infinity'::timestamptz").scalar(Date.self) == .distantFuture)
        }
    }

    @Test func jsonbRoundTripsLargeAndUnicodeDocuments() async throws {
        try await withFreshClient { client, _ async throws in
            struct Document: Codable, Equatable {
                var title: String
                var tags: [String]
            }
            let document = Document(title: "Ünïcödé ✓ \"quoted\"", tags: (0..<20_000).map { "tag-\($0)" })
            let json = try PostgresJSON(encoding: document)
            let back = try await client.query("SELECT \(json)").scalar(PostgresJSON.self)
            #expect(try back.decode(Document.self) == document)
            #expect(back.text.utf8.count > 200_000)
            let plainJSON = try await client.query("SELECT '{\"a\": [1, 2]}'::json").scalar(PostgresJSON.self)
            #expect(plainJSON.text == "{\"a\": [1, 2]}")
            #expect(try await client.query("SELECT '{\"a\":1}'::jsonb").scalar(String.self) == "{\"a\": 1}")
        }
    }

    @Test func arraysRoundTripIncludingEmptyAndAwkwardText() async throws {
        try await withFreshClient { client, _ async throws in
            let texts = ["", "comma, inside", "{braces}", "quote\"d", "back\\slash", "NULL", "日本"]
            #expect(try await roundTrip(texts, as: "text[]", on: client) == texts)
            #expect(try await roundTrip([String](), as: "text[]", on: client) == [])
            let ids = [UUID(), UUID(), UUID()]
            #expect(try await roundTrip(ids, as: "uuid[]", on: client) == ids)
            #expect(try await roundTrip([1, -2, Int.max], as: "int8[]", on: client) == [1, -2, Int.max])
            #expect(try await client.query("SELECT ARRAY['a','b']::varchar[]").scalar([String].self) == ["a", "b"])
            let unnested = try await client.query("SELECT count(*) FROM unnest(\(ids)) AS id").scalar(Int.self)
            #expect(unnested == 3)
        }
    }

    @Test func nullDecodesAsNilAndIsAnErrorForNonOptionals() async throws {
        try await withFreshClient { client, _ async throws in
            let missing: String? = nil
            let row = try #require(try await client.query("SELECT \(missing), NULL::uuid, NULL::int4, 'x'").first)
            let (text, id, number, present) = try row.decode((String?, UUID?, Int32?, String?).self)
            #expect(text == nil)
            #expect(id == nil)
            #expect(number == nil)
            #expect(present == "x")
            let error = await #expect(throws: PostgresError.self) {
                try await client.query("SELECT NULL::text AS nothing").scalar(String.self)
            }
            #expect(error?.kind == .decoding)
            #expect(error?.message.contains("nothing") == true)
        }
    }

    @Test func mismatchedTypesAreDecodingErrorsNamingTheColumn() async throws {
        try await withFreshClient { client, _ async throws in
            let error = await #expect(throws: PostgresError.self) {
                try await client.query("SELECT 1::int4 AS answer").scalar(UUID.self)
            }
            #expect(error?.kind == .decoding)
            #expect(error?.message.contains("answer") == true)
        }
    }

    @Test func rowsDecodeByNameAndAsTuples() async throws {
        try await withFreshClient { client, _ async throws in
            let rows = try await client.query(
                "SELECT n AS number, 'item-' || n AS label FROM generate_series(1, 3) AS n ORDER BY n")
            #expect(rows.columns == ["number", "label"])
            #expect(try rows.decode((Int32, String).self).map(\.1) == ["item-1", "item-2", "item-3"])
            #expect(try rows[2].decode("label", as: String.self) == "item-3")
        }
    }
}
