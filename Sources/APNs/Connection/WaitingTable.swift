import APNsCore
import Foundation

extension APNsConnection {
    /// The requests one connection holds until they are answered, in rows reused once answered. A row's number is the
    /// request's ticket in the ``ConnectionStateMachine``, so finding a request costs an array index, not a hash.
    struct WaitingTable {
        struct Entry {
            let submission: Submission
            /// When the connection took it from its inbox, as an offset from the table's origin.
            let takenAt: Duration
            /// The provider token its stream was opened with, reported back if APNs refuses it.
            var token: ProviderToken?
        }

        private var rows: [Entry?] = []
        private var freeRows: [Int] = []
        /// Entries keep their time as an offset from this instant: `ContinuousClock.Instant` is resilient, and
        /// entries holding one would be copied and destroyed through runtime witnesses.
        private let origin = ContinuousClock.now

        /// Stores `submission`, taken from the inbox at `now`, in a free row; returns the row's ticket.
        mutating func insert(_ submission: Submission, takenAt now: ContinuousClock.Instant)
            -> ConnectionStateMachine.Ticket
        {
            let entry = Entry(submission: submission, takenAt: now - origin)
            if let row = freeRows.popLast() {
                rows[row] = entry
                return ConnectionStateMachine.Ticket(row)
            }
            rows.append(entry)
            return ConnectionStateMachine.Ticket(rows.count - 1)
        }

        // The readers below reach into a row through its address: reading `rows[row]` copies the whole entry first,
        // request, reply and token included. They are mutating only so that the loop's calls borrow its stored table
        // in place: a non-mutating call on a class's stored struct copies the table first, retaining its arrays.

        /// Runs `body` with the request of `ticket` where it lies, if it is still waiting: returning a copy would
        /// retain and release everything the request holds, once per push.
        mutating func withRequest<Result, Failure: Error>(
            of ticket: ConnectionStateMachine.Ticket, _ body: (borrowing PushRequest) throws(Failure) -> Result
        ) throws(Failure) -> Result? {
            try rows.withUnsafeBufferPointer { (rows) throws(Failure) -> Result? in
                guard rows[Int(ticket)] != nil else { return nil }
                return try rows[Int(ticket)]!.submission.withRequest(body)
            }
        }

        /// The `apns-id` that `ticket`'s request carries, if it is still waiting.
        mutating func sentID(of ticket: ConnectionStateMachine.Ticket) -> APNsID? {
            rows.withUnsafeBufferPointer { $0[Int(ticket)]?.submission.withRequest { $0.apnsID } }
        }

        mutating func setToken(_ token: ProviderToken, of ticket: ConnectionStateMachine.Ticket) {
            rows[Int(ticket)]?.token = token
        }

        /// How long `entry` has waited at `now`.
        func waited(_ entry: Entry, now: ContinuousClock.Instant) -> Duration { now - origin - entry.takenAt }

        /// Takes the entry out and frees its row for the next request.
        mutating func remove(_ ticket: ConnectionStateMachine.Ticket) -> Entry? {
            guard let entry = rows[Int(ticket)].take() else { return nil }
            freeRows.append(Int(ticket))
            return entry
        }

        /// The tickets of the entries submitted under any of `submissionTickets`, for cancellations, which are rare
        /// enough for a scan.
        func tickets(submittedAs submissionTickets: Set<APNsConnection.Ticket>) -> [ConnectionStateMachine.Ticket] {
            rows.indices.filter { rows[$0].map { submissionTickets.contains($0.submission.ticket) } ?? false }
                .map(ConnectionStateMachine.Ticket.init)
        }
    }
}
