import APNsCore
package import Postgres

extension DeviceStore {
    /// What registering a known token again does, for one registration and for a batch alike: the token moves to
    /// the registering user and app, and its device is active again as of now.
    static let reregistration = """
        ON CONFLICT (token) DO UPDATE
        SET user_id = EXCLUDED.user_id, platform = EXCLUDED.platform, environment = EXCLUDED.environment,
            topic = EXCLUDED.topic, app_version = EXCLUDED.app_version, os_version = EXCLUDED.os_version,
            app_id = EXCLUDED.app_id,
            is_active = TRUE, deactivated_at = NULL, deactivation_reason = NULL, registered_at = now(),
            updated_at = now()
        """

    /// One registration's upsert, prepared once per session: the device, and whether its token was new.
    /// gateway-bench drives this same SQL with pgbench as the database's floor for registrations.
    package struct RegisterStatement: PostgresStatement {
        /// All text; `topic`, `appVersion`, `osVersion` and `app` may be NULL.
        package enum Parameter: PostgresParameter {
            /// The user's external id.
            case user
            /// The token in hex.
            case token
            case platform
            case environment
            case topic
            case appVersion
            case osVersion
            /// The app's external id.
            case app
        }

        package static let name = "herald_device_register"

        package static let sql = """
            INSERT INTO device_tokens AS d (
                user_id, token, platform, environment, topic, app_version, os_version, app_id)
            SELECT u.id, \(Parameter.token), \(Parameter.platform), \(Parameter.environment), \(Parameter.topic),
                   \(Parameter.appVersion), \(Parameter.osVersion),
                   COALESCE((SELECT a.id FROM apps a WHERE a.external_id = \(Parameter.app)),
                       (SELECT a.id FROM apps a WHERE a.bundle_id = \(Parameter.topic)),
                       (SELECT a.id FROM apps a WHERE a.is_default))
            FROM users u WHERE u.external_id = \(Parameter.user)
            \(DeviceStore.reregistration)
            RETURNING \(Column.selectList), (xmax = 0) AS inserted
            """

        let registration: DeviceRegistration
        let user: ExternalID

        package func makeBindings() -> PostgresBindings {
            PostgresBindings(Parameter.self) {
                switch $0 {
                case .user: .init(user.rawValue)
                case .token: .init(registration.token.hex)
                case .platform: .init(registration.platform.rawValue)
                case .environment: .init(registration.environment.rawValue)
                case .topic: .init(registration.topic)
                case .appVersion: .init(registration.appVersion)
                case .osVersion: .init(registration.osVersion)
                case .app: .init(registration.app?.rawValue)
                }
            }
        }

        package func decodeRow(_ row: PostgresRow) throws -> (device: Device, created: Bool) {
            (try DeviceStore.decode(row), try row.decode("inserted", as: Bool.self))
        }
    }
}
