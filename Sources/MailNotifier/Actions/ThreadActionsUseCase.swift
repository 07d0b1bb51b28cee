/// Archives or deletes a thread, in whatever way its provider needs.
public protocol ThreadActionsUseCase: Sendable {
    func archiveThread(id: ThreadID) async throws
    func deleteThread(id: ThreadID) async throws
}
