// What a widget extension (and a watch app) does with the entitlement broker's libraries:
// read the snapshot the daemon publishes into the app group container, check a feature, build a
// WidgetKit-shaped timeline and draw its entry; with --follow, do it again on every change.
//
//   GekoWidget [--container DIR] [--group ID] [--catalog FILE] [--follow]
//
// Defaults: $ENTITLEMENTS_CONTAINER, $ENTITLEMENTS_GROUP and $ENTITLEMENTS_CATALOG, else the
// broker package's Shared/Container, group.com.irenews.geko and Shared/Catalog.json (run from
// the broker package's root).

import Entitlements
import StoreKitFormats
import FileWatch
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import EntitlementDefaults
import WatchExtension
import WidgetTimeline

#if canImport(Glibc)
import Glibc
#endif

@main
struct GekoWidget {
    static func main() async {
        let options: Options
        do { options = try Options(CommandLine.arguments.dropFirst()) } catch {
            fail("\(error)", status: 64)
        }

        // 1. The catalog gives the feature gate: which entitlement unlocks which feature, and the paywall copy.
        let catalog: Catalog
        do { catalog = try Catalog.load(path: options.catalog) } catch {
            fail("\(error)", status: 65)
        }
        let extensionView = ExtensionView(gate: catalog.featureGate)

        // 2. The snapshot: read from the shared file, validated, failing closed. The reader keeps the
        //    last good snapshot when a newer file is refused.
        let reader = SnapshotReader(suiteName: options.group, container: options.container)
        guard options.follow else {
            report(reader.refresh())
            write(extensionView.describe(reader.lastGood, now: Date()), to: STDOUT_FILENO)
            return
        }

        // 3. Follow changes: watch the file's directory (the daemon replaces the file atomically,
        //    so its inode changes) and read again on every change. A real widget would call
        //    WidgetCenter.reloadTimelines(ofKind:) here instead of drawing.
        let file = reader.path
        let slash = file.lastIndex(of: "/")!
        let watch = DirectoryWatch(directory: String(file[..<slash]), names: [String(file[file.index(after: slash)...])])
        var shown: String?
        do {
            for try await _ in watch {
                report(reader.refresh())
                let text = extensionView.describe(reader.lastGood, now: Date())
                if text != shown {
                    write(text, to: STDOUT_FILENO)
                    shown = text
                }
            }
        } catch {
            fail("\(file): cannot watch: \(error)", status: 69)
        }
    }

    /// A refused file is worth a line on stderr; the last good snapshot is still used.
    static func report(_ outcome: SnapshotReadOutcome) {
        if case .rejected(let reason, _) = outcome { printError("GekoWidget: ignored \(reason)") }
    }

    static func fail(_ message: String, status: Int32) -> Never {
        printError("GekoWidget: \(message)")
        exit(status)
    }

    static func printError(_ line: String) {
        write(line + "\n", to: STDERR_FILENO)
    }

    /// Writes at once (no stdio buffer), so a reader of a pipe sees each change as it happens.
    static func write(_ text: String, to descriptor: Int32) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }
            bytes = bytes.dropFirst(written)
        }
    }
}

/// What the extension shows for a snapshot: the feature check, the widget's current entry and the
/// watch app's launch gate. Pure: the snapshot and the instant are passed in.
struct ExtensionView {
    let gate: FeatureGate

    func describe(_ snapshot: EntitlementSnapshot?, now: Date) -> String {
        // A feature check: what the app or the extension asks before showing a gated surface.
        let decision = gate.check("widgets", snapshot: snapshot, wallClock: now)
        let check = switch decision {
        case .unlocked: "widgets: unlocked"
        case .locked(let paywall): "widgets: locked (\(paywall.reason.rawValue)) -> \(paywall.deepLink)"
        }

        // The widget's timeline: an entry now and one at every transition ahead (so it locks at
        // expiry with no process running), and when WidgetKit should ask again.
        let provider = EntitlementTimelineProvider(gate: gate, feature: "widgets")
        let timeline = provider.timeline(for: snapshot, in: TimelineProviderContext(family: .systemSmall), now: now)
        let entry = timeline.entry(at: now) ?? provider.placeholder(in: TimelineProviderContext(family: .systemSmall))
        let reload = switch timeline.policy {
        case .after(let date): "reload after \(ISO8601.string(from: date))"
        case .atEnd: "reload at end"
        case .never: "reload never"
        }
        let drawn = TimelineTextRenderer(charset: .ascii).render(entry: entry, family: .systemSmall)

        // The watch app's gate at launch, from the same snapshot (on a watch, from its replica).
        let watch = switch WatchApp(gate: gate).launch(snapshot: snapshot, now: now) {
        case .unlocked: "watch app: unlocked"
        case .paywall(let paywall): "watch app: paywall (\(paywall.reason.rawValue)) \"\(paywall.copy.title)\""
        }

        let generation = snapshot.map { "generation \($0.generation)" } ?? "no snapshot"
        return [check, "\(generation), \(timeline.entries.count) entries, \(reload)", drawn, watch].joined(separator: "\n") + "\n\n"
    }
}

/// The command line: three paths and a flag.
struct Options {
    var container: String
    var group: String
    var catalog: String
    var follow = false

    struct UsageError: Error, CustomStringConvertible { var description: String }

    init(_ arguments: ArraySlice<String>) throws {
        let environment = ProcessInfo.processInfo.environment
        container = environment["ENTITLEMENTS_CONTAINER"] ?? "Shared/Container"
        group = environment["ENTITLEMENTS_GROUP"] ?? "group.com.irenews.geko"
        catalog = environment["ENTITLEMENTS_CATALOG"] ?? "Shared/Catalog.json"
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--follow": follow = true
            case "--container", "--group", "--catalog":
                guard let value = rest.popFirst() else { throw UsageError(description: "\(argument) needs a value") }
                switch argument {
                case "--container": container = value
                case "--group": group = value
                default: catalog = value
                }
            default:
                throw UsageError(description: "unknown argument '\(argument)'; usage: GekoWidget [--container DIR] [--group ID] [--catalog FILE] [--follow]")
            }
        }
    }
}
