/// Holds every caller of `arrive()` until `count` callers have arrived, then lets them all go.
actor Barrier {
    private let count: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []
    private var isOpen = false

    init(count: Int) { self.count = count }

    func arrive() async {
        guard !isOpen else { return }
        if waiting.count + 1 >= count {
            isOpen = true
            for continuation in waiting { continuation.resume() }
            waiting.removeAll()
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }
}
