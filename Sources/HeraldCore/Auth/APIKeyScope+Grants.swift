extension APIKeyScope {
    /// Whether a key of this scope may call a route that needs `needed`.
    ///
    /// Scopes nest, so each route names only the least it needs: `read` reads logs, stats, notifications and
    /// deliveries; `send` also posts events and sends, schedules and cancels notifications (and pushes through the APNs
    /// ingress); `admin` also manages users and acts for them.
    public func grants(_ needed: APIKeyScope) -> Bool {
        rank >= needed.rank
    }

    private var rank: Int {
        switch self {
        case .read: 0
        case .send: 1
        case .admin: 2
        }
    }
}
