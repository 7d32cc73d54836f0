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

    /// Counts one receipt.
    func record(_ receipt: DeliveryReceipt, priority: PushPriority, provider: ProviderKind, duration: Duration) {
        let outcome = receipt.outcome.metricLabel
        let (pushes, time) = handles.series.withLock { series in
            let key = SeriesKey(provider: provider.rawValue, priority: priority.rawValue, outcome: outcome)
            if let known = series.pushes[key] { return (known, series.durations[key.provider]!) }
            let pushes = Counter(
                label: "liverelay_pushes_total",
                dimensions: [
                    ("provider", key.provider), ("priority", String(key.priority)), ("outcome", key.outcome),
                ], factory: factory)
            series.pushes[key] = pushes
            if series.durations[key.provider] == nil {
                series.durations[key.provider] = Timer(
                    label: "liverelay_send_duration_seconds", dimensions: [("provider", key.provider)],
                    factory: factory)
            }
            return (pushes, series.durations[key.provider]!)
        }
        pushes.increment()
        time.recordNanoseconds(
            duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000)
        if case .dropToken = receipt.outcome {
            Counter(
                label: "liverelay_tokens_dropped_total", dimensions: [("provider", provider.rawValue)],
                factory: factory
            ).increment()
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
