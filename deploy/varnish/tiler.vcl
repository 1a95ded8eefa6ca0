# Varnish 7 (Debian 12's `varnish` 7.1) in front of stateless `tiler serve` replicas over one shared pyramid folder.
#
#   varnishd -f /etc/varnish/tiler.vcl -a :80 -s malloc,2g
#
# Backends: three replicas on 127.0.0.1:8081–8083. To change them, edit the `backend` blocks below (host, port)
# and the `add_backend` lines in vcl_init; a replica that is listed but not running is marked sick by its probe and
# costs nothing. Start each replica with `--trust-proxy` so the URLs it writes use the X-Forwarded-* headers set here.
#
# Director: a consistent-hash (shard) director keyed on the *pyramid* a request is for, not round robin. Each
# pyramid's tiles, descriptor and visible-rect queries then go to one replica, so
#   - a tile lives in one replica's memory cache, and the replicas' caches add up instead of holding copies;
#   - a viewer's viewport reports (the visible-rect query) reach the replica that reads its tiles, whose cache
#     evicts off-screen tiles first and warms what that viewer is about to see;
#   - when a replica stops, only its pyramids move (to the next replica on the ring), and come back when it does.
# Popular tiles are answered by Varnish itself; the replicas see the misses.
#
# Failover: a fetch that fails (connection refused, reset, timeout, 5xx) is retried on the next replica of the ring
# (`alt = bereq.retries`), each replica at most once, so a stopped replica costs the client nothing in the seconds
# before its probe marks it sick — even while a second listed replica is down too. With more or fewer backends, make the
# `bereq.retries < 2` limits below one less than their number.

vcl 4.1;

import directors;
import std;

probe tiler_health {
    .request =
        "GET /healthz HTTP/1.1"
        "Host: localhost"
        "User-Agent: varnish-probe"
        "Connection: close";
    .interval = 1s;
    .timeout = 1s;
    .window = 3;
    .threshold = 2;
    # Start healthy (as many good probes as the threshold), so a restarted Varnish serves at once.
    .initial = 2;
}

backend tiler1 {
    .host = "127.0.0.1";
    .port = "8081";
    .probe = tiler_health;
    .connect_timeout = 1s;
    .first_byte_timeout = 60s;
    .between_bytes_timeout = 10s;
}

backend tiler2 {
    .host = "127.0.0.1";
    .port = "8082";
    .probe = tiler_health;
    .connect_timeout = 1s;
    .first_byte_timeout = 60s;
    .between_bytes_timeout = 10s;
}

backend tiler3 {
    .host = "127.0.0.1";
    .port = "8083";
    .probe = tiler_health;
    .connect_timeout = 1s;
    .first_byte_timeout = 60s;
    .between_bytes_timeout = 10s;
}

sub vcl_init {
    new tilers = directors.shard();
    tilers.add_backend(tiler1);
    tilers.add_backend(tiler2);
    tilers.add_backend(tiler3);
    tilers.reconfigure();
}

