public import Foundation

extension Payload {
    /// The ellipsis that marks a shortened alert body.
    public static let truncationMark = "…"

    /// Encodes the payload, shortening `aps.alert.body` when needed so the result fits in `limit` bytes.
    ///
    /// The body is cut between characters (so never inside a UTF-8 sequence or a grapheme) and ends with
    /// "…"; the longest body that fits is kept. Seed 004 Appendix B: answer `PayloadTooLarge` by
    /// truncating the body, and do it before sending.
    /// - Returns: The (possibly shortened) payload and its JSON bytes.
    /// - Throws: ``PayloadError/tooLarge(size:limit:)`` when even an empty body does not fit.
    public func fitted(toLimit limit: Int) throws(PayloadError) -> (payload: Payload, json: Data) {
        let full = try encoded()
        if full.count <= limit { return (self, full) }
        guard let body = aps.alert?.body, !body.isEmpty else { throw .tooLarge(size: full.count, limit: limit) }
        let characters = Array(body)
        var best: (payload: Payload, json: Data)?
        var low = 0
        var high = characters.count - 1
        while low <= high {
            let middle = (low + high) / 2
            var candidate = self
            candidate.aps.alert?.body = String(characters[0..<middle]) + Self.truncationMark
            let json = try candidate.encoded()
            if json.count <= limit {
                best = (candidate, json)
                low = middle + 1
            } else {
                high = middle - 1
            }
        }
        guard let best else { throw .tooLarge(size: full.count, limit: limit) }
        return best
    }
}
