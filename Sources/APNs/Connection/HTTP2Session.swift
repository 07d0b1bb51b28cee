import APNsCore
internal import CNghttp2
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A client-side `nghttp2_session` driven through memory buffers (`mem_recv`/`mem_send`); owns the
/// session and frees it in `deinit`.
///
/// nghttp2 sessions are single-threaded: one ``APNsConnection`` thread owns this object. Callbacks
/// reach it through `user_data` as an unretained reference, sound because the session never outlives
/// this object, and reach a stream's state through the row of ``StreamTable`` that nghttp2 keeps as the
/// stream's user data. Callbacks only record ``Event``s; the owner handles them after each call returns.
final class HTTP2Session {
    /// Something the server said, in arrival order.
    enum Event: Equatable {
        case settings(maxConcurrentStreams: UInt32?)
        case goAway(lastStreamID: Int32, errorCode: UInt32, debugData: String)
        case pingAcknowledged
        /// `refused` when the server closed the stream with REFUSED_STREAM (never processed, safe to resend),
        /// including streams above a GOAWAY's last stream id.
        case streamClosed(streamID: Int32, response: Response?, errorCode: UInt32, refused: Bool)
    }

    /// A complete response on one stream.
    struct Response: Equatable {
        var status: Int
        var apnsID: String?
        var uniqueID: String?
        var channelID: String?
        var body: [UInt8]
    }

    struct Failure: Error, CustomStringConvertible {
        let function: String
        let code: Int

        var description: String { "\(function): \(String(cString: nghttp2_strerror(Int32(clamping: code))))" }
    }

    private var session: OpaquePointer?
    // Exempt from runtime exclusivity checks, which showed in the profile: only the owning thread reaches them,
    // and no access outlives the statement that makes it.
    @exclusivity(unchecked) private var streams = StreamTable()
    /// The stream whose row was looked up last. A response's frames arrive together, so its headers, body and close
    /// find the row here instead of in nghttp2's stream map, whose lookups missed the cache.
    @exclusivity(unchecked) private var lastLookup: (streamID: Int32, row: Int)?
    @exclusivity(unchecked) private(set) var events: [Event] = []
    /// Reused by every request so that pointing nghttp2 at a header block allocates nothing once warm.
    private var headerVector: [nghttp2_nv] = []

