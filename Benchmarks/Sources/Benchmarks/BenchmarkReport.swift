import Entitlements
import StoreKitFormats
import Foundation

/// Turns results into the table people read and the JSON object scripts read, each row judged
/// against their targets.
struct BenchmarkReport {
    let results: BenchmarkResults

    /// One table row.
    struct Row {
        var name: String
        var target: String
        var measured: String
        var ratio: String = ""
        /// `true` met, `false` missed, `nil` no target (context only).
        var met: Bool?
        /// The row's name in the JSON `targets_met` object (rows with a target only).
        var key = ""

        var verdict: String {
            switch met {
            case true?: "pass"
            case false?: "FAIL"
            case nil: ""
            }
        }
    }

    /// The bounds of record (issue #25): ratios to the floor measured in the same run, or absolutes.
    static let targets = (
        propagationP50Ratio: 1.3, propagationP99Ratio: 1.5, tmpfsP50Ratio: 2.0, fanout64P50Ratio: 2.0, fanout64P99Ratio: 2.0,
        fanout8P99Ratio: 1.3, wakeUpsPerPublish: 1.0, purchaseP50Ratio: 1.6, companionP50Ratio: 2.0, renderRatio: 2.0, checkNanoseconds: 250.0, decode100: 30.0,
        publish100Ratio: 3.0, publish1000Ratio: 6.0,
        unchangedRatio: 1.5, ingestPerSecond: 20_000.0, verifiedIngestPerSecond: 5_000.0, daemonMemory: 16.0,
        p256OfOpenSSL: 1.0, p384OfOpenSSL: 1.0, p256WithoutOpenSSL: 6_500.0, p384WithoutOpenSSL: 800.0
    )

