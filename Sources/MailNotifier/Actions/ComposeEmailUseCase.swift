/// Saves and sends drafts.
public protocol ComposeEmailUseCase: Sendable {
    /// Saves the draft and returns its id.
    func saveDraft(_ draft: Draft) async throws -> EmailID
    func queueForSending(draftId: EmailID) async throws
    func executeSend(draftId: EmailID) async throws
}
