import Foundation
import TestSupport

extension SplitMix64 {
    /// A value spread evenly in log scale over `range` (both bounds > 0).
    mutating func logUniform(_ range: ClosedRange<Double>) -> Double {
        let low = log(range.lowerBound)
        let high = log(range.upperBound)
        return min(max(exp(Double.random(in: low...high, using: &self)), range.lowerBound), range.upperBound)
    }
}