    var rows: [Row] {
        var rows: [Row] = []
        for (label, propagation) in [("durable", results.durable), ("tmpfs", results.tmpfs)] {
            let (p50Target, p99Target): (Double, Double?) =
                label == "tmpfs" ? (Self.targets.tmpfsP50Ratio, nil) : (Self.targets.propagationP50Ratio, Self.targets.propagationP99Ratio)
            rows.append(Row(name: "floor \(label): raw write→inotify→read", target: "", measured: Self.latency(propagation.floor, misses: propagation.floorMisses)))
            rows.append(
                Row(
                    name: "propagation \(label) p50", target: "≤ \(Self.factor(p50Target)) floor", measured: Self.microseconds(propagation.package?.p50),
                    ratio: Self.ratio(propagation.package?.p50, propagation.floor?.p50),
                    met: Self.atMost(propagation.package?.p50, p50Target, times: propagation.floor?.p50),
                    key: "propagation.\(label).p50"))
            rows.append(
                Row(
                    name: "propagation \(label) p99", target: p99Target.map { "≤ \(Self.factor($0)) floor" } ?? "",
                    measured: Self.microseconds(propagation.package?.p99), ratio: Self.ratio(propagation.package?.p99, propagation.floor?.p99),
                    met: p99Target.flatMap { Self.atMost(propagation.package?.p99, $0, times: propagation.floor?.p99) },
                    key: "propagation.\(label).p99"))
            rows.append(Row(name: "propagation \(label) max", target: "", measured: Self.microseconds(propagation.package?.max)))
            rows.append(
                Row(
                    name: "propagation \(label) wake-ups per publish (package / floor reader)", target: "",
                    measured: "\(Self.wakeUps(propagation.packageWakeUps)) / \(Self.wakeUps(propagation.floorWakeUps))"))
        }
        for sized in results.sized {
            let target: Double? = [100: Self.targets.publish100Ratio, 1_000: Self.targets.publish1000Ratio][sized.entitlements]
            rows.append(
                Row(
                    name: "publish → entry, \(sized.entitlements) entitlement\(sized.entitlements == 1 ? "" : "s") (tmpfs, \(sized.fileBytes) B), p50 / p99",
                    target: target.map { "p50 ≤ \(Self.factor($0)) floor" } ?? "",
                    measured: "\(Self.microseconds(sized.package?.p50)) / \(Self.microseconds(sized.package?.p99))"
                        + (sized.misses > 0 ? " (\(sized.misses) missed)" : ""),
                    ratio: Self.ratio(sized.package?.p50, sized.floor?.p50),
                    met: target.flatMap { Self.atMost(sized.package?.p50, $0, times: sized.floor?.p50) },
                    key: target == nil ? "" : "publish\(sized.entitlements).p50"))
            rows.append(
                Row(
                    name: "floor: raw, same size, p50 / p99", target: "",
                    measured: "\(Self.microseconds(sized.floor?.p50)) / \(Self.microseconds(sized.floor?.p99))"))
        }
        rows.append(Row(name: "pipe ping-pong one way", target: "", measured: Self.latency(results.pipeOneWay, misses: 0)))
        for fanout in results.fanout {
            let name = "fan-out \(fanout.nominal)\(fanout.readers != fanout.nominal ? " (\(fanout.readers) run)" : "") last reader"
            rows.append(
                Row(
                    name: "floor: \(fanout.readers) raw readers, last reader p50 / p99", target: "",
                    measured: "\(Self.microseconds(fanout.floorLastReader?.p50)) / \(Self.microseconds(fanout.floorLastReader?.p99))"))
            let p50Target: Double? = fanout.nominal == 64 ? Self.targets.fanout64P50Ratio : nil
            let p99Target: Double? =
                fanout.nominal == 64 ? Self.targets.fanout64P99Ratio : fanout.nominal == 8 ? Self.targets.fanout8P99Ratio : nil
            rows.append(
                Row(
                    name: name + " p50", target: p50Target.map { "≤ \(Self.factor($0)) floor" } ?? "", measured: Self.microseconds(fanout.lastReader?.p50),
                    ratio: Self.ratio(fanout.lastReader?.p50, fanout.floorLastReader?.p50),
                    met: p50Target.flatMap { Self.atMost(fanout.lastReader?.p50, $0, times: fanout.floorLastReader?.p50) },
                    key: "fanout\(fanout.nominal).p50"))
            rows.append(
                Row(
                    name: name + " p99", target: p99Target.map { "≤ \(Self.factor($0)) floor" } ?? "", measured: Self.microseconds(fanout.lastReader?.p99)
                        + (fanout.misses > 0 ? " (\(fanout.misses) missed)" : ""),
                    ratio: Self.ratio(fanout.lastReader?.p99, fanout.floorLastReader?.p99),
                    met: p99Target.flatMap { target in
                        Self.atMost(fanout.lastReader?.p99, target, times: fanout.floorLastReader?.p99).map { $0 && fanout.misses == 0 }
                    },
                    key: "fanout\(fanout.nominal).p99"))
            rows.append(
                Row(
                    name: "fan-out \(fanout.nominal) wake-ups per publish per reader (package / floor)", target: "1.0",
                    measured: "\(Self.wakeUps(fanout.wakeUps)) / \(Self.wakeUps(fanout.floorWakeUps))",
                    met: fanout.wakeUps.map { $0 <= Self.targets.wakeUpsPerPublish + 0.1 }, key: "fanout\(fanout.nominal).wakeups"))
        }
        rows.append(
            Row(
                name: "peer: stat() poll every 1 ms", target: "", measured: Self.latency(results.statPoller.latency, misses: results.statPoller.misses),
                ratio: Self.ratio(results.statPoller.latency?.p50, results.durable.floor?.p50)))
        rows.append(
            Row(
                name: "peer: UserDefaults synchronize() every 1 ms", target: "",
                measured: Self.latency(results.userDefaults.latency, misses: results.userDefaults.misses, rounds: results.userDefaults.rounds),
                ratio: Self.ratio(results.userDefaults.latency?.p50, results.durable.floor?.p50)))
        rows.append(
            Row(
                name: "feature check on a loaded snapshot (FeatureGate.check)", target: "≤ 250 ns", measured: Self.format(results.checkNanoseconds, unit: "ns"),
                met: results.checkNanoseconds.map { $0 <= Self.targets.checkNanoseconds }, key: "check_ns"))
        for count in CostBenchmarks.decodeSizes {
            rows.append(
                Row(
                    name: "decode + validate, \(count) entitlement\(count == 1 ? "" : "s")", target: count == 100 ? "≤ \(Self.format(Self.targets.decode100, unit: "µs"))" : "",
                    measured: Self.microseconds(results.decodeMicroseconds[count]),
                    ratio: Self.ratio(results.decodeMicroseconds[count], results.valueTreeFloorMicroseconds[count]),
                    met: count == 100 ? results.decodeMicroseconds[count].map { $0 <= Self.targets.decode100 } : nil, key: "decode_us_\(count)"))
            rows.append(
                Row(
                    name: "floor: build and free the same value's containers, no bytes read", target: "",
                    measured: Self.microseconds(results.valueTreeFloorMicroseconds[count])))
        }
        rows.append(
            Row(
                name: "unchanged? (refresh, nothing changed)", target: "≤ \(Self.factor(Self.targets.unchangedRatio)) floor",
                measured: Self.microseconds(results.unchangedMicroseconds), ratio: Self.ratio(results.unchangedMicroseconds, results.twoStatsMicroseconds),
                met: Self.atMost(results.unchangedMicroseconds, Self.targets.unchangedRatio, times: results.twoStatsMicroseconds), key: "unchanged_us"))
        rows.append(Row(name: "floor: the two raw lstat() calls it makes", target: "", measured: Self.microseconds(results.twoStatsMicroseconds)))
        rows += signatureRows
        if let ingest = results.ingest {
            rows.append(
                Row(
                    name: "durable ingest, \(ingest.events) events in calls of \(ingest.batch) (group commit)", target: "≥ 20,000/s",
                    measured: String(format: "%.0f/s", ingest.eventsPerSecond), met: ingest.eventsPerSecond >= Self.targets.ingestPerSecond,
                    key: "ingest_per_s"))
        } else {
            rows.append(Row(name: "durable ingest (group commit)", target: "≥ 20,000/s", measured: "not measured", met: false, key: "ingest_per_s"))
        }
        if let single = results.singleEventIngest {
            rows.append(
                Row(name: "durable ingest, one event per call (\(single.events) calls)", target: "", measured: String(format: "%.0f/s", single.eventsPerSecond)))
        }
        rows.append(
            Row(
                name: "verified durable ingest, \(results.verifiedIngest.map { "\($0.events) " } ?? "")JWS transactions (ES256, cached chain)",
                target: "≥ 5,000/s", measured: results.verifiedIngest.map { String(format: "%.0f/s", $0.eventsPerSecond) } ?? "not measured",
                met: (results.verifiedIngest?.eventsPerSecond ?? 0) >= Self.targets.verifiedIngestPerSecond, key: "verified_ingest_per_s"))
        if let verified = results.verifiedIngest {
            // What the row costs the daemon, all threads: the figure to compare on a loaded machine.
            rows.append(
                Row(name: "verified ingest: daemon CPU per event (all threads)", target: "", measured: Self.microseconds(verified.daemonMicrosecondsPerEvent)))
        }
        rows.append(
            Row(
                name: "daemon idle RSS (\(results.daemonTool))", target: "< 16 MiB", measured: Self.format(results.daemonMemory, unit: "MiB"),
                ratio: Self.ratio(results.daemonMemory, results.processFloorMemory),
                met: results.daemonMemory.map { $0 < Self.targets.daemonMemory }, key: "daemon_rss_mib"))
        rows.append(Row(name: "floor: idle process of the same runtime", target: "", measured: Self.format(results.processFloorMemory, unit: "MiB")))
        if let afterIngest = results.ingest?.daemonMemory {
            rows.append(Row(name: "daemon RSS after the ingest run", target: "", measured: Self.format(afterIngest, unit: "MiB")))
        }
        rows.append(
            Row(
                name: "one-shot render (\(results.rendererTool)), median", target: "≤ 2× floor", measured: Self.format(results.renderMedian, unit: "ms"),
                ratio: Self.ratio(results.renderMedian, results.processFloorMedian),
                met: Self.atMost(results.renderMedian, Self.targets.renderRatio, times: results.processFloorMedian), key: "renderer_ms"))
        rows.append(
            Row(name: "floor: spawn and exit of the same runtime", target: "", measured: Self.format(results.processFloorMedian, unit: "ms")))
        let purchase = results.purchase
        let purchaseFloor = purchaseFloor
        rows.append(
            Row(
                name: "purchase: ingest --wait → follower prints unlocked entry, p50", target: "≤ \(Self.factor(Self.targets.purchaseP50Ratio)) floor",
                measured: Self.microseconds(purchase?.latency?.p50), ratio: Self.ratio(purchase?.latency?.p50, purchaseFloor.p50),
                met: Self.atMost(purchase?.latency?.p50, Self.targets.purchaseP50Ratio, times: purchaseFloor.p50), key: "purchase.p50"))
        rows.append(
            Row(
                name: "purchase: ingest --wait → follower prints unlocked entry, p99", target: "", measured: Self.microseconds(purchase?.latency?.p99),
                ratio: Self.ratio(purchase?.latency?.p99, purchaseFloor.p99)))
        rows.append(
            Row(
                name: "floor: spawn+exit of the runtime + raw durable propagation, p50 / p99", target: "",
                measured: "\(Self.microseconds(purchaseFloor.p50)) / \(Self.microseconds(purchaseFloor.p99))"))
        let parts: [(String, LatencySummary?)] = [
            ("entitlementctl's part: spawned → its file in the inbox", purchase?.toolPart),
            ("daemon's part: inbox file seen → published", purchase?.daemonPart),
            ("follower's part: published → its line read", purchase?.followerPart),
        ]
        for (name, part) in parts {
            rows.append(Row(name: name + ", p50 / p99", target: "", measured: "\(Self.microseconds(part?.p50)) / \(Self.microseconds(part?.p99))"))
        }
        let companion = results.companion
        let companionFloor = companionFloor
        rows.append(
            Row(
                name: "companion: phone ingest --wait → watch follower prints unlocked entry, p50", target: "≤ 2× floor",
                measured: Self.microseconds(companion?.latency?.p50), ratio: Self.ratio(companion?.latency?.p50, companionFloor.p50),
                met: Self.atMost(companion?.latency?.p50, Self.targets.companionP50Ratio, times: companionFloor.p50), key: "companion.p50"))
        rows.append(
            Row(
                name: "companion: phone ingest --wait → watch follower prints unlocked entry, p99", target: "",
                measured: Self.microseconds(companion?.latency?.p99), ratio: Self.ratio(companion?.latency?.p99, companionFloor.p99)))
        rows.append(
            Row(
                name: "floor: spawn + raw durable propagation × 2 + raw TCP one-way hop, p50 / p99", target: "",
                measured: "\(Self.microseconds(companionFloor.p50)) / \(Self.microseconds(companionFloor.p99))"))
        rows.append(
            Row(
                name: "companion catch-up: \(companion?.catchUpEvents ?? 0) events after an absence, session up → watch shows the last",
                target: "", measured: companion?.catchUpEventsPerSecond.map { Self.rate($0) } ?? "–"))
        return rows
    }

