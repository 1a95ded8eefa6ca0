// How many tile requests the viewer keeps in flight, from the protocol that reaches the tile server. Pure.
// HTTP/1.1 browsers open six connections per host, one request on each: six in flight is all they can use. HTTP/2
// and HTTP/3 carry every request on one connection, so a whole viewport (about 60 tiles) can be asked at once: at
// 50 ms round trip (bench/h2-view.sh) six in flight over HTTP/2 took as long as HTTP/1.1 (0.96×), 64 took 0.75×.

/** The limit over HTTP/1.1 (or an unknown protocol): the browser's six connections per host. */
export const HTTP1_IN_FLIGHT = 6;

/**
 * The limit over HTTP/2 or HTTP/3: 64, the value measured, about a whole viewport's tiles in one round trip, and
 * well under the 100 concurrent streams `tiler serve` allows a connection (the rest leaves room for the viewport
 * reports, the descriptor and the page's own requests on the same connection). Also the largest `inflight` takes.
 */
export const MULTIPLEXED_IN_FLIGHT = 64;

/** Whether a `nextHopProtocol` (ALPN id: `h2`, `h3`, `http/1.1`, '' when unknown or hidden) multiplexes requests. */
export function isMultiplexed(protocol) {
  return protocol === 'h2' || protocol === 'h3' || /^h3-\d+$/.test(protocol ?? '');
}

/**
 * The in-flight limit: `explicit` (`?inflight=N`, the element's `settings.maxInFlight`) when it is a number, else
 * by the protocol.
 * @param {number|null|undefined} explicit
 * @param {string|null|undefined} protocol
 */
export function inFlightLimit(explicit, protocol) {
  if (typeof explicit === 'number' && Number.isFinite(explicit) && explicit >= 1) return Math.floor(explicit);
  return isMultiplexed(protocol) ? MULTIPLEXED_IN_FLIGHT : HTTP1_IN_FLIGHT;
}

/**
 * The protocol that reached the tile server, as honestly as the page can tell, or '' when it cannot.
 * Only timing entries of the tile server's own origin count: the page's navigation when the tiles come from the
 * page's origin, else the newest resource entry of that origin (its descriptor, a tile). A cross-origin entry
 * reports `nextHopProtocol` only when its server sends `Timing-Allow-Origin` (`tiler serve` does not), else '' —
 * and then the limit stays HTTP/1.1's.
 * @param {string} tileOrigin The tile server's origin (`https://host:port`).
 * @param {string} pageOrigin `location.origin`.
 * @param {{nextHopProtocol?: string}|undefined} navigation `performance.getEntriesByType('navigation')[0]`.
 * @param {{name: string, nextHopProtocol?: string}[]} resources `performance.getEntriesByType('resource')`.
 */
export function tileProtocol(tileOrigin, pageOrigin, navigation, resources) {
  if (tileOrigin === pageOrigin && navigation?.nextHopProtocol) return navigation.nextHopProtocol;
  for (let i = resources.length - 1; i >= 0; i -= 1) {
    const entry = resources[i];
    if (entry.nextHopProtocol && originOf(entry.name) === tileOrigin) return entry.nextHopProtocol;
  }
  return '';
}

function originOf(url) {
  try {
    return new URL(url).origin;
  } catch {
    return '';
  }
}
