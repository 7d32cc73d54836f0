/// The priority-10 sends of one activity that still count against its budget: each send is a token that
/// returns exactly one period after it was spent. Unlike a continuously refilling bucket, this never allows
/// more than `size` sends in any window of `period` seconds.
public struct SendWindow: Sendable, Hashable, Codable {
    /// Send times still inside the window, oldest first.
    public private(set) var sends: [Int] = []

    public init(sends: [Int] = []) { self.sends = sends }

    /// Forgets sends older than one period.
    public mutating func expire(now: Int, period: Int) {
        if let firstKept = sends.firstIndex(where: { $0 > now - period }) {
            if firstKept > 0 { sends.removeFirst(firstKept) }
        } else {
            sends.removeAll(keepingCapacity: true)
        }
    }

    /// Priority-10 pushes still allowed now.
    public func remaining(size: Int) -> Int { max(0, size - sends.count) }

    /// When the next token returns, if the window is full.
    public func nextRefill(size: Int, period: Int) -> Int? {
        guard sends.count >= size, size > 0 else { return size > 0 ? nil : Int.max }
        return sends[sends.count - size] + period
    }

    /// Spends one token.
    public mutating func record(_ now: Int) { sends.append(now) }

    /// Paces one send at `now`, at most `size` in any `period` seconds: `nil` when it may go now (and is
    /// recorded), else the time from which it may (nothing recorded).
    public mutating func admit(now: Int, size: Int, period: Int) -> Int? {
        expire(now: now, period: period)
        guard remaining(size: size) > 0 else { return nextRefill(size: size, period: period) ?? now }
        record(now)
        return nil
    }
}