    /// Creates the session and queues the client preface with SETTINGS (no server push, a large window).
    init() throws(Failure) {
        var callbacks: OpaquePointer?
        try Self.check(nghttp2_session_callbacks_new(&callbacks), "nghttp2_session_callbacks_new")
        defer { nghttp2_session_callbacks_del(callbacks) }
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, onFrameReceived)
        nghttp2_session_callbacks_set_on_header_callback(callbacks, onHeader)
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, onDataChunk)
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, onStreamClose)

        var option: OpaquePointer?
        try Self.check(nghttp2_option_new(&option), "nghttp2_option_new")
        defer { nghttp2_option_del(option) }
        // APNs allows a single stream until a request succeeds; never assume nghttp2's default of 100.
        nghttp2_option_set_peer_max_concurrent_streams(option, 1)

        var created: OpaquePointer?
        // Unretained: `self` owns the session and deletes it in deinit, so user_data never dangles.
        let userData = Unmanaged.passUnretained(self).toOpaque()
        try Self.check(
            nghttp2_session_client_new2(&created, callbacks, userData, option), "nghttp2_session_client_new2")
        session = created

        var settings = [
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), value: 0),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue), value: 1 << 20),
        ]
        try Self.check(
            nghttp2_submit_settings(created, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, settings.count),
            "nghttp2_submit_settings")
        try Self.check(
            nghttp2_session_set_local_window_size(created, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0, 1 << 24),
            "nghttp2_session_set_local_window_size")
    }

    deinit { nghttp2_session_del(session) }

    /// Submits a request with the header fields of `block` and `body` (none: the headers end the stream); returns
    /// its stream id.
    /// - Throws: ``Failure`` when nghttp2 refuses (for example after GOAWAY).
    func submitRequest(_ block: HeaderBlock, body: Data) throws(Failure) -> Int32 {
        // Taken out of `self` while in use, so that filling it neither copies nor meets an exclusivity check.
        var vector = headerVector
        headerVector = []
        defer { headerVector = vector }
        vector.removeAll(keepingCapacity: true)
        let row = streams.claim(requestBody: body)
        let streamData = StreamTable.userData(for: row)
        let streamID = block.bytes.withUnsafeBufferPointer { bytes -> Int32 in
            // nghttp2 reads names and values as mutable pointers but never writes through them.
            let base = UnsafeMutablePointer(mutating: bytes.baseAddress!)
            for field in block.fields {
                let flags = field.neverIndexed ? NGHTTP2_NV_FLAG_NO_INDEX.rawValue : NGHTTP2_NV_FLAG_NONE.rawValue
                vector.append(
                    nghttp2_nv(
                        name: base + field.nameStart, value: base + field.valueStart, namelen: field.nameLength,
                        valuelen: field.valueLength, flags: UInt8(flags)))
            }
            // nghttp2 copies the header names and values during the call, so the block may be reused afterwards.
            if body.isEmpty { return nghttp2_submit_request(session, nil, vector, vector.count, nil, streamData) }
            var provider = nghttp2_data_provider(
                source: nghttp2_data_source(ptr: streamData), read_callback: readBodyCallback)
            return nghttp2_submit_request(session, nil, vector, vector.count, &provider, streamData)
        }
        guard streamID > 0 else {
            _ = streams.release(row)
            throw Failure(function: "nghttp2_submit_request", code: Int(streamID))
        }
        return streamID
    }

    /// Cancels a stream whose caller already has an answer.
    func resetStream(_ streamID: Int32) {
        // Fails only for an unknown or closed stream, which needs no reset.
        _ = nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, NGHTTP2_CANCEL.rawValue)
    }

    func submitPing() throws(Failure) {
        try Self.check(nghttp2_submit_ping(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nil), "nghttp2_submit_ping")
    }

    /// Queues a GOAWAY so the server knows the client is leaving.
    func terminate() {
        // Fails only when the session is already terminating, which is the goal anyway.
        _ = nghttp2_session_terminate_session(session, NGHTTP2_NO_ERROR.rawValue)
    }

    /// Feeds bytes from the server; events land in ``events``.
    func receive(_ bytes: UnsafeRawBufferPointer) throws(Failure) {
        let consumed = nghttp2_session_mem_recv(session, bytes.bindMemory(to: UInt8.self).baseAddress, bytes.count)
        guard consumed >= 0 else { throw Failure(function: "nghttp2_session_mem_recv", code: consumed) }
    }

    /// Appends every frame nghttp2 wants to send to `output`.
    func drainOutput(into output: inout [UInt8]) throws(Failure) {
        while true {
            var chunk: UnsafePointer<UInt8>?
            let length = nghttp2_session_mem_send(session, &chunk)
            guard length >= 0 else { throw Failure(function: "nghttp2_session_mem_send", code: length) }
            guard length > 0, let chunk else { return }
            output.append(contentsOf: UnsafeBufferPointer(start: chunk, count: length))
        }
    }

    /// Whether the session still wants to talk; false once both sides are done (after GOAWAY).
    var isAlive: Bool { nghttp2_session_want_read(session) != 0 || nghttp2_session_want_write(session) != 0 }

    func takeEvents() -> [Event] {
        defer { events.removeAll(keepingCapacity: true) }
        return events
    }

    private static func check(_ code: Int32, _ function: String) throws(Failure) {
        guard code == 0 else { throw Failure(function: function, code: Int(code)) }
    }

    // MARK: Callback targets

    fileprivate func frameReceived(_ frame: UnsafePointer<nghttp2_frame>) {
        let header = frame.pointee.hd
        switch UInt32(header.type) {
        case NGHTTP2_SETTINGS.rawValue where header.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) == 0:
            let limit = nghttp2_session_get_remote_settings(session, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS)
            // nghttp2 reports "no limit" as 2^32 - 1.
            events.append(.settings(maxConcurrentStreams: limit == UInt32.max ? nil : limit))
        case NGHTTP2_GOAWAY.rawValue:
            let goAway = frame.pointee.goaway
            let debug =
                goAway.opaque_data.map {
                    String(decoding: UnsafeBufferPointer(start: $0, count: goAway.opaque_data_len), as: UTF8.self)
                } ?? ""
            events.append(.goAway(lastStreamID: goAway.last_stream_id, errorCode: goAway.error_code, debugData: debug))
        case NGHTTP2_PING.rawValue where header.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) != 0:
            events.append(.pingAcknowledged)
        case NGHTTP2_HEADERS.rawValue,
            NGHTTP2_DATA.rawValue
        where header.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0:
            if let row = row(of: header.stream_id) { streams[row].responseComplete = true }
        default:
            break
        }
    }

    fileprivate func header(streamID: Int32, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) {
        guard let row = row(of: streamID) else { return }
        if Self.matches(name, ":status") {
            streams[row].status = Self.parseStatus(value)
        } else if Self.matches(name, "apns-id") || Self.matches(name, "apns-request-id") {
            streams[row].apnsID = String(decoding: value, as: UTF8.self)
        } else if Self.matches(name, "apns-unique-id") {
            streams[row].uniqueID = String(decoding: value, as: UTF8.self)
        } else if Self.matches(name, "apns-channel-id") {
            streams[row].channelID = String(decoding: value, as: UTF8.self)
        }
    }

    /// The row of an open stream this session submitted, from nghttp2's own table.
    private func row(of streamID: Int32) -> Int? {
        if let lastLookup, lastLookup.streamID == streamID { return lastLookup.row }
        let row = StreamTable.row(from: nghttp2_session_get_stream_user_data(session, streamID))
        lastLookup = row.map { (streamID, $0) }
        return row
    }

    /// Whether a header name (nghttp2 hands them over lowercased) is `literal`, compared as bytes.
    private static func matches(_ name: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
        guard name.count == literal.utf8CodeUnitCount, let bytes = name.baseAddress else { return false }
        return memcmp(bytes, literal.utf8Start, name.count) == 0
    }

    /// `:status` is three digits; parsed without building a String for every response.
    private static func parseStatus(_ value: UnsafeBufferPointer<UInt8>) -> Int? {
        guard value.count == 3 else { return nil }
        var status = 0
        for digit in value {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(digit) else { return nil }
            status = status * 10 + Int(digit - UInt8(ascii: "0"))
        }
        return status
    }

    fileprivate func dataChunk(streamID: Int32, _ data: UnsafeBufferPointer<UInt8>) {
        guard let row = row(of: streamID) else { return }
        streams.appendResponseBody(data, to: row)
    }

    fileprivate func streamClosed(streamID: Int32, errorCode: UInt32) {
        guard let row = row(of: streamID) else { return }
        lastLookup = nil
        let stream = streams.release(row)
        // A stream reset before END_STREAM has no usable answer, even if a status arrived.
        let response =
            stream.responseComplete
            ? stream.status.map {
                Response(
                    status: $0, apnsID: stream.apnsID, uniqueID: stream.uniqueID, channelID: stream.channelID,
                    body: stream.responseBody)
            } : nil
        events.append(
            .streamClosed(
                streamID: streamID, response: response, errorCode: errorCode,
                refused: errorCode == NGHTTP2_REFUSED_STREAM.rawValue))
    }

    /// Copies the next piece of the request body of stream `row` into nghttp2's buffer; sets EOF after the last byte.
    fileprivate func readBody(row: Int, into buffer: UnsafeMutableRawBufferPointer, flags: inout UInt32) -> Int {
        let (count, isLast) = streams.readRequestBody(of: row, into: buffer)
        if isLast { flags |= NGHTTP2_DATA_FLAG_EOF.rawValue }
        return count
    }
}

