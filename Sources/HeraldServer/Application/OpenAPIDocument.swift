import Foundation
import HeraldCore

/// Finds `openapi.yaml`: beside the working directory, in `share/herald` next to the installed binary, or in the
/// source tree the binary was built from, so `herald serve` serves it from any directory.
public enum OpenAPIDocument {
    public static func load() -> String? {
        ShippedFile.locate("openapi.yaml", installedName: "openapi.yaml", isFolder: false).flatMap {
            try? String(contentsOf: $0, encoding: .utf8)
        }
    }
}