    /// The companion row's floor: the purchase row's (a spawn of the do-nothing process, for the
    /// `ingest` the row spawns, plus the phone's raw durable propagation), a raw TCP one-way hop on
    /// loopback, and the watch's raw durable propagation, percentile by percentile, all measured
    /// in this run.
    var companionFloor: (p50: Double?, p99: Double?) {
        let hop = results.companion?.tcpOneWay, propagation = results.durable.floor, purchase = purchaseFloor
        func sum(_ parts: Double?...) -> Double? { parts.contains { $0 == nil } ? nil : parts.reduce(0) { $0 + ($1 ?? 0) } }
        return (sum(purchase.p50, hop?.p50, propagation?.p50), sum(purchase.p99, hop?.p99, propagation?.p99))
    }

    /// The purchase row's floor: a spawn of the do-nothing process plus the raw durable
    /// propagation, percentile by percentile, both measured in this run.
    var purchaseFloor: (p50: Double?, p99: Double?) {
        let spawn = results.purchase?.spawnFloor, propagation = results.durable.floor
        return (
            spawn.flatMap { spawn in propagation.map { spawn.p50 + $0.p50 } }, spawn.flatMap { spawn in propagation.map { spawn.p99 + $0.p99 } }
        )
    }

    /// Ours against `openssl speed` measured in the same run: P-256 at least half its
    /// (assembly) rate, P-384 at least equal; fixed floors of 6,500/s and 800/s when openssl is
    /// not installed.
    var signatureRows: [Row] {
        let outcome = results.signatures
        let openssl = outcome?.openssl
        var rows: [Row] = []
        for (curve, ours, theirs, share, floor, key) in [
            ("P-256", outcome?.p256VerificationsPerSecond, openssl?.p256, Self.targets.p256OfOpenSSL, Self.targets.p256WithoutOpenSSL, "p256_verify"),
            ("P-384", outcome?.p384VerificationsPerSecond, openssl?.p384, Self.targets.p384OfOpenSSL, Self.targets.p384WithoutOpenSSL, "p384_verify"),
        ] {
            let target = theirs != nil ? String(format: "≥ %.1f× openssl", share) : "≥ \(Self.rate(floor)) (no openssl)"
            let met = ours.map { ours in theirs.map { ours >= share * $0 } ?? (ours >= floor) }
            rows.append(
                Row(
                    name: "\(curve) verifications/s (raw r||s, prepared key, per CPU s)", target: target, measured: Self.rate(ours),
                    ratio: theirs.map { _ in Self.ratio(ours, theirs) + " openssl" } ?? "", met: met, key: key))
            let opensslName = "floor: openssl speed ecdsa\(curve == "P-256" ? "p256" : "p384") verify/s"
            switch openssl {
            case .measured(_, _, let version)?: rows.append(Row(name: "\(opensslName) (\(version))", target: "", measured: Self.rate(theirs)))
            case .unavailable(let reason)?: rows.append(Row(name: opensslName, target: "", measured: reason))
            case nil: break
            }
        }
        rows.append(Row(name: "P-256 keys prepared/s (decode, check, precompute)", target: "", measured: Self.rate(outcome?.p256KeysPerSecond)))
        return rows
    }

