import HTTPCore
import TileSources

extension Metrics {
    /// The Prometheus text exposition (format 0.0.4) of the request counters and `statistics`.
    func prometheusText(statistics: ServerStatistics) -> String {
        let counts = snapshot()
        var out = ""
        out.reserveCapacity(4096)
        family(&out, "tiler_http_requests_total", "counter", "HTTP requests answered, by route and status.")
        for route in RouteLabel.allCases {
            for status in HTTPStatus.allCases where counts.requests(route: route, status: status) > 0 {
                let value = counts.requests(route: route, status: status)
                out += "tiler_http_requests_total{route=\"\(route.name)\",status=\"\(status.rawValue)\"} \(value)\n"
            }
        }
        family(&out, "tiler_http_request_duration_seconds", "histogram", "Time from a request's head to its response, by route.")
        let bounds = LatencyBuckets.bounds
        for route in RouteLabel.allCases {
            let slots = counts.buckets[(route.rawValue * (bounds.count + 1))..<((route.rawValue + 1) * (bounds.count + 1))]
            let total = slots.reduce(0, +)
            guard total > 0 else { continue }
            var cumulative = 0
            for (offset, count) in slots.enumerated() {
                cumulative += count
                let bound = offset < bounds.count ? "\(bounds[offset])" : "+Inf"
                out += "tiler_http_request_duration_seconds_bucket{route=\"\(route.name)\",le=\"\(bound)\"} \(cumulative)\n"
            }
            out += "tiler_http_request_duration_seconds_sum{route=\"\(route.name)\"} \(counts.latencySum[route.rawValue])\n"
            out += "tiler_http_request_duration_seconds_count{route=\"\(route.name)\"} \(total)\n"
        }
        let numbers = statistics
        sample(&out, "tiler_cache_hits_total", "counter", "Tile cache lookups that found the tile.", numbers.cacheHits)
        sample(&out, "tiler_cache_misses_total", "counter", "Tile cache lookups that did not find the tile.", numbers.cacheMisses)
        sample(&out, "tiler_cache_evictions_total", "counter", "Tiles evicted to respect the cache budget.", numbers.cacheEvictions)
        sample(&out, "tiler_cache_bytes", "gauge", "Bytes held by the tile cache.", numbers.cacheBytes)
        sample(&out, "tiler_cache_entries", "gauge", "Tiles held by the tile cache.", numbers.cacheEntries)
        sample(&out, "tiler_cache_budget_bytes", "gauge", "The tile cache's budget in bytes.", numbers.cacheBudget)
        sample(&out, "tiler_tile_disk_reads_total", "counter", "Tile files read into the cache.", numbers.diskReads)
        sample(
            &out, "tiler_tile_event_loop_reads_total", "counter", "Tile reads done on an event loop (page cache, no thread hop).",
            numbers.diskReadsOnEventLoops)
        sample(&out, "tiler_tile_warming_reads_total", "counter", "Tile reads done by background warming.", numbers.diskReadsWarming)
        sample(
            &out, "tiler_tile_file_sends_total", "counter", "Tile misses not admitted to the cache, sent from their files without entering it.",
            numbers.fileSends)
        sample(
            &out, "tiler_tile_joins_total", "counter", "Tile misses that waited for a read already under way (warming or another request's).",
            numbers.tileJoins)
        sample(
            &out, "tiler_tile_warming_reads_requested_total", "counter", "Warmed tiles that a request then took.",
            numbers.diskReadsWarmingRequested)
        warmingLagHistogram(&out, numbers.warmingLag)
        family(&out, "tiler_warming_cpu_seconds_total", "counter", "CPU time the warming thread has used.")
        out += "tiler_warming_cpu_seconds_total \(numbers.warmingCPUSeconds)\n"
        sample(&out, "tiler_images", "gauge", "Pyramids being served.", numbers.images)
        sample(&out, "tiler_open_connections", "gauge", "Open client connections.", numbers.connections)
        sample(
            &out, "tiler_connections_refused_total", "counter", "Connections closed at once: their address held --max-connections-per-address.",
            numbers.connectionsRefused)
        sample(
            &out, "tiler_send_timeouts_total", "counter", "Connections closed because the client took no response bytes for --send-timeout.",
            numbers.sendTimeouts)
        sample(&out, "tiler_level_directories_open", "gauge", "Level folders held open for tile reads.", numbers.levelDirectories)
        sample(&out, "tiler_level_directories_budget", "gauge", "The most level folders held open at once.", numbers.levelDirectoryBudget)
        sample(
            &out, "tiler_stored_files_open", "gauge", "Files of pyramids stored in one file (pyramidal TIFFs) held open for tile reads.",
            numbers.storedFilesOpen)
        sample(
            &out, "tiler_stored_file_opens_total", "counter", "Files of pyramids stored in one file opened for tile reads.",
            numbers.storedFileOpenings)
        sample(
            &out, "tiler_stored_tiles_abandoned_total", "counter",
            "Tiles of stored pyramids not made because every request for them was cancelled first.", numbers.storedTilesAbandoned)
        sample(&out, "tiler_slide_jpeg_maps", "gauge", "JPEGs of VMS slides mapped into memory for reading.", numbers.slideJPEGMaps)
        sample(&out, "tiler_slide_jpeg_map_budget", "gauge", "The most JPEGs of VMS slides mapped at once.", numbers.slideJPEGMapBudget)
        sample(
            &out, "tiler_slide_jpeg_unmaps_total", "counter",
            "Mappings of VMS slides' JPEGs undone to keep within the budget (least recently read first).",
            numbers.slideJPEGUnmaps)
        sample(&out, "tiler_iiif_renders_total", "counter", "IIIF renders started on a render thread.", numbers.iiifRenders)
        sample(
            &out, "tiler_iiif_renders_cancelled_total", "counter", "IIIF renders cancelled because their client had gone.",
            numbers.iiifRendersCancelled)
        sample(
            &out, "tiler_iiif_renders_refused_total", "counter", "IIIF renders refused (503) because the render budget was in use.",
            numbers.iiifRendersRefused)
        sample(
            &out, "tiler_iiif_render_bytes", "gauge", "Bytes held by IIIF renders and their bodies not yet sent.", numbers.iiifRenderBytes)
        sample(&out, "tiler_iiif_render_budget_bytes", "gauge", "The IIIF render budget in bytes.", numbers.iiifRenderBudget)
        sample(&out, "tiler_process_resident_bytes", "gauge", "Resident memory of the process (VmRSS).", numbers.residentBytes)
        sample(
            &out, "tiler_process_resident_peak_bytes", "gauge", "The most resident memory the process has held (VmHWM).",
            numbers.residentPeakBytes)
        sample(
            &out, "tiler_malloc_system_bytes", "gauge", "Bytes malloc holds from the system: its heaps and separately mapped blocks.",
            numbers.mallocSystemBytes)
        sample(
            &out, "tiler_malloc_in_use_bytes", "gauge", "Bytes malloc has handed out: the tile cache, renders, connections, everything.",
            numbers.mallocInUseBytes)
        sample(&out, "tiler_malloc_free_bytes", "gauge", "Free bytes malloc keeps in its heaps for reuse.", numbers.mallocFreeBytes)
        sample(&out, "tiler_malloc_arenas", "gauge", "malloc's heaps (arenas).", numbers.mallocArenas)
        sample(
            &out, "tiler_malloc_trims_total", "counter", "Times free heap pages were given back to the system (malloc_trim).",
            numbers.mallocTrims)
        sample(&out, "tiler_malloc_trimmed_bytes_total", "counter", "Resident bytes the trims gave back.", numbers.mallocTrimmedBytes)
        family(&out, "tiler_malloc_trim_seconds_total", "counter", "Time spent trimming.")
        out += "tiler_malloc_trim_seconds_total \(numbers.mallocTrimSeconds)\n"
        return out
    }

    private func family(_ out: inout String, _ name: String, _ type: String, _ help: String) {
        out += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
    }

    private func sample(_ out: inout String, _ name: String, _ type: String, _ help: String, _ value: Int) {
        family(&out, name, type, help)
        out += "\(name) \(value)\n"
    }

    private func warmingLagHistogram(_ out: inout String, _ lag: WarmingLagCounts) {
        let name = "tiler_warming_lag_seconds"
        family(&out, name, "histogram", "Time from a visible-rect query to a tile it asked for arriving in the cache (warmed tiles).")
        var cumulative = 0
        for (offset, count) in lag.buckets.enumerated() {
            cumulative += count
            let bound = offset < LatencyBuckets.bounds.count ? "\(LatencyBuckets.bounds[offset])" : "+Inf"
            out += "\(name)_bucket{le=\"\(bound)\"} \(cumulative)\n"
        }
        out += "\(name)_sum \(lag.sum)\n\(name)_count \(cumulative)\n"
    }
}
