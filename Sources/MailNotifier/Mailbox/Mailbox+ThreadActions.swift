extension Mailbox {
    /// NOTIF-06a: every email of the thread becomes read.
    public mutating func markAllRead(inThread thread: ThreadID) throws(MailboxError) {
        try updateEmails(inThread: thread) { $0.isRead = true }
    }

    /// NOTIF-06b: the thread leaves the inbox for the archive; its other folders (starred, sent) stay.
    public mutating func archiveThread(_ thread: ThreadID) throws(MailboxError) {
        try updateEmails(inThread: thread) { email in
            guard email.folderTypes.remove(.inbox) != nil else { return }
            email.folderTypes.insert(.archive)
        }
    }

    /// NOTIF-06c: every email of the thread moves to the trash, and only there.
    public mutating func deleteThread(_ thread: ThreadID) throws(MailboxError) {
        try updateEmails(inThread: thread) { $0.folderTypes = [.trash] }
    }
}
