public import CoreMetrics
import LiveRelayCore
import Synchronization

/// The push metrics the `Sender` records, through swift-metrics: one count per receipt by provider,
/// priority and outcome, the time each request took (all its attempts), and dropped tokens. Labels never
/// carry a token or an address.
///
/// Each series' handle is made once and kept: a fan-out records a receipt per device, and making the handle
/// (the factory's lookup of the label and dimensions) cost more than counting.
public struct PushMetrics: Sendable {
    private let factory: any MetricsFactory
    private let handles = Handles()

    /// Metrics made by `factory`.
    public init(factory: any MetricsFactory) { self.factory = factory }

    /// Metrics that go nowhere.
    public static let none = PushMetrics(factory: NOOPMetricsHandler.instance)

    /// Counts one request's receipts (a fan-out's batch has one per device) and the time the request took:
    /// one handle lookup per outcome among them, one observation of the duration.
    func record(
        _ receipts: some Collection<DeliveryReceipt>, priority: PushPriority, provider: ProviderKind, duration: Duration
    ) {
        guard let first = receipts.first else { return }
        // A batch's receipts mostly share one outcome: counted in runs, each run one increment.
        var run = (label: first.outcome.metricLabel, count: 0)
        var dropped = 0
        for receipt in receipts {
            if case .dropToken = receipt.outcome { dropped += 1 }
            let label = receipt.outcome.metricLabel
            if label != run.label {
                counter(provider: provider, priority: priority, outcome: run.label).increment(by: Int64(run.count))
                run = (label, 0)
            }
            run.count += 1
        }
        counter(provider: provider, priority: priority, outcome: run.label).increment(by: Int64(run.count))
        let time = handles.series.withLock { series in
            if let known = series.durations[provider.rawValue] { return known }
            let timer = Timer(
                label: "liverelay_send_duration_seconds", dimensions: [("provider", provider.rawValue)],
                factory: factory)
            series.durations[provider.rawValue] = timer
            return timer
        }
        time.recordNanoseconds(
            duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000)
        if dropped > 0 {
            Counter(
                label: "liverelay_tokens_dropped_total", dimensions: [("provider", provider.rawValue)],
                factory: factory
            ).increment(by: Int64(dropped))
        }
    }

    /// The kept handle of one series of `liverelay_pushes_total`.
    private func counter(provider: ProviderKind, priority: PushPriority, outcome: String) -> Counter {
        handles.series.withLock { series in
            let key = SeriesKey(provider: provider.rawValue, priority: priority.rawValue, outcome: outcome)
            if let known = series.pushes[key] { return known }
            let pushes = Counter(
                label: "liverelay_pushes_total",
                dimensions: [("provider", key.provider), ("priority", String(key.priority)), ("outcome", key.outcome)],
                factory: factory)
            series.pushes[key] = pushes
            return pushes
        }
    }

    private struct SeriesKey: Hashable {
        var provider: String
        var priority: Int
        var outcome: String
    }

    private final class Handles: Sendable {
        let series = Mutex<(pushes: [SeriesKey: Counter], durations: [String: Timer])>(([:], [:]))
    }
}
