// The client's tile cache: decoded tiles by key, least recently used first out, with a cap. Tiles on screen are
// pinned for the frame that draws them and the one-tile overview is kept for good, so eviction only ever takes
// off-screen tiles; if everything left is pinned the cache waits above its cap until tiles leave the screen.

/** The default number of tiles kept (OpenSeadragon keeps 200; a 4K screen shows about 150 tiles of 256 px). */
export const DEFAULT_CACHE_CAPACITY = 300;

/**
 * @template V
 * An LRU map from tile keys to values with pinning. `get`, `set` and `has` are O(1); eviction is O(n) in the
 * number of pinned tiles it has to skip.
 */
export class TileCache {
  /**
   * @param {number} [capacity] The most tiles kept while enough of them are off screen (≥ 1).
   * @param {(value: V, key: string) => void} [dispose] Called with every value that leaves the cache (to release
   *   decoded bitmaps).
   */
  constructor(capacity = DEFAULT_CACHE_CAPACITY, dispose = () => {}) {
    if (!(Number.isInteger(capacity) && capacity >= 1)) throw new RangeError(`cache capacity must be an integer ≥ 1 (got ${capacity})`);
    /** @readonly */ this.capacity = capacity;
    this.dispose = dispose;
    /** @type {Map<string, V>} insertion order is recency order, oldest first */
    this.entries = new Map();
    /** @type {Set<string>} */
    this.pinned = new Set();
    /** @type {Set<string>} */
    this.permanent = new Set();
    /** How many tiles have been evicted so far. */
    this.evictions = 0;
    /** The largest size reached. */
    this.peak = 0;
  }

  /** The number of tiles held. */
  get size() {
    return this.entries.size;
  }

  /** Whether `key` is held (without touching its recency). */
  has(key) {
    return this.entries.has(key);
  }

  /** The value for `key`, marking it most recently used; `undefined` if absent. */
  get(key) {
    const value = this.entries.get(key);
    if (value !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  /** The value for `key` without touching its recency. */
  peek(key) {
    return this.entries.get(key);
  }

  /** The values held, least recently used first, without touching their recency. */
  values() {
    return this.entries.values();
  }

  /** Stores `value` as the most recently used, replacing (and disposing) an older value, then evicts. */
  set(key, value) {
    const old = this.entries.get(key);
    if (old !== undefined) {
      this.entries.delete(key);
      if (old !== value) this.dispose(old, key);
    }
    this.entries.set(key, value);
    this.trim();
    this.peak = Math.max(this.peak, this.entries.size);
  }

  /** Keeps `key` for good, whatever the pressure (the overview tile). */
  keep(key) {
    this.permanent.add(key);
  }

  /**
   * Replaces the set of tiles on screen: they cannot be evicted until the next call. Then evicts down to the cap.
   * @param {Iterable<string>} keys
   */
  pin(keys) {
    this.pinned = new Set(keys);
    this.trim();
  }

  /** Evicts least recently used tiles that are neither pinned nor kept until the cache is at its cap. */
  trim() {
    if (this.entries.size <= this.capacity) return;
    for (const [key, value] of this.entries) {
      if (this.entries.size <= this.capacity) break;
      if (this.pinned.has(key) || this.permanent.has(key)) continue;
      this.entries.delete(key);
      this.evictions += 1;
      this.dispose(value, key);
    }
  }

  /** Removes every tile (disposing each) and forgets pins. */
  clear() {
    for (const [key, value] of this.entries) this.dispose(value, key);
    this.entries.clear();
    this.pinned.clear();
    this.permanent.clear();
  }

  /** Counts for tests and the status line: `{size, capacity, pinned, kept, evictions, peak}`. */
  get stats() {
    let pinned = 0;
    for (const key of this.pinned) if (this.entries.has(key)) pinned += 1;
    return { size: this.size, capacity: this.capacity, pinned, kept: this.permanent.size, evictions: this.evictions, peak: this.peak };
  }
}