    /// The table, with a header naming the mode and where files were written.
    var text: String {
        let header = Row(name: "measurement", target: "target", measured: "measured", ratio: "× floor", met: nil)
        let all = [header] + rows
        let widths = (
            all.map(\.name.count).max() ?? 0, all.map(\.target.count).max() ?? 0, all.map(\.measured.count).max() ?? 0,
            all.map(\.ratio.count).max() ?? 0
        )
        func pad(_ text: String, _ width: Int) -> String { text + String(repeating: " ", count: max(0, width - text.count)) }
        var lines = [
            "entitlement-bench (\(results.mode)); durable files in \(results.durable.directory), tmpfs files in \(results.tmpfs.directory)",
            "latencies are write-start → widget entry ready (package) or → file read (floor), as p50 / p99 / max",
            "",
        ]
        for (index, row) in all.enumerated() {
            let verdict = index == 0 ? "result" : row.verdict
            lines.append(
                "\(pad(row.name, widths.0))  \(pad(row.target, widths.1))  \(pad(row.measured, widths.2))  \(pad(row.ratio, widths.3))  \(verdict)"
                    .trimmingCharacters(in: .whitespaces))
        }
        for error in results.errors { lines.append("error: \(error)") }
        return lines.joined(separator: "\n") + "\n"
    }

