public import Delivery
import Synchronization

/// Every provider kind this build knows, found by the `type` of a config entry. Each provider is a folder
/// in `Delivery` with its settings type (``ProviderSettings``), which decodes its keys, declares them for the
/// config schema (``ProviderSettings/configSchema``) and builds the provider: adding a provider is that
/// folder and one line in `builtIn`.
public enum ProviderCatalog {
    /// The kinds every build has, in the order the config schema lists them.
    public static let builtIn: [any ProviderSettings.Type] = [
        ConsoleProviderConfig.self,
        APNsProviderConfig.self,
        FCMProviderConfig.self,
        PushwooshProviderConfig.self,
        GetuiProviderConfig.self,
    ]

    private static let registered = Mutex<[any ProviderSettings.Type]>([])

    /// Adds a kind for this process (a test's own provider): configs may name it, the config schema has its
    /// keys, the token API its addresses. A kind already known is left as it is.
    public static func register(_ kind: any ProviderSettings.Type) {
        registered.withLock { extra in
            guard !(builtIn + extra).contains(where: { $0.kind == kind.kind }) else { return }
            extra.append(kind)
        }
    }

    /// The built-in kinds, then those registered, in order.
    public static var kinds: [any ProviderSettings.Type] { builtIn + registered.withLock { $0 } }

    /// The address schemas of the kinds that keep their own addresses, in table order.
    static var addressSchemas: [AddressSchema] { kinds.compactMap { $0.addresses } }

    /// The settings type of a kind, if this build has it.
    static func settings(for kind: ProviderKind) -> (any ProviderSettings.Type)? {
        kinds.first { $0.kind == kind }
    }
}
