import ArgumentParser
import MailNotifier

/// The actions `respond` accepts, spelled as the banner's action identifiers without `_ACTION`. A tap on
/// the banner (open) is left out: it only navigates inside the app.
enum ResponseActionArgument: String, CaseIterable, ExpressibleByArgument {
    case markRead = "MARK_READ"
    case archive = "ARCHIVE"
    case delete = "DELETE"
    case reply = "REPLY"

    var action: NotificationAction {
        switch self {
        case .markRead: .markRead
        case .archive: .archive
        case .delete: .delete
        case .reply: .reply
        }
    }
}
