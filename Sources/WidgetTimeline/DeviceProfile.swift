/// The kind of device a widget runs on, which decides the families it can show.
public enum DeviceProfile: String, CaseIterable, Sendable, Hashable {
    /// An iPhone: Home Screen and Lock Screen widgets.
    case phone
    /// An iPad: adds `systemExtraLarge`.
    case tablet
    /// An Apple Watch: complications (`accessory*`) only.
    case watch

    /// The families this device offers, in ``WidgetFamily`` declaration order.
    ///
    /// - phone: every `system*` family except `systemExtraLarge`, every `accessory*` family except
    ///   `accessoryCorner`.
    /// - tablet: every `system*` family including `systemExtraLarge`, every `accessory*` family
    ///   except `accessoryCorner`.
    /// - watch: every `accessory*` family including `accessoryCorner`; no `system*` family.
    public var families: [WidgetFamily] {
        WidgetFamily.allCases.filter(supports)
    }

    /// Whether this device offers `family`. A caller asked for a family the device lacks should
    /// report a usage error naming ``families``.
    public func supports(_ family: WidgetFamily) -> Bool {
        switch self {
        case .phone: family != .systemExtraLarge && family != .accessoryCorner
        case .tablet: family != .accessoryCorner
        case .watch: !family.isSystem
        }
    }
}
