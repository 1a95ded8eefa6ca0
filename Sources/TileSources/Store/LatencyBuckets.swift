/// The upper bounds, in seconds, of the latency histograms `/metrics` shows — requests' durations and warm reads'
/// lag — so that the two can be read side by side (`+Inf` is implied).
package enum LatencyBuckets {
    package static let bounds: [Double] = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5]
}
