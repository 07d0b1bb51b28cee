import HTTPTypes
import HeraldCore

extension APIError {
    /// A Live Activity id reported by a caller who does not own it (``ActivityReport/ownedByAnother``). The answer
    /// does not say whose it is.
    static let activityOwnedByAnother = APIError(
        .conflict, .conflict,
        "this activity id belongs to another user or app, which reported it first; activity ids are not shared",
        field: "activityId")

    /// An app's key on data every app shares: the directory, apps and signing keys, and each user's personal
    /// settings, quiet hours, project preferences and mutes, which hold for every app at once.
    static func sharedByEveryApp(keyOf app: ExternalID) -> APIError {
        .forbidden(
            "an app-scoped key (app \(app)) cannot read or change data shared by every app; "
                + "use a key made without --app")
    }
}
