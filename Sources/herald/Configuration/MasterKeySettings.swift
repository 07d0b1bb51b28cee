import Cryptography
import Foundation

/// `HERALD_MASTER_KEY_FILE`: the 32-byte key that seals signing keys kept in the database, as base64 or 64 hex
/// digits (`openssl rand -base64 32`). Read once at start; never logged.
enum MasterKeySettings {
    static let variable = "HERALD_MASTER_KEY_FILE"

    /// The master key, or nil when the variable is unset.
    /// - Throws: ``CommandFailure`` naming the variable when the file is unreadable or holds no 32-byte key.
    static func load(environment: [String: String]) throws -> AES256GCM? {
        guard let path = environment[variable], !path.isEmpty else { return nil }
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw CommandFailure("\(variable): cannot read \(path)")
        }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let bytes: [UInt8]? =
            if trimmed.count == 64, trimmed.allSatisfy(\.isHexDigit) {
                stride(from: 0, to: 64, by: 2).map { offset in
                    let start = trimmed.index(trimmed.startIndex, offsetBy: offset)
                    return UInt8(trimmed[start..<trimmed.index(start, offsetBy: 2)], radix: 16)!
                }
            } else {
                Data(base64Encoded: trimmed).map(Array.init)
            }
        guard let bytes, bytes.count == AES256GCM.keyLength, let key = try? AES256GCM(key: bytes) else {
            throw CommandFailure("\(variable): \(path) must hold 32 bytes as base64 or 64 hex digits")
        }
        return key
    }
}
