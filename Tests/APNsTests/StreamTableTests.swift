import Foundation
import Testing

@testable import APNs

/// Response bodies kept per stream: APNs sends JSON objects or nothing, so nothing else is held.
struct StreamTableTests {
    private func bodyKept(_ chunks: [String]) -> [UInt8] {
        var table = StreamTable()
        let row = table.claim(requestBody: Data())
        for chunk in chunks {
            Array(chunk.utf8).withUnsafeBufferPointer { table.appendResponseBody($0, to: row) }
        }
        return table.release(row).responseBody
    }

    @Test func jsonBodyIsKeptAcrossChunks() {
        #expect(bodyKept(["{\"reason\":", "\"BadDeviceToken\"}"]) == Array("{\"reason\":\"BadDeviceToken\"}".utf8))
    }

    @Test func bodyThatIsNoJSONObjectIsDropped() {
        #expect(bodyKept(["<html><body>404 Not Found</body></html>"]).isEmpty)
    }

    @Test func oversizedBodyStopsAtTheCap() {
        let chunk = "{" + String(repeating: "a", count: 40 * 1024)
        #expect(bodyKept([chunk, chunk]).count == chunk.utf8.count)
    }
}
