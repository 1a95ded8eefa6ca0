import CJPEG

extension RestartJPEGGrid {
    /// The mappings of the JPEGs read here, process-wide: each indexed JPEG is mapped for its reads, and at most
    /// ``mapBudget`` stay mapped at once (the least recently read are unmapped first and mapped again when read), so
    /// that many slides' JPEGs never reach the kernel's `vm.max_map_count`.
    public struct MapStatistics: Sendable, Equatable {
        /// JPEGs mapped now.
        public var mapped: Int
        /// The most that stay mapped.
        public var budget: Int
        /// Mappings undone to keep within the budget, since the process started.
        public var unmapped: Int
    }

    /// The mappings now.
    public static var mapStatistics: MapStatistics {
        var mapped = 0
        var budget = 0
        var unmapped: UInt64 = 0
        tiler_jpeg_restart_map_statistics(&mapped, &budget, &unmapped)
        return MapStatistics(mapped: mapped, budget: budget, unmapped: Int(unmapped))
    }

    /// Sets how many JPEGs may stay mapped at once (`nil`: the default, a quarter of `vm.max_map_count`), unmapping
    /// the least recently read beyond it now.
    public static func setMapBudget(_ maps: Int?) {
        tiler_jpeg_restart_set_map_budget(maps.map { max(1, $0) } ?? 0)
    }
}
