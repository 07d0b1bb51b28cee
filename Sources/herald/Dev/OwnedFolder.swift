import Foundation
import Glibc

/// Checks for a folder this account keeps in a place every local user may write in, such as `/var/tmp`.
///
/// Every check reads the path itself (`lstat`), never following a symbolic link. Otherwise another user could create
/// the folder first, or plant a link to a folder of their choosing, and have root chown and chmod whatever it points
/// at.
enum OwnedFolder {
    /// Creates `path` with mode 0711 when it is missing; otherwise requires a real folder (not a symbolic link),
    /// owned by this account, that nobody else may write in.
    /// - Throws: ``CommandFailure`` naming the path and what is wrong with it.
    static func prepare(_ path: String) throws {
        if mkdir(path, 0o711) == 0 {
            // mkdir applies the umask; set the mode exactly, on the folder just made and never through a link.
            let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW)
            guard descriptor >= 0 else { throw failure(path, "cannot open it: \(errorText())") }
            defer { close(descriptor) }
            guard fchmod(descriptor, 0o711) == 0 else { throw failure(path, "cannot set its mode: \(errorText())") }
            return
        }
        guard errno == EEXIST else { throw failure(path, "cannot create it: \(errorText())") }
        guard let status = try folderStatus(path) else { throw failure(path, "it vanished while being checked") }
        guard status.owner == geteuid() else {
            throw failure(
                path,
                "it belongs to uid \(status.owner), not to this account (uid \(geteuid())), so that user could "
                    + "change what is in it; remove it")
        }
        guard status.permissions & 0o022 == 0 else {
            throw failure(path, "others may write in it, so they could plant links in it; remove it")
        }
    }

    /// Requires that `path`, when it exists, is a real folder and not a symbolic link.
    /// - Throws: ``CommandFailure`` naming the path and what is wrong with it.
    static func requireNoLink(_ path: String) throws {
        _ = try folderStatus(path)
    }

    /// What the checks need of a folder.
    private struct FolderStatus {
        let owner: UInt32
        let permissions: Int
    }

    /// The status of `path` itself (Foundation reads it with `lstat`), or `nil` when nothing is there.
    /// - Throws: ``CommandFailure`` when `path` is a symbolic link or anything else but a folder.
    private static func folderStatus(_ path: String) throws -> FolderStatus? {
        let attributes: [FileAttributeKey: Any]
        do {
            attributes = try FileManager.default.attributesOfItem(atPath: path)
        } catch let error as CocoaError where error.code == .fileReadNoSuchFile {
            return nil
        } catch {
            throw failure(path, "cannot inspect it: \(error.localizedDescription)")
        }
        switch attributes[.type] as? FileAttributeType {
        case .typeDirectory?:
            guard let owner = (attributes[.ownerAccountID] as? NSNumber)?.uint32Value,
                let permissions = (attributes[.posixPermissions] as? NSNumber)?.intValue
            else { throw failure(path, "cannot read its owner and mode") }
            return FolderStatus(owner: owner, permissions: permissions)
        case .typeSymbolicLink?: throw failure(path, "it is a symbolic link, which could lead anywhere; remove it")
        default: throw failure(path, "it is not a folder; remove it")
        }
    }

    private static func failure(_ path: String, _ reason: String) -> CommandFailure {
        CommandFailure("refusing to use \(path): \(reason)")
    }

    private static func errorText() -> String { String(cString: strerror(errno)) }
}
