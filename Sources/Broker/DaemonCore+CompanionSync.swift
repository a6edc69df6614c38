import FoundationEssentials

// Until the snapshot carries `companionSyncedAt` (the watch side's change), a sync is only
// logged by the link; this is where the daemon will record it for its next publish.
extension DaemonCore {
    func noteCompanionSync(at instant: Date) {}
}
