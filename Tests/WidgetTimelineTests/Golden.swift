import Foundation
import Testing

/// Golden files live in `Golden/` next to this source file and are read through `#filePath`.
/// `UPDATE_GOLDEN=1 swift test --filter WidgetTimelineTests` rewrites them from the current
/// output (review the diff before committing); otherwise output must match byte for byte.
enum Golden {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")

    static var updating: Bool { ProcessInfo.processInfo.environment["UPDATE_GOLDEN"] == "1" }

    static func check(_ actual: String, named name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let url = directory.appendingPathComponent(name)
        let text = actual + "\n"
        if updating {
            try text.write(to: url, atomically: true, encoding: .utf8)
            return
        }
        let expected = try String(contentsOf: url, encoding: .utf8)
        #expect(text == expected, "output differs from Golden/\(name):\n\(text)", sourceLocation: sourceLocation)
    }
}
