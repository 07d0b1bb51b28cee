import HeraldTesting
import Testing

@testable import Postgres

/// A statement type numbers its parameters from one list and reads its columns from their place in another.
@Suite(.sharesMachine, .timeLimit(.minutes(1))) struct PostgresStatementTests {
    struct Pet: Equatable {
        var name: String
        var age: Int32
        var nickname: String?
        var owner: String
    }

    /// An owner's pets of at least an age, of one kind or of any: its parameters appear out of order and one twice.
    struct PetsStatement: PostgresStatement {
        enum Parameter: PostgresParameter {
            case owner
            case kind
            case minimumAge
        }

        enum Column: String, PostgresColumn {
            case name
            case age
            case nickname
            case owner = "upper(owner)"
        }

        static let name = "test_pets"

        static let sql = """
            SELECT \(Column.selectList) FROM pets
            WHERE age >= \(Parameter.minimumAge) AND owner = \(Parameter.owner)
                AND (kind = \(Parameter.kind) OR \(Parameter.kind) IS NULL)
            ORDER BY name
            """

        var owner: String
        var kind: String?
        var minimumAge: Int32

        func makeBindings() -> PostgresBindings {
            PostgresBindings(Parameter.self) {
                switch $0 {
                case .owner: .init(owner)
                case .kind: .init(kind)
                case .minimumAge: .init(minimumAge)
                }
            }
        }

        func decodeRow(_ row: PostgresRow) throws -> Pet {
            Pet(
                name: try row.decode(Column.name, as: String.self), age: try row.decode(Column.age, as: Int32.self),
                nickname: try row.decode(Column.nickname, as: String?.self),
                owner: try row.decode(Column.owner, as: String.self))
        }
    }

    /// Gives an owner's pets to another owner; returns no rows.
    struct RehomeStatement: PostgresStatement {
        typealias Row = Void

        enum Parameter: PostgresParameter {
            case from
            case to
        }

        static let name = "test_rehome"
        static let sql = "UPDATE pets SET owner = \(Parameter.to) WHERE owner = \(Parameter.from)"

        var from: String
        var to: String

        func makeBindings() -> PostgresBindings {
            PostgresBindings(Parameter.self) {
                switch $0 {
                case .from: .init(from)
                case .to: .init(to)
                }
            }
        }
    }

    private func withPets<T>(
        options: PostgresClient.Options = PostgresClient.Options(), _ body: (PostgresClient) async throws -> T
    ) async throws -> T {
        try await withFreshClient(options: options) { client, _ async throws in
            try await client.execute("CREATE TABLE pets (name text, kind text, age int4, nickname text, owner text)")
            try await client.execute(
                """
                INSERT INTO pets VALUES ('Rex', 'dog', 5, NULL, 'ann'), ('Tom', 'cat', 3, 'Tommy', 'ann'),
                    ('Kit', 'cat', 1, NULL, 'ann'), ('Bo', 'dog', 7, 'Boo', 'bob')
                """)
            return try await body(client)
        }
    }

    @Test func parametersAreNumberedInTheOrderTheyAreBound() {
        #expect(PetsStatement.Parameter.allCases.map(\.description) == ["$1", "$2", "$3"])
        #expect(PetsStatement.sql.contains("age >= $3 AND owner = $1"))
        #expect(PetsStatement.sql.contains("(kind = $2 OR $2 IS NULL)"))
        let bindings = PetsStatement(owner: "ann", kind: nil, minimumAge: 2).makeBindings()
        #expect(bindings.types == [.text, .text, .int4])
        #expect(bindings.values == [Array("ann".utf8), nil, [0, 0, 0, 2]])
    }

    @Test func theSelectListIsWrittenInTheColumnsOrder() {
        #expect(PetsStatement.Column.selectList == "name, age, nickname, upper(owner)")
        #expect(PetsStatement.Column.allCases.map(\.position) == [0, 1, 2, 3])
    }

    @Test func rowsAreDecodedByColumnOnTheClientAndOnAConnection() async throws {
        try await withPets { client async throws in
            let tom = Pet(name: "Tom", age: 3, nickname: "Tommy", owner: "ANN")
            let rex = Pet(name: "Rex", age: 5, nickname: nil, owner: "ANN")
            #expect(try await client.query(PetsStatement(owner: "ann", kind: nil, minimumAge: 2)) == [rex, tom])
            let cats = try await client.withConnection {
                try await $0.query(PetsStatement(owner: "ann", kind: "cat", minimumAge: 2))
            }
            #expect(cats == [tom])
            #expect(try await client.query(PetsStatement(owner: "nobody", kind: nil, minimumAge: 0)).isEmpty)
        }
    }

    @Test func executeReturnsTheRowsTouched() async throws {
        try await withPets { client async throws in
            #expect(try await client.execute(RehomeStatement(from: "ann", to: "cid")) == 3)
            #expect(
                try await client.withConnection { try await $0.execute(RehomeStatement(from: "bob", to: "cid")) } == 1)
            #expect(
                try await client.query(PetsStatement(owner: "cid", kind: "dog", minimumAge: 0)).map(\.name) == [
                    "Bo", "Rex",
                ])
        }
    }

    /// The first run prepares the statement on the session; later runs reuse it.
    @Test func aSessionPreparesAStatementTheFirstTimeItRunsIt() async throws {
        try await withPets(options: .init(maximumConnections: 1)) { client async throws in
            try await client.withConnection { connection in
                func prepared() async throws -> Int {
                    try await connection.query("SELECT count(*) FROM pg_prepared_statements WHERE name = 'test_pets'")
                        .scalar(Int.self)
                }
                #expect(try await prepared() == 0)
                for age in Int32(0)..<3 {
                    _ = try await connection.query(PetsStatement(owner: "ann", kind: nil, minimumAge: age))
                    #expect(try await prepared() == 1)
                }
            }
        }
    }
}
