import Cryptography
public import Foundation

/// An `Idempotency-Key` of one API key's request, with the hash of what was asked.
public struct IdempotencyKey: Sendable, Equatable {
    public var apiKeyID: UUID
    public var key: String
    /// SHA-256 (hex) of the method, path and body.
    public var requestHash: String

    /// - Throws: ``DomainError`` `.invalid` unless `key` is 1 to 255 printable ASCII characters.
    public init(apiKeyID: UUID, key: String, method: String, path: String, body: some DataProtocol) throws(DomainError)
    {
        guard (1...255).contains(key.utf8.count), key.utf8.allSatisfy({ (0x21...0x7e).contains($0) }) else {
            throw .invalid("must be 1 to 255 printable ASCII characters", field: "Idempotency-Key")
        }
        self.apiKeyID = apiKeyID
        self.key = key
        var input = Data("\(method) \(path)\n".utf8)
        input.append(contentsOf: body)
        requestHash = SHA256.hexDigest(input)
    }
}
