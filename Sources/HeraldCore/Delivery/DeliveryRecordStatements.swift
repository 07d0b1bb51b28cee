import APNsCore
import Foundation
import Postgres

extension DeliveryStore {
    /// Deletes the deliveries that finish with these results, each found where the claim left it (a TID scan), and
    /// returns the ids it deleted. A row moved since (`VACUUM FULL`, say, or a rescue and a claim made since) is
    /// missing from the answer and goes to ``DeleteStatement`` by id, where a claim made since, even by this worker,
    /// keeps it from being deleted by its raised attempt count.
    struct DeleteInPlaceStatement: PostgresStatement {
        enum Parameter: PostgresParameter {
            case ids
            case worker
            case claimedAttempts
            case locations
        }

        static let name = "herald_delivery_delete_in_place"

        static let sql = """
            DELETE FROM deliveries AS d
            USING unnest(
                \(Parameter.ids)::uuid[], \(Parameter.claimedAttempts)::int8[], \(Parameter.locations)::text[]::tid[]
            ) AS r(id, claimed_attempts, location)
            WHERE \(isResultRow(ids: Parameter.ids, locations: Parameter.locations))
                AND \(heldByClaim(worker: Parameter.worker))
            RETURNING d.id
            """

        let ids: [UUID]
        let claims: ClaimCheck
        let locations: [String]

        init(_ attempts: [DeliveryAttempt], workerID: String) {
            ids = attempts.map(\.delivery.id)
            claims = ClaimCheck(attempts, workerID: workerID)
            locations = attempts.map(\.delivery.rowLocation.ctid)
        }

        func makeBindings() -> PostgresBindings {
            PostgresBindings(Parameter.self) {
                switch $0 {
                case .ids: .init(ids)
                case .worker: .init(claims.workerID)
                case .claimedAttempts: .init(claims.attempts)
                case .locations: .init(locations)
                }
            }
        }

        func decodeRow(_ row: PostgresRow) throws -> UUID { try row.decode(column: 0, as: UUID.self) }
    }

    /// Deletes the deliveries that finish with these results, found by id (through the primary key).
    struct DeleteStatement: PostgresStatement {
        typealias Row = Void

        enum Parameter: PostgresParameter {
            case ids
            case worker
            case claimedAttempts
        }

        static let name = "herald_delivery_delete"

        static let sql = """
            DELETE FROM deliveries AS d
            USING unnest(\(Parameter.ids)::uuid[], \(Parameter.claimedAttempts)::int8[]) AS r(id, claimed_attempts)
            WHERE \(isResultRow(ids: Parameter.ids)) AND \(heldByClaim(worker: Parameter.worker))
            """

        let ids: [UUID]
        let claims: ClaimCheck

        init(_ attempts: [DeliveryAttempt], workerID: String) {
            ids = attempts.map(\.delivery.id)
            claims = ClaimCheck(attempts, workerID: workerID)
        }

        func makeBindings() -> PostgresBindings {
            PostgresBindings(Parameter.self) {
                switch $0 {
                case .ids: .init(ids)
                case .worker: .init(claims.workerID)
                case .claimedAttempts: .init(claims.attempts)
                }
            }
        }
    }

    /// Records deliveries still open (a retry, an attempt given back), each found where the claim left it, as
    /// ``DeleteInPlaceStatement`` finds them, and returns the ids it recorded.
    struct RecordInPlaceStatement: PostgresStatement {
        enum Parameter: PostgresParameter {
            case ids
            case states
            case environments
            case refunds
            case nextAttempts
            case statuses
            case reasons
            case worker
            case claimedAttempts
            case locations
        }

        static let name = "herald_delivery_record_in_place"

        static let sql = """
            UPDATE deliveries AS d
            SET \(recordedColumns)
            FROM unnest(
                \(Parameter.ids)::uuid[], \(Parameter.states)::text[], \(Parameter.environments)::text[],
                \(Parameter.refunds)::int8[], \(Parameter.nextAttempts)::timestamptz[], \(Parameter.statuses)::int8[],
                \(Parameter.reasons)::text[], \(Parameter.claimedAttempts)::int8[],
                \(Parameter.locations)::text[]::tid[]
            ) AS r(\(recordedResultNames), location)
            WHERE \(isResultRow(ids: Parameter.ids, locations: Parameter.locations))
                AND \(heldByClaim(worker: Parameter.worker))
            RETURNING d.id
            """

        let results: RecordedResults
        let claims: ClaimCheck
        let locations: [String]

        init(_ attempts: [DeliveryAttempt], workerID: String) {
            results = RecordedResults(attempts)
            claims = ClaimCheck(attempts, workerID: workerID)
            locations = attempts.map(\.delivery.rowLocation.ctid)
        }

        func makeBindings() -> PostgresBindings {
            PostgresBindings(Parameter.self) {
                switch $0 {
                case .ids: .init(results.ids)
                case .states: .init(results.states)
                case .environments: .init(results.environments)
                case .refunds: .init(results.refunds)
                case .nextAttempts: .init(results.nextAttempts)
                case .statuses: .init(results.statuses)
                case .reasons: .init(results.reasons)
                case .worker: .init(claims.workerID)
                case .claimedAttempts: .init(claims.attempts)
                case .locations: .init(locations)
                }
            }
        }

        func decodeRow(_ row: PostgresRow) throws -> UUID { try row.decode(column: 0, as: UUID.self) }
    }

    /// Records open deliveries found by id (through the primary key).
    struct RecordStatement: PostgresStatement {
        typealias Row = Void