sub vcl_recv {
    # The host names this cache answers for: every public name of the service (edit this line), and localhost for
    # the compose file's http://localhost:8080/. Any other Host is refused before it reaches a replica or the cache:
    # IIIF answers hold absolute URLs built from the host, so an unchecked Host would let one client choose the URLs
    # the next one is given. With --public-url on the replicas, ids no longer depend on it at all (docs/deploying.md,
    # "Behind a reverse proxy").
    set req.http.Host = std.tolower(regsub(req.http.Host, "\.$", ""));
    if (req.http.Host !~ "^(images\.example\.org|localhost|127\.0\.0\.1)(:[0-9]{1,5})?$") {
        return (synth(421, "Misdirected Request"));
    }
    # The public URL the replicas write into IIIF ids (they honour these headers with --trust-proxy). The host is
    # always the one the client asked Varnish for, as checked above: a client's own X-Forwarded-Host, Forwarded or
    # X-Forwarded-Prefix is dropped, so no client chooses the URLs a replica writes. A TLS terminator in front of
    # Varnish sets X-Forwarded-Proto itself; otherwise this hop is plain HTTP (and a client's own value, which can
    # only be http or https, is kept in the cache key below).
    unset req.http.Forwarded;
    unset req.http.X-Forwarded-Prefix;
    set req.http.X-Forwarded-Host = req.http.Host;
    if (req.http.X-Forwarded-Proto != "https") {
        set req.http.X-Forwarded-Proto = "http";
    }
    # Live state: every request must reach a replica. The visible-rect query also feeds that replica's
    # viewport-aware cache, so it is never answered from Varnish's cache either.
    if (req.url ~ "^/(healthz|metrics)(\?|$)" || req.url ~ "^/api/images/.+/visible(\?|$)") {
        return (pass);
    }
    if (req.method != "GET" && req.method != "HEAD") {
        return (pass);
    }
    # Private images (`tiler serve --access`): a request that carries an access token (a bearer, `?token=`, the
    # IIIF `tiler_token` cookie) is answered for that client only, so it goes to a replica uncached, credentials
    # intact. Signed tile URLs carry no token: they are cached like any tile, under their whole URL (query and
    # signature included), for the max-age Tiler gives, which never outlives the signature.
    if (req.http.Authorization || req.url ~ "[?&]token=" || req.http.Cookie ~ "(^|;\s*)tiler_token=") {
        return (pass);
    }
    # Tiles, descriptors and IIIF images are the same whatever else the query says: a signed URL's query is its
    # signature alone (`?sig=SIG`, as the replicas require: any other spelling is refused here, as they refuse it), and
    # any other query is dropped (the replicas ignore it). So no client can make a URL miss the cache at will by
    # adding to its query.
    if (req.url ~ "^/images/[^?]*(\.dzi|_files/)" || req.url ~ "^/iiif/3/[^/?]+/[^/?]+/[^/?]+/[^/?]+/[^/?]+\?") {
        if (req.url ~ "[?&]sig=") {
            if (req.url !~ "^[^?]*\?sig=[A-Za-z0-9_-]{22}$") {
                return (synth(400, "Bad Request"));
            }
        } else {
            set req.url = regsub(req.url, "\?.*$", "");
        }
    }
    # Tiler answers the same bytes whoever asks: credentials and cookies only split the cache.
    unset req.http.Cookie;
    unset req.http.Authorization;
    return (hash);
}

sub vcl_hash {
    # Tiles and descriptors do not depend on the Host they were asked under; everything else (IIIF answers write
    # absolute URLs) is kept apart by scheme and host (the replicas also say Vary: Host on those answers).
    hash_data(req.url);
    if (req.url !~ "^/images/") {
        hash_data(req.http.X-Forwarded-Proto + "://" + req.http.Host);
    }
    return (lookup);
}

sub vcl_backend_fetch {
    # The shard key: the pyramid's name in every URL form that names one, else the whole URL.
    if (bereq.url ~ "^/images/.+(\.dzi|_files/)") {
        set bereq.http.X-Tiler-Shard = regsub(bereq.url, "^/images/(.+?)(@[^/]*)?(\.dzi|_files/.*)$", "\1");
    } elsif (bereq.url ~ "^/api/images/.+/visible") {
        set bereq.http.X-Tiler-Shard = regsub(bereq.url, "^/api/images/(.+)/visible.*$", "\1");
    } elsif (bereq.url ~ "^/iiif/3/[^/?]+") {
        set bereq.http.X-Tiler-Shard = regsuball(regsub(bereq.url, "^/iiif/3/([^/?]+).*$", "\1"), "%2[Ff]", "/");
    } else {
        set bereq.http.X-Tiler-Shard = bereq.url;
    }
    # First try: the pyramid's own replica (or the next healthy one). A retry: the next replica on the ring.
    set bereq.backend = tilers.backend(by=KEY, key=tilers.key(bereq.http.X-Tiler-Shard), alt=bereq.retries, healthy=ALL);
    unset bereq.http.X-Tiler-Shard;
}

sub vcl_backend_response {
    # A replica that answers 5xx (stopping, overloaded): try the next replica.
    if (beresp.status >= 500 && bereq.retries < 2 && bereq.method ~ "^(GET|HEAD)$") {
        return (retry);
    }
    # Cache-Control from Tiler decides the TTL (versioned tiles: a year; JSON and unversioned descriptors: seconds).
    # Grace: once a short-lived answer expires, it is served stale for a few seconds while one fetch refreshes it.
    set beresp.grace = 10s;
    # A signed tile URL is good until its signature expires, not 10 s beyond: no grace for it.
    if (bereq.url ~ "[?&]sig=") {
        set beresp.grace = 0s;
    }
    # Which replica answered, for debugging (kept on the cached object).
    set beresp.http.X-Backend = beresp.backend.name;
}

sub vcl_backend_error {
    # Connection refused or reset, or a timeout: try the next replica instead of answering 503.
    if (bereq.retries < 2) {
        return (retry);
    }
}

sub vcl_deliver {
    # Visible for debugging, as is Varnish's own Age header.
    if (obj.uncacheable) {
        set resp.http.X-Cache = "PASS";
    } elsif (obj.hits > 0) {
        set resp.http.X-Cache = "HIT";
    } else {
        set resp.http.X-Cache = "MISS";
    }
}
