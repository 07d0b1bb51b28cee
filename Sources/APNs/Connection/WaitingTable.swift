import Foundation

extension APNsConnection {
    /// The requests one connection holds until they are answered, in rows reused once answered. A row's number is the
    /// request's ticket in the ``ConnectionStateMachine``, so finding a request costs an array index, not a hash.
    struct WaitingTable {
        struct Entry {
            let submission: Submission
            let takenAt: ContinuousClock.Instant
            /// The provider token its stream was opened with, reported back if APNs refuses it.
            var token: ProviderToken?
        }

        private var rows: [Entry?] = []
        private var freeRows: [Int] = []

        /// Stores `entry` in a free row; returns the row's ticket.
        mutating func insert(_ entry: Entry) -> ConnectionStateMachine.Ticket {
            if let row = freeRows.popLast() {
                rows[row] = entry
                return ConnectionStateMachine.Ticket(row)
            }
            rows.append(entry)
            return ConnectionStateMachine.Ticket(rows.count - 1)
        }

        subscript(ticket: ConnectionStateMachine.Ticket) -> Entry? {
            // Borrowed and modified in place: a copy of an entry would retain everything its request holds.
            _read { yield rows[Int(ticket)] }
            _modify { yield &rows[Int(ticket)] }
        }

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
