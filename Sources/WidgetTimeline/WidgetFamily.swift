#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A widget size, named as WidgetKit names it.
public enum WidgetFamily: String, CaseIterable, Sendable, Hashable {
    /// A small Home Screen widget.
    case systemSmall
    /// A medium (wide) Home Screen widget.
    case systemMedium
    /// A large Home Screen widget.
    case systemLarge
    /// iPadOS only.
    case systemExtraLarge
    /// A round Lock Screen widget or watch complication.
    case accessoryCircular
    /// A rectangular Lock Screen widget or watch complication.
    case accessoryRectangular
    /// One line of text on the Lock Screen or a watch face.
    case accessoryInline
    /// watchOS only.
    case accessoryCorner

    /// Whether this is a Home Screen (`system*`) family rather than a Lock Screen / watch face
    /// (`accessory*`) family.
    public var isSystem: Bool { rawValue.hasPrefix("system") }

    /// The family's size in points, as the Human Interface Guidelines list it for a large current
    /// device (iPhone 14 Pro Max / 15 Plus class for `system*` and the iPhone Lock Screen accessories,
    /// a 12.9-inch iPad Pro for `systemExtraLarge`, a 45 mm Apple Watch for `accessoryCorner`).
    ///
    /// Treat these figures as representative of the HIG's "Widgets › Specifications" tables, not
    /// as authoritative: sizes vary by device, and only proportions matter to the text renderer.
    public var displaySize: DisplaySize {
        switch self {
        case .systemSmall: DisplaySize(width: 170, height: 170)
        case .systemMedium: DisplaySize(width: 364, height: 170)
        case .systemLarge: DisplaySize(width: 364, height: 382)
        case .systemExtraLarge: DisplaySize(width: 715, height: 330)
        case .accessoryCircular: DisplaySize(width: 76, height: 76)
        case .accessoryRectangular: DisplaySize(width: 172, height: 76)
        case .accessoryInline: DisplaySize(width: 257, height: 26)
        case .accessoryCorner: DisplaySize(width: 40, height: 40)
        }
    }
}