    /// One JSON object with the contract's benchmark keys (nested objects for the dotted names) and more.
    var json: JSONValue {
        func propagation(_ value: BenchmarkResults.Propagation) -> JSONValue {
            .object([
                "p50_us": Self.number(value.package?.p50), "p99_us": Self.number(value.package?.p99), "max_us": Self.number(value.package?.max),
                "floor_p50_us": Self.number(value.floor?.p50), "floor_p99_us": Self.number(value.floor?.p99),
                "floor_max_us": Self.number(value.floor?.max), "samples": .int(Int64(value.package?.count ?? 0)),
                "misses": .int(Int64(value.packageMisses + value.floorMisses)), "directory": .string(value.directory),
            ])
        }
        func peer(_ value: BenchmarkResults.Peer) -> JSONValue {
            .object([
                "p50_us": Self.number(value.latency?.p50), "p99_us": Self.number(value.latency?.p99), "max_us": Self.number(value.latency?.max),
                "seen": .int(Int64(value.latency?.count ?? 0)), "rounds": .int(Int64(value.rounds)), "misses": .int(Int64(value.misses)),
            ])
        }
        var object: [String: JSONValue] = [
            "mode": .string(results.mode),
            "propagation": .object(["durable": propagation(results.durable), "tmpfs": propagation(results.tmpfs)]),
            "pipe_oneway_us": .object(["p50": Self.number(results.pipeOneWay?.p50), "p99": Self.number(results.pipeOneWay?.p99)]),
            "peers": .object(["stat_poll_1ms": peer(results.statPoller), "userdefaults_sync_1ms": peer(results.userDefaults)]),
            "check_ns": Self.number(results.checkNanoseconds),
            "decode_us_1": Self.number(results.decodeMicroseconds[1]), "decode_us_10": Self.number(results.decodeMicroseconds[10]),
            "decode_us_100": Self.number(results.decodeMicroseconds[100]), "decode_us_1000": Self.number(results.decodeMicroseconds[1000]),
            "decode_floor_value_tree_us": .object(
                Dictionary(uniqueKeysWithValues: results.valueTreeFloorMicroseconds.map { (String($0.key), Self.number($0.value)) })),
            "unchanged_us": Self.number(results.unchangedMicroseconds),
            "unchanged_floor_two_lstat_us": Self.number(results.twoStatsMicroseconds),
            "signatures": .object([
                "p256_verify_per_s": Self.number(results.signatures?.p256VerificationsPerSecond),
                "p384_verify_per_s": Self.number(results.signatures?.p384VerificationsPerSecond),
                "p256_keys_per_s": Self.number(results.signatures?.p256KeysPerSecond),
                "openssl_p256_verify_per_s": Self.number(results.signatures?.openssl.p256),
                "openssl_p384_verify_per_s": Self.number(results.signatures?.openssl.p384),
                "openssl": .string(Self.opensslNote(results.signatures?.openssl)),
            ]),
            "ingest_per_s": Self.number(results.ingest?.eventsPerSecond),
            "ingest_events": .int(Int64(results.ingest?.events ?? 0)),
            "ingest_single_event_calls_per_s": Self.number(results.singleEventIngest?.eventsPerSecond),
            "verified_ingest_per_s": Self.number(results.verifiedIngest?.eventsPerSecond),
            "daemon_rss_mib": Self.number(results.daemonMemory),
            "daemon_rss_after_ingest_mib": Self.number(results.ingest?.daemonMemory),
            "renderer_ms": Self.number(results.renderMedian),
            "process_floor": .object([
                "idle_rss_mib": Self.number(results.processFloorMemory), "spawn_exit_ms": Self.number(results.processFloorMedian),
            ]),
            "targets_met": .object(Dictionary(uniqueKeysWithValues: rows.compactMap { row in row.met.map { (row.key, JSONValue.bool($0)) } })),
            "errors": .array(results.errors.map(JSONValue.string)),
        ]
        object["sized_tmpfs"] = .object(
            Dictionary(
                uniqueKeysWithValues: results.sized.map { sized in
                    (
                        "entitlements_\(sized.entitlements)",
                        JSONValue.object([
                            "p50_us": Self.number(sized.package?.p50), "p99_us": Self.number(sized.package?.p99),
                            "floor_p50_us": Self.number(sized.floor?.p50), "floor_p99_us": Self.number(sized.floor?.p99),
                            "file_bytes": .int(Int64(sized.fileBytes)), "misses": .int(Int64(sized.misses)),
                        ])
                    )
                }))
        object["purchase"] = .object([
            "p50_us": Self.number(results.purchase?.latency?.p50), "p99_us": Self.number(results.purchase?.latency?.p99),
            "floor_p50_us": Self.number(purchaseFloor.p50), "floor_p99_us": Self.number(purchaseFloor.p99),
            "spawn_floor_p50_us": Self.number(results.purchase?.spawnFloor?.p50), "spawn_floor_p99_us": Self.number(results.purchase?.spawnFloor?.p99),
            "daemon_part_p50_us": Self.number(results.purchase?.daemonPart?.p50), "daemon_part_p99_us": Self.number(results.purchase?.daemonPart?.p99),
            "rounds": .int(Int64(results.purchase?.rounds ?? 0)),
        ])
        object["companion"] = .object([
            "p50_us": Self.number(results.companion?.latency?.p50), "p99_us": Self.number(results.companion?.latency?.p99),
            "floor_p50_us": Self.number(companionFloor.p50), "floor_p99_us": Self.number(companionFloor.p99),
            "tcp_one_way_p50_us": Self.number(results.companion?.tcpOneWay?.p50),
            "catchup_events": .int(Int64(results.companion?.catchUpEvents ?? 0)),
            "catchup_events_per_s": Self.number(results.companion?.catchUpEventsPerSecond),
            "catchup_reconnect_s": Self.number(results.companion?.reconnectSeconds),
            "rounds": .int(Int64(results.companion?.rounds ?? 0)),
        ])
        for (label, propagation) in [("durable", results.durable), ("tmpfs", results.tmpfs)] {
            object["wakeups_\(label)"] = .object([
                "package": Self.number(propagation.packageWakeUps), "floor": Self.number(propagation.floorWakeUps),
            ])
        }
        for fanout in results.fanout {
            object["fanout\(fanout.nominal)"] = .object([
                "wakeups_per_publish": Self.number(fanout.wakeUps), "floor_wakeups_per_publish": Self.number(fanout.floorWakeUps),
                "readers": .int(Int64(fanout.readers)), "p50_us": Self.number(fanout.lastReader?.p50),
                "p99_us": Self.number(fanout.lastReader?.p99), "max_us": Self.number(fanout.lastReader?.max),
                "floor_p50_us": Self.number(fanout.floorLastReader?.p50), "floor_p99_us": Self.number(fanout.floorLastReader?.p99),
                "misses": .int(Int64(fanout.misses)), "rounds": .int(Int64(fanout.rounds)),
            ])
        }
        return .object(object)
    }

