import APNsCore
import Foundation
import HeraldCore

/// Typed, strict access to the members of a JSON object: wrong types and unknown keys are 422s naming the field by
/// its path (`push.newFeedback`).
struct JSONObject {
    let members: [String: JSONValue]
    let path: String

    init(_ value: JSONValue, path: String) throws(APIError) {
        guard case .object(let members) = value else {
            throw .validation("must be a JSON object", field: path.isEmpty ? nil : path)
        }
        self.members = members
        self.path = path
    }

    func field(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    func has(_ key: String) -> Bool { members[key] != nil }

    /// Refuses members other than `keys`.
    func allowOnly(_ keys: Set<String>) throws(APIError) {
        if let unknown = members.keys.sorted().first(where: { !keys.contains($0) }) {
            throw .validation("unknown field", field: field(unknown))
        }
    }

    /// The member's value; `null` is no value of an optional member (leave the key out), so it fails the type
    /// check like any other wrong type, as `openapi.yaml` declares.
    func present(_ key: String) -> JSONValue? { members[key] }

    private func mismatch(_ key: String, _ expected: String) -> APIError {
        .validation(
            members[key] == .null ? "must be \(expected) (leave the key out for none)" : "must be \(expected)",
            field: field(key))
    }

    func string(_ key: String) throws(APIError) -> String? {
        guard let value = present(key) else { return nil }
        guard case .string(let string) = value else { throw mismatch(key, "a string") }
        return string
    }

    func requiredString(_ key: String) throws(APIError) -> String {
        guard let value = try string(key) else { throw .validation("is required", field: field(key)) }
        return value
    }

    func bool(_ key: String) throws(APIError) -> Bool? {
        guard let value = present(key) else { return nil }
        guard case .bool(let bool) = value else { throw mismatch(key, "true or false") }
        return bool
    }

    /// Absent → `nil` (leave alone); `null` → `.clear`; a boolean → `.set`.
    func overrideChange(_ key: String) throws(APIError) -> OverrideChange? {
        guard let value = members[key] else { return nil }
        switch value {
        case .null: return .clear
        case .bool(let bool): return .set(bool)
        default: throw mismatch(key, "true, false or null")
        }
    }

    func integer(_ key: String) throws(APIError) -> Int? {
        guard let value = present(key) else { return nil }
        guard case .int(let int) = value else { throw mismatch(key, "an integer") }
        return int
    }

    func object(_ key: String) throws(APIError) -> JSONObject? {
        guard let value = present(key) else { return nil }
        return try JSONObject(value, path: field(key))
    }

    func array(_ key: String, maximum: Int) throws(APIError) -> [JSONValue]? {
        guard let value = present(key) else { return nil }
        guard case .array(let elements) = value else { throw mismatch(key, "an array") }
        guard elements.count <= maximum else { throw .validation("at most \(maximum) elements", field: field(key)) }
        return elements
    }

    /// An array of strings, each named by its index when it is not one.
    func stringArray(_ key: String, maximum: Int) throws(APIError) -> [String]? {
        guard let elements = try array(key, maximum: maximum) else { return nil }
        var strings: [String] = []
        for (index, element) in elements.enumerated() {
            guard case .string(let text) = element else {
                throw .validation("must be a string", field: "\(field(key))[\(index)]")
            }
            strings.append(text)
        }
        return strings
    }

    /// An array of user (or other backend) ids; none when the key is absent.
    func externalIDs(_ key: String, maximum: Int) throws(APIError) -> [ExternalID] {
        var ids: [ExternalID] = []
        for (index, value) in (try array(key, maximum: maximum) ?? []).enumerated() {
            guard let text = value.stringValue, let id = ExternalID(text) else {
                throw Self.badID("\(field(key))[\(index)]")
            }
            ids.append(id)
        }
        return ids
    }

    /// An array of UUIDs (device ids); none when the key is absent.
    func uuids(_ key: String, maximum: Int) throws(APIError) -> [UUID] {
        var ids: [UUID] = []
        for (index, value) in (try array(key, maximum: maximum) ?? []).enumerated() {
            guard let text = value.stringValue, let id = UUID(uuidString: text) else {
                throw .validation("must be a UUID", field: "\(field(key))[\(index)]")
            }
            ids.append(id)
        }
        return ids
    }

    func externalID(_ key: String) throws(APIError) -> ExternalID? {
        guard let text = try string(key) else { return nil }
        guard let id = ExternalID(text) else { throw Self.badID(field(key)) }
        return id
    }

    func requiredExternalID(_ key: String) throws(APIError) -> ExternalID {
        guard let id = try externalID(key) else { throw .validation("is required", field: field(key)) }
        return id
    }

    func date(_ key: String) throws(APIError) -> Date? {
        guard let text = try string(key) else { return nil }
        guard let date = RFC3339Timestamp.parse(text) else { throw mismatch(key, "an RFC 3339 date-time") }
        return date
    }

    static func badID(_ field: String) -> APIError {
        .validation("must be 1 to 128 of A-Z a-z 0-9 . _ : @ -", field: field)
    }

    /// Rethrows a domain refusal as its HTTP answer.
    static func domain<T>(_ body: () throws(DomainError) -> T) throws(APIError) -> T {
        do {
            return try body()
        } catch {
            throw error.apiError
        }
    }
}
