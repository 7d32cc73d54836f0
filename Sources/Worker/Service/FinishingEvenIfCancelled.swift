/// Runs `body` to its end even when the calling task is cancelled, and returns what it returns: for what a
/// stop must not cut short (a delivery's receipts, whose loss would send the push again; the outbox count the
/// operator is told at the stop). The caller's cancellation does not reach `body`; the caller still waits for
/// it, so nothing outlives the scope that asked.
func finishingEvenIfCancelled<T: Sendable>(_ body: sending @escaping @isolated(any) () async -> T) async -> T {
    await Task(operation: body).value
}
