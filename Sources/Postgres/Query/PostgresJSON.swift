public import Foundation

/// A JSON document bound as `jsonb` and read from `json` or `jsonb` columns.
public struct PostgresJSON: Sendable, Hashable, PostgresEncodable, PostgresDecodable {
    /// The document's JSON text.
    public var text: String

    public init(text: String) { self.text = text }

    /// Encodes `value` with `encoder`.
    public init(encoding value: some Encodable, encoder: JSONEncoder = JSONEncoder()) throws {
        self.text = String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    /// Decodes the document as `type`.
    public func decode<T: Decodable>(_ type: T.Type, decoder: JSONDecoder = JSONDecoder()) throws -> T {
        try decoder.decode(type, from: Data(text.utf8))
    }

    public static var postgresType: PostgresType { .jsonb }

    /// The jsonb binary format is a version byte (1) followed by the JSON text.
    public func encode(into buffer: inout [UInt8]) {
        buffer.append(1)
        buffer.append(contentsOf: text.utf8)
    }

    public init(postgresBytes bytes: UnsafeRawBufferPointer, type: PostgresType) throws {
        switch type {
        case .jsonb:
            guard bytes.first == 1 else {
                throw PostgresError(kind: .decoding, message: "unsupported jsonb format version")
            }
            text = String(decoding: bytes.dropFirst(), as: UTF8.self)
        case .json:
            text = String(decoding: bytes, as: UTF8.self)
        default:
            throw decodingMismatch(PostgresJSON.self, type)
        }
    }
}
