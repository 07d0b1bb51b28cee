/// The counts Herald takes (`badge`, `voteCount`): 0 to 2147483647, a 32-bit signed count, as `openapi.yaml` declares.
enum CountRange {
    static let allowed = 0...Int(Int32.max)

    /// - Throws: ``DomainError`` `.invalid` naming `field` when `value` is outside ``allowed``.
    static func check(_ value: Int?, field: String) throws(DomainError) {
        if let value, !allowed.contains(value) {
            throw .invalid("must be \(allowed.lowerBound) to \(allowed.upperBound)", field: field)
        }
    }
}
