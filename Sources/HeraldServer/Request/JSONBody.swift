import APNsCore
import Foundation
import HeraldCore
import Hummingbird
import NIOCore

private typealias JSONMembers = [String: JSONValue]

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
        let data = Data(buffer.readableBytesView)
        let decoder = JSONDecoder()
        let value: JSONValue
        // An object, as bodies are, decodes as one at once; anything else goes through JSONValue's tries, so that
        // malformed JSON stays a 400 and well-formed JSON that is no object a 422.
        if let members = try? decoder.decode(JSONMembers.self, from: data) {
            value = .object(members)
        } else {
            do {
                value = try decoder.decode(JSONValue.self, from: data)
            } catch {
                throw APIError.invalidJSON("the body is not well-formed JSON")
            }
        }
        if let field = value.fieldHoldingNUL(at: "") {
            // PostgreSQL refuses NUL in text and jsonb; every other character a string may hold is kept.
            throw APIError.validation("must not contain NUL (\\u0000)", field: field.isEmpty ? nil : field)
        }
        return try JSONObject(value, path: "")
    }
}

extension JSONValue {
    /// The path (`data.k[1]`) of the first string holding U+0000, or of the object whose key holds it; nil when none.
    func fieldHoldingNUL(at path: String) -> String? {
        switch self {
        case .string(let text): return text.unicodeScalars.contains("\0") ? path : nil
        case .array(let items):
            for (index, item) in items.enumerated() {
                if let field = item.fieldHoldingNUL(at: "\(path)[\(index)]") { return field }
            }
            return nil
        case .object(let members):
            for (key, member) in members.sorted(by: { $0.key < $1.key }) {
                if key.unicodeScalars.contains("\0") { return path }
                if let field = member.fieldHoldingNUL(at: path.isEmpty ? key : "\(path).\(key)") { return field }
            }
            return nil
        case .null, .bool, .int, .double: return nil
        }
    }
}
