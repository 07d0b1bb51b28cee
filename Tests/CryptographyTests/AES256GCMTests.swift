import Cryptography
import Testing

@Suite struct AES256GCMTests {
    static func bytes(hex: String) -> [UInt8] {
        var result: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            result.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return result
    }

    /// The GCM specification's test cases 13 and 14 (AES-256, zero key and nonce), as sealed values.
    @Test func openingMatchesTheSpecificationsTestVectors() throws {
        let cipher = try AES256GCM(key: [UInt8](repeating: 0, count: 32))
        let nonce = [UInt8](repeating: 0, count: 12)
        let sixteenZeros = nonce + Self.bytes(hex: "cea7403d4d606b6e074ec5d3baf39d18d0d1c8a799996bf0265b98b5d48ab919")
        #expect(try cipher.open(sixteenZeros) == [UInt8](repeating: 0, count: 16))
        #expect(try cipher.open(nonce + Self.bytes(hex: "530f8afbc74536b9a963b4f1c4cb738b")) == [])
    }

    @Test func sealedValuesOpenOnlyUnchangedWithTheirKeyAndContext() throws {
        let key = SecureRandom.bytes(count: 32)
        let cipher = try AES256GCM(key: key)
        let secret = SecureRandom.bytes(count: 200)
        let context = Array("TEAM000001/KEY0000001".utf8)
        let sealed = try cipher.seal(secret, context: context)
        #expect(sealed.count == 12 + secret.count + 16)
        #expect(try cipher.open(sealed, context: context) == secret)
        #expect(try cipher.seal(secret, context: context) != sealed, "a fresh nonce each time")

        var changed = sealed
        changed[20] ^= 1
        #expect(throws: AES256GCMError.notAuthentic) { try cipher.open(changed, context: context) }
        #expect(throws: AES256GCMError.notAuthentic) { try cipher.open(sealed, context: Array("other".utf8)) }
        let other = try AES256GCM(key: SecureRandom.bytes(count: 32))
        #expect(throws: AES256GCMError.notAuthentic) { try other.open(sealed, context: context) }
        #expect(throws: AES256GCMError.notAuthentic) { try cipher.open(Array(sealed.prefix(20))) }
        #expect(throws: AES256GCMError.badKeyLength(16)) { try AES256GCM(key: Array(key.prefix(16))) }
    }
}
