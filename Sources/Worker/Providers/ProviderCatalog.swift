import Delivery

/// Every provider kind this build knows, found by the `type` of a config entry. Each provider is a folder
/// in `Delivery` with its settings type (``ProviderSettings``), which decodes its keys and builds it:
/// adding a provider is that folder and one line here.
enum ProviderCatalog {
    static let kinds: [any ProviderSettings.Type] = [
        ConsoleProviderConfig.self,
        APNsProviderConfig.self,
        FCMProviderConfig.self,
        PushwooshProviderConfig.self,
        GetuiProviderConfig.self,
    ]

    /// The address schemas of the kinds that keep their own addresses, in table order.
    static var addressSchemas: [AddressSchema] { kinds.compactMap { $0.addresses } }

    /// The settings type of a kind, if this build has it.
    static func settings(for kind: ProviderKind) -> (any ProviderSettings.Type)? {
        kinds.first { $0.kind == kind }
    }
}
