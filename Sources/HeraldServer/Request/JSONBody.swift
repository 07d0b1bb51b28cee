import APNsCore
import Foundation
import HeraldCore
import Hummingbird
import NIOCore

/// Reads request bodies: at most the configured size, then well-formed JSON (else 400), then an object (else 422).
enum JSONBody {
    /// The raw body, refused with 413 beyond `limit` bytes, before or while it is read.
    static func bytes(of request: Request, limit: Int) async throws -> ByteBuffer {
        if let length = request.headers[.contentLength].flatMap(Int.init), length > limit {
            throw APIError.payloadTooLarge
        }
        do {
            return try await request.body.collect(upTo: limit)
        } catch is NIOTooManyBytesError {
            throw APIError.payloadTooLarge
        }
    }

    /// The body as a JSON object to read fields from.
    static func object(_ buffer: ByteBuffer) throws -> JSONObject {
        let value: JSONValue
        do {
            value = try JSONDecoder().decode(JSONValue.self, from: Data(buffer.readableBytesView))
        } catch {
            throw APIError.invalidJSON("the body is not well-formed JSON")
        }
        return try JSONObject(value, path: "")
    }
}
