import HTTPTypes
import Hummingbird
import NIOCore

/// The delivery dashboard: a static page, its style sheet and script, compiled into the binary. The page itself
/// needs no credentials; its script asks for an API key and reads the JSON API with it.
struct DashboardRoutes {
    private struct Asset {
        let path: String
        let contentType: String
        let bytes: [UInt8]
    }

    /// Scripts, styles and data only from this server; no inline script, no framing, no plugins.
    static let contentSecurityPolicy =
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        + "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

    private static let assets = [
        Asset(path: "/dashboard", contentType: "text/html; charset=utf-8", bytes: PackageResources.index_html),
        Asset(
            path: "/dashboard/dashboard.css", contentType: "text/css; charset=utf-8",
            bytes: PackageResources.dashboard_css),
        Asset(
            path: "/dashboard/dashboard.js", contentType: "text/javascript; charset=utf-8",
            bytes: PackageResources.dashboard_js),
    ]

    func register(on router: Router<HeraldRequestContext>) {
        for asset in Self.assets {
            let body = ByteBuffer(bytes: asset.bytes)
            let headers: HTTPFields = [
                .contentType: asset.contentType,
                // The files change only with the binary: revalidate rather than serve a stale dashboard after an
                // upgrade.
                .cacheControl: "no-cache",
                .contentSecurityPolicy: Self.contentSecurityPolicy,
                .xContentTypeOptions: "nosniff",
                HTTPField.Name("Referrer-Policy")!: "no-referrer",
            ]
            router.on(RouterPath(asset.path), method: .get) { _, _ in
                Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: body))
            }
        }
    }
}
