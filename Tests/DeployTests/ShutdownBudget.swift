import HeraldCore

/// How long Herald's graceful shutdown may take, which every service manager must wait out before killing it.
enum ShutdownBudget {
    /// The delivery engine's grace for pushes in flight, from the engine's own default.
    static let engineGraceSeconds = Int(
        DeliveryEngineConfiguration(bundleID: nil).shutdownGracePeriod.components.seconds)

    /// A stop timeout covering the engine's grace plus recording results, closing connections and the HTTP server
    /// finishing its requests.
    static func covers(seconds: Int) -> Bool { seconds >= engineGraceSeconds * 3 }

    /// Seconds in a duration written as systemd or compose write them: `45`, `45s`, `2min`, `1m30s`.
    static func seconds(_ text: String) -> Int? {
        var total = 0
        var digits = ""
        var unit = ""
        func flush() -> Bool {
            guard let count = Int(digits) else { return false }
            switch unit {
            case "", "s", "sec": total += count
            case "m", "min": total += count * 60
            default: return false
            }
            digits = ""
            unit = ""
            return true
        }
        for character in text {
            if character.isNumber {
                if !unit.isEmpty, !flush() { return nil }
                digits.append(character)
            } else {
                unit.append(character)
            }
        }
        return flush() ? total : nil
    }
}
