internal import CLibPQ
import Foundation

/// Owns one `PGcancel`: what libpq needs to ask the server, over a connection of its own, to cancel the statement a
/// session is running. Made once per session; ``send()`` may be called from any thread, while the session's own
/// thread is busy with the statement.
///
/// "The PGcancel object … can be used by PQcancel from any thread … PQcancel can safely be invoked from a signal
/// handler" and "PQfreeCancel frees a data object previously created by PQgetCancel" (libpq manual, 34.7). It is
/// freed in `deinit` only, when no ``send()`` can be running.
final class LibPQCancel: @unchecked Sendable {
    private let pointer: OpaquePointer

    /// Takes what cancelling needs from `connection`; call it on the connection's thread.
    /// - Returns: `nil` when libpq has nothing to take ("PQgetCancel returns NULL if conn is NULL or invalid").
    init?(connection: OpaquePointer) {
        guard let pointer = PQgetCancel(connection) else { return nil }
        self.pointer = pointer
    }

    deinit {
        PQfreeCancel(pointer)
    }

    /// Asks the server to cancel the session's current statement. Blocks while it connects to the server, so it
    /// never runs on Swift's cooperative pool.
    ///
    /// A request that arrives when the session is idle does nothing; one that arrives in time makes the statement
    /// fail with SQLSTATE 57014 (`query_canceled`).
    /// - Throws: ``PostgresError`` `.connectionFailed` with libpq's reason when the request could not be sent.
    func send() throws {
        // "The return value is 1 if the cancel request was successfully dispatched and 0 if not. If not, errbuf is
        // filled with an explanatory error message. errbuf must be a char array of size errbufsize (the recommended
        // size is 256 bytes)."
        var reason = [CChar](repeating: 0, count: 256)
        let dispatched = reason.withUnsafeMutableBufferPointer { buffer in
            PQcancel(pointer, buffer.baseAddress, Int32(buffer.count))
        }
        guard dispatched == 1 else {
            let text = reason.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            throw PostgresError(
                kind: .connectionFailed,
                message: "could not send the cancel request: " + text.trimmingCharacters(in: .whitespacesAndNewlines))
        }
    }
}
