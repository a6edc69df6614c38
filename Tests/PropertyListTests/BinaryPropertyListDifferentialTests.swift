import Foundation
import Testing
@testable import PropertyList

/// Our binary codec against the reference, Foundation's `PropertyListSerialization`, both ways
/// on a few hundred seeded random values. Pure computation: no time limit, since Foundation in a
/// debug build on a loaded machine is slow but always finishes.
@Suite struct BinaryPropertyListDifferentialTests {
    /// `count` random values, then two deeply nested ones (`deepest` levels at most).
    static func randomValues(seed: UInt64, count: Int, millisecondDates: Bool = false, deepest: Int = 511) -> [PropertyListValue] {
        var random = RandomPropertyListValues(seed: seed)
        random.millisecondDates = millisecondDates
        var values = (0..<count).map { _ in random.value() }
        values.append(random.deeplyNested(depth: 100))
        values.append(random.deeplyNested(depth: deepest))
        return values
    }

    @Test(arguments: [UInt64(11), 22, 33, 44])
    func foundationReadsWhatWeWrite(seed: UInt64) throws {
        for (index, value) in Self.randomValues(seed: seed, count: 50).enumerated() {
            let bytes = try BinaryPropertyListEncoder.encode(value)
            let decoded = try FoundationPropertyList.decode(bytes)
            #expect(decoded == value, "seed \(seed) value \(index): Foundation read \(decoded)")
            #expect(try BinaryPropertyListDecoder.decode(bytes) == value, "seed \(seed) value \(index)")
        }
    }

    @Test(arguments: [UInt64(55), 66, 77, 88])
    func weReadWhatFoundationWrites(seed: UInt64) throws {
        for (index, value) in Self.randomValues(seed: seed, count: 50).enumerated() {
            let bytes = try FoundationPropertyList.encode(value, format: .binary)
            let decoded = try BinaryPropertyListDecoder.decode(bytes)
            #expect(decoded == value, "seed \(seed) value \(index): we read \(decoded)")
        }
    }

    @Test(arguments: [1, 100])
    func snapshotShapedDictionariesMatchFoundation(entitlements: Int) throws {
        let value = SnapshotShapedValue.make(entitlements: entitlements)
        let foundationBytes = try FoundationPropertyList.encode(value, format: .binary)
        let ours = try PropertyListCodec.decode(foundationBytes)
        #expect(ours == value)
        #expect(ours == (try FoundationPropertyList.decode(foundationBytes)))
        #expect(try FoundationPropertyList.decode(PropertyListCodec.encode(value)) == value)
    }
}
