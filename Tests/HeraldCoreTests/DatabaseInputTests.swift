import HeraldCore
import Postgres
import Testing

@Suite struct DatabaseInputTests {
    @Test func dataExceptionsAreRefusedValuesAndNothingElseIs() {
        func error(_ state: String?, kind: PostgresError.Kind = .server) -> PostgresError {
            PostgresError(kind: kind, message: "refused", sqlState: state.map(SQLState.init))
        }
        #expect(DatabaseInput.isRefusedValue(error("22021")))
        #expect(DatabaseInput.isRefusedValue(error("22003")))
        #expect(!DatabaseInput.isRefusedValue(error("23505")))
        #expect(!DatabaseInput.isRefusedValue(error(nil, kind: .poolTimeout)))
        #expect(!DatabaseInput.isRefusedValue(CancellationError()))
    }
}
