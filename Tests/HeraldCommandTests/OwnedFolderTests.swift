import Foundation
import Glibc
import Testing

@testable import herald

/// The checks that keep `herald dev`'s folder in `/var/tmp` root's alone, on folders made in a temporary place.
@Suite struct OwnedFolderTests {
    /// An empty temporary folder, removed afterwards.
    static func withScratch(_ body: (String) throws -> Void) throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("owned-folder-\(UUID())").path
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        try body(scratch)
    }

    static func refusal(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test func createsAMissingFolderWithMode0711() throws {
        try Self.withScratch { scratch in
            let folder = scratch + "/herald-dev"
            let previous = umask(0o077)
            defer { umask(previous) }
            try OwnedFolder.prepare(folder)
            var status = stat()
            #expect(lstat(folder, &status) == 0)
            #expect(status.st_mode & 0o7777 == 0o711)
            #expect(status.st_uid == geteuid())
            try OwnedFolder.prepare(folder)
        }
    }

    @Test func refusesASymbolicLink() throws {
        try Self.withScratch { scratch in
            let target = scratch + "/elsewhere"
            try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: false)
            let link = scratch + "/herald-dev"
            #expect(symlink(target, link) == 0)
            let refusal = Self.refusal { try OwnedFolder.prepare(link) }
            #expect(refusal?.contains("refusing to use \(link)") == true, "\(refusal ?? "accepted")")
            #expect(refusal?.contains("symbolic link") == true, "\(refusal ?? "accepted")")
        }
    }

    @Test func refusesAFolderOfAnotherUser() throws {
        try #require(geteuid() == 0, "only root can give a folder away")
        try Self.withScratch { scratch in
            let folder = scratch + "/herald-dev"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
            let nobody: uid_t = 65534
            #expect(chown(folder, nobody, gid_t(nobody)) == 0)
            let refusal = Self.refusal { try OwnedFolder.prepare(folder) }
            #expect(refusal?.contains("refusing to use \(folder)") == true, "\(refusal ?? "accepted")")
            #expect(refusal?.contains("belongs to uid 65534") == true, "\(refusal ?? "accepted")")
        }
    }

    @Test func refusesAFolderOthersMayWriteIn() throws {
        try Self.withScratch { scratch in
            let folder = scratch + "/herald-dev"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
            #expect(chmod(folder, 0o777) == 0)
            let refusal = Self.refusal { try OwnedFolder.prepare(folder) }
            #expect(refusal?.contains("others may write in it") == true, "\(refusal ?? "accepted")")
        }
    }

    @Test func refusesALinkedSubfolderButNotAMissingOne() throws {
        try Self.withScratch { scratch in
            #expect(Self.refusal { try OwnedFolder.requireNoLink(scratch + "/missing") } == nil)
            #expect(Self.refusal { try OwnedFolder.requireNoLink(scratch) } == nil)
            let link = scratch + "/postgres"
            #expect(symlink("/etc", link) == 0)
            let refusal = Self.refusal { try OwnedFolder.requireNoLink(link) }
            #expect(refusal?.contains("symbolic link") == true, "\(refusal ?? "accepted")")
        }
    }
}