        enum Parameter: PostgresParameter {
            case ids
            case states
            case environments
            case refunds
            case nextAttempts
            case statuses
            case reasons
            case worker
            case claimedAttempts
        }

        static let name = "herald_delivery_record"

        static let sql = """
            UPDATE deliveries AS d
            SET \(recordedColumns)
            FROM unnest(
                \(Parameter.ids)::uuid[], \(Parameter.states)::text[], \(Parameter.environments)::text[],
                \(Parameter.refunds)::int8[], \(Parameter.nextAttempts)::timestamptz[], \(Parameter.statuses)::int8[],
                \(Parameter.reasons)::text[], \(Parameter.claimedAttempts)::int8[]
            ) AS r(\(recordedResultNames))
            WHERE \(isResultRow(ids: Parameter.ids)) AND \(heldByClaim(worker: Parameter.worker))
            """

        let results: RecordedResults
        let claims: ClaimCheck

        init(_ attempts: [DeliveryAttempt], workerID: String) {
            results = RecordedResults(attempts)
            claims = ClaimCheck(attempts, workerID: workerID)
        }

        func makeBindings() -> PostgresBindings {
            PostgresBindings(Parameter.self) {
                switch $0 {
                case .ids: .init(results.ids)
                case .states: .init(results.states)
                case .environments: .init(results.environments)
                case .refunds: .init(results.refunds)
                case .nextAttempts: .init(results.nextAttempts)
                case .statuses: .init(results.statuses)
                case .reasons: .init(results.reasons)
                case .worker: .init(claims.workerID)
                case .claimedAttempts: .init(claims.attempts)
                }
            }
        }
    }

    /// That row `d` is the one the `unnest` row `r` is about: found where the claim left it, given `locations` (the
    /// parameter of the claimed rows' locations, as text), else by its id (the parameter `ids`).
    ///
    /// The rows are also named through a sub-selected array, in a form that makes the planner read `deliveries` by
    /// them (a TID scan for locations, the primary key for ids) and join the result to `r`. Joined to `unnest` alone,
    /// the planner may scan the whole outbox instead and test each `sending` row against every result, a nested loop
    /// of outbox rows × results: the statistics of a table whose rows change state within seconds often say no row
    /// is `sending`, so such a scan looks like it finds one row. It found 2,000 and took 136 ms for 500 results in a
    /// 20,000-row outbox, where this form takes under 1 ms. The array comes through a sub-select, whose size the
    /// planner does not guess from the bound value, as in the claim. Once a session plans a statement generically, by
    /// location it looks each result's row up by TID as before; by id it may test the rows it found against every
    /// result, which the few rows moved since their claim make cheap.
    private static func isResultRow<P: PostgresParameter>(ids: P, locations: P? = nil) -> String {
        guard let locations else { return "d.id = ANY (ARRAY(SELECT unnest(\(ids)::uuid[]))) AND d.id = r.id" }
        return
            "d.ctid = ANY (ARRAY(SELECT unnest(\(locations)::text[]::tid[]))) AND d.ctid = r.location AND d.id = r.id"
    }

    /// That row `d` is still held by the claim of `worker` (a parameter) that set its attempt count to
    /// `r.claimed_attempts`: a claim made since, even by the same worker, has raised the count.
    private static func heldByClaim(worker: some PostgresParameter) -> String {
        "d.state = 'sending' AND d.claimed_by = \(worker) AND d.attempts = r.claimed_attempts"
    }

    /// The names of the result columns the record statements take, in the `unnest` row `r`.
    private static let recordedResultNames =
        "id, state, environment, refund, next_attempt_at, status, reason, claimed_attempts"

    /// What recording an open delivery writes, from the `unnest` row `r`: leaving `sending` releases the claim.
    private static let recordedColumns = """
        state = r.state, environment = r.environment, attempts = d.attempts - r.refund::int4,
            next_attempt_at = r.next_attempt_at, last_status = NULLIF(r.status, 0)::int4,
            last_reason = NULLIF(r.reason, ''), claimed_by = NULL, lease_expires_at = NULL, updated_at = now()
        """
}

/// What a record statement checks a row's claim by: the worker that holds it, and the attempt count its claim set.
struct ClaimCheck: Sendable {
    let workerID: String
    let attempts: [Int]

    init(_ attempts: [DeliveryAttempt], workerID: String) {
        self.workerID = workerID
        self.attempts = attempts.map(\.delivery.attempt)
    }
}

/// What recording open deliveries writes, one array per column, in the order of the attempts.
struct RecordedResults: Sendable {
    private(set) var ids: [UUID] = []
    private(set) var states: [String] = []
    private(set) var environments: [String] = []
    private(set) var refunds: [Int] = []
    private(set) var nextAttempts: [Date] = []
    /// The HTTP status, 0 for none.
    private(set) var statuses: [Int] = []
    /// The reason's text, empty for none.
    private(set) var reasons: [String] = []

    init(_ attempts: [DeliveryAttempt]) {
        for attempt in attempts {
            let delivery = attempt.delivery
            ids.append(delivery.id)
            states.append(attempt.outcome.state.rawValue)
            var environment = delivery.environment
            var next = delivery.dueAt
            switch attempt.outcome {
            case .retryInOtherEnvironment(let other):
                environment = other
                next = attempt.finishedAt
            case .retry(let at, _): next = at
            case .retryShortened, .pauseKey, .release: next = attempt.finishedAt
            default: break
            }
            environments.append(environment.rawValue)
            refunds.append(attempt.outcome.refundsAttempt ? 1 : 0)
            nextAttempts.append(next)
            statuses.append(attempt.httpStatus ?? 0)
            reasons.append(attempt.reason?.text ?? "")
        }
    }
}
