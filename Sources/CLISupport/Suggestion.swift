/// "Did you mean …?" for a misspelt subcommand, option, family or feature.
package enum Suggestion {
    /// The candidate closest to `word` by edit distance (insertions, deletions, substitutions
    /// and swaps of neighbours each cost 1), if it is close enough to be a typo: at most 2 edits,
    /// and fewer than half of the shorter word's length. Ties go to the earlier candidate. Never
    /// `word` itself: a known word used wrongly needs another message, not itself suggested.
    package static func closest(to word: String, among candidates: some Sequence<String>) -> String? {
        var best: (candidate: String, distance: Int)?
        for candidate in candidates where candidate != word {
            let distance = editDistance(word, candidate)
            let limit = min(2, (min(word.count, candidate.count) - 1) / 2)
            guard distance <= limit, distance < best?.distance ?? .max else { continue }
            best = (candidate, distance)
        }
        return best?.candidate
    }

    /// `"; did you mean 'x'?"` or the empty string.
    package static func didYouMean(_ word: String, among candidates: some Sequence<String>) -> String {
        closest(to: word, among: candidates).map { "; did you mean '\($0)'?" } ?? ""
    }

    /// Optimal string alignment distance between `a` and `b`, over Unicode scalars.
    package static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a.unicodeScalars), b = Array(b.unicodeScalars)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previousPrevious = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], previousPrevious[j - 2] + 1)
                }
            }
            (previousPrevious, previous, current) = (previous, current, previousPrevious)
        }
        return previous[b.count]
    }
}
