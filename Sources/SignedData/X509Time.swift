import CivilTime

/// X.509 validity times (RFC 5280 §4.1.2.5): `UTCTime` `YYMMDDHHMMSSZ` (years 1950-2049) and
/// `GeneralizedTime` `YYYYMMDDHHMMSSZ`, both in UTC with seconds and no fraction, exactly as
/// RFC 5280 requires them. Converted to seconds since 1970-01-01T00:00:00Z.
enum X509Time {
    static func seconds(_ element: DERElement, in bytes: [UInt8], _ what: String) throws(DERError) -> Int64 {
        let text = bytes[element.content]
        let digits: Int
        switch element.tag {
        case DERReader.utcTime: digits = 12
        case DERReader.generalizedTime: digits = 14
        default: throw DERError("\(what): neither UTCTime nor GeneralizedTime")
        }
        guard text.count == digits + 1, text.last == UInt8(ascii: "Z"),
            text.dropLast().allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { throw DERError("\(what): not of the form \(digits == 12 ? "YYMMDDHHMMSSZ" : "YYYYMMDDHHMMSSZ")") }
        var fields = text.makeIterator()
        func number(_ count: Int) -> Int64 {
            var value: Int64 = 0
            for _ in 0..<count { value = value * 10 + Int64(fields.next()! - UInt8(ascii: "0")) }
            return value
        }
        var year = digits == 12 ? number(2) : number(4)
        if digits == 12 { year += year >= 50 ? 1900 : 2000 }
        let month = number(2), day = number(2), hour = number(2), minute = number(2), second = number(2)
        guard (1...12).contains(month), day >= 1, day <= CivilCalendar.daysIn(month: month, year: year), hour < 24, minute < 60, second < 60 else {
            throw DERError("\(what): not a valid date and time")
        }
        return CivilCalendar.days(year: year, month: month, day: day) * 86_400 + hour * 3_600 + minute * 60 + second
    }
}
