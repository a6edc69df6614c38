/// A widget's or a watch screen's size in points, as WidgetKit's `context.displaySize` gives it.
///
/// The package's own type rather than `CGSize`, which on Linux lives in Foundation proper: the
/// widget and watch paths load only FoundationEssentials.
public struct DisplaySize: Sendable, Hashable, CustomStringConvertible {
    /// Width in points.
    public var width: Double
    /// Height in points.
    public var height: Double

    /// A size of `width` × `height` points.
    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }

    /// `"364×170"`: whole points without a fraction.
    public var description: String { "\(Self.points(width))×\(Self.points(height))" }

    private static func points(_ value: Double) -> String {
        value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