    // MARK: Formatting

    static func number(_ value: Double?) -> JSONValue {
        guard let value, value.isFinite else { return .null }
        return .double((value * 1000).rounded() / 1000)
    }

    static func format(_ value: Double?, unit: String) -> String {
        guard let value, value.isFinite else { return "not measured" }
        return String(format: value < 10 ? "%.2f %@" : value < 1000 ? "%.1f %@" : "%.0f %@", value, unit)
    }

    /// Operations per second with thousands separated: "12,345/s".
    static func rate(_ value: Double?) -> String {
        guard let value, value.isFinite else { return "not measured" }
        let digits = String(Int(value.rounded()))
        var grouped = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { grouped.append(",") }
            grouped.append(digit)
        }
        return grouped + "/s"
    }

    static func opensslNote(_ speed: SignatureBenchmarks.OpenSSLSpeed?) -> String {
        switch speed {
        case .measured(_, _, let version)?: version
        case .unavailable(let reason)?: reason
        case nil: "not measured"
        }
    }

    static func microseconds(_ value: Double?) -> String { format(value, unit: "µs") }

    static func wakeUps(_ value: Double?) -> String {
        guard let value, value.isFinite else { return "not measured" }
        return String(format: "%.2f", value)
    }

    /// A target factor as the table prints it: "1.3×".
    static func factor(_ value: Double) -> String {
        var text = String(format: "%.2f", value)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text + "×"
    }

    static func latency(_ summary: LatencySummary?, misses: Int, rounds: Int? = nil) -> String {
        guard let summary else {
            if let rounds, rounds > 0 { return "never saw a write (\(misses) of \(rounds) rounds missed)" }
            return "not measured"
        }
        var text = "\(microseconds(summary.p50)) / \(microseconds(summary.p99)) / \(microseconds(summary.max))"
        if misses > 0 { text += " (\(misses) missed)" }
        return text
    }

    static func ratio(_ value: Double?, _ floor: Double?) -> String {
        guard let value, let floor, floor > 0 else { return "" }
        return String(format: "%.2f×", value / floor)
    }

    static func atMost(_ value: Double?, _ factor: Double, times floor: Double?) -> Bool? {
        guard let value, let floor else { return nil }
        return value <= factor * floor
    }
}
