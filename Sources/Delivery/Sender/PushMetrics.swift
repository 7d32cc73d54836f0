public import CoreMetrics
import LiveRelayCore

/// The push metrics the `Sender` records, through swift-metrics: one count per receipt by provider,
/// priority and outcome, the time each request took (all its attempts), and dropped tokens. Labels never
/// carry a token or an address.
public struct PushMetrics: Sendable {
    private let factory: any MetricsFactory

    /// Metrics made by `factory`.
    public init(factory: any MetricsFactory) { self.factory = factory }

    /// Metrics that go nowhere.
    public static let none = PushMetrics(factory: NOOPMetricsHandler.instance)

    /// Counts one receipt.
    func record(_ receipt: DeliveryReceipt, priority: PushPriority, provider: ProviderKind, duration: Duration) {
        Counter(
            label: "liverelay_pushes_total",
            dimensions: [
                ("provider", provider.rawValue), ("priority", String(priority.rawValue)),
                ("outcome", receipt.outcome.metricLabel),
            ], factory: factory
        ).increment()
        Timer(label: "liverelay_send_duration_seconds", dimensions: [("provider", provider.rawValue)], factory: factory)
            .recordNanoseconds(
                duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000)
        if case .dropToken = receipt.outcome {
            Counter(
                label: "liverelay_tokens_dropped_total", dimensions: [("provider", provider.rawValue)],
                factory: factory
            ).increment()
        }
    }
}