// MARK: - C callbacks: recover the session from user_data, never trap on what the server sends.

/// Runs `body` with the session behind `userData`, or returns `failure` when there is none. Guaranteed rather than
/// retained: the session is in the middle of the nghttp2 call that invoked the callback, so it is alive, and a
/// retain and release per header and per frame would be measurable.
private func withSession<Result>(
    _ userData: UnsafeMutableRawPointer?, else failure: Result, _ body: (HTTP2Session) -> Result
) -> Result {
    guard let userData else { return failure }
    return Unmanaged<HTTP2Session>.fromOpaque(userData)._withUnsafeGuaranteedRef(body)
}

private let onFrameReceived: nghttp2_on_frame_recv_callback = { _, frame, userData in
    guard let frame else { return NGHTTP2_ERR_CALLBACK_FAILURE.rawValue }
    return withSession(userData, else: NGHTTP2_ERR_CALLBACK_FAILURE.rawValue) { owner in
        owner.frameReceived(frame)
        return 0
    }
}

private let onHeader: nghttp2_on_header_callback = { _, frame, name, nameLength, value, valueLength, _, userData in
    guard let frame, let name, let value else { return NGHTTP2_ERR_CALLBACK_FAILURE.rawValue }
    return withSession(userData, else: NGHTTP2_ERR_CALLBACK_FAILURE.rawValue) { owner in
        owner.header(
            streamID: frame.pointee.hd.stream_id, name: UnsafeBufferPointer(start: name, count: nameLength),
            value: UnsafeBufferPointer(start: value, count: valueLength))
        return 0
    }
}

private let onDataChunk: nghttp2_on_data_chunk_recv_callback = { _, _, streamID, data, length, userData in
    withSession(userData, else: NGHTTP2_ERR_CALLBACK_FAILURE.rawValue) { owner in
        if let data { owner.dataChunk(streamID: streamID, UnsafeBufferPointer(start: data, count: length)) }
        return 0
    }
}

private let onStreamClose: nghttp2_on_stream_close_callback = { _, streamID, errorCode, userData in
    withSession(userData, else: NGHTTP2_ERR_CALLBACK_FAILURE.rawValue) { owner in
        owner.streamClosed(streamID: streamID, errorCode: errorCode)
        return 0
    }
}

/// The data source holds the stream's row, which stays claimed until the stream closes.
private let readBodyCallback: nghttp2_data_source_read_callback = { _, _, buffer, length, flags, source, userData in
    guard let buffer, let flags, let row = StreamTable.row(from: source?.pointee.ptr) else {
        return Int(NGHTTP2_ERR_CALLBACK_FAILURE.rawValue)
    }
    return withSession(userData, else: Int(NGHTTP2_ERR_CALLBACK_FAILURE.rawValue)) { owner in
        owner.readBody(
            row: row, into: UnsafeMutableRawBufferPointer(start: buffer, count: length), flags: &flags.pointee)
    }
}
