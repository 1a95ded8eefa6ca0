#!/usr/bin/env python3
"""Viewers browsing one image through Varnish, for bench/private-through-varnish.sh (issue 26's second measure).

Usage: private-viewers.py PORT NAME WIDTH HEIGHT VIEWERS [TOKEN…]
  PORT: Varnish's; NAME: the image; WIDTH, HEIGHT: its size in pixels; VIEWERS: how many browse at once. TOKENs, one per
  viewer, make the image's viewers private ones (each sends its own as `Authorization: Bearer` on its visible-rect
  queries and follows the signed tile URLs the answers hand out); without them the viewers are public ones.

Every viewer takes the same guided tour of the image on a 1920×1080 screen (the whole image, then zooms into six
seeded points, pans around each, and back out: 61 viewports), the way a class follows one slide, each starting after a
seeded pause of up to 0.5 s and thinking 20 ms between viewports. At each viewport it asks the visible-rect query
(Varnish passes it to a replica) and then fetches every tile of the answer it has not fetched before (its own browser
cache), on its own kept-alive connection. Prints one JSON object: tile requests, Varnish's X-Cache verdicts for them
(HIT, MISS, PASS), the hit ratio, the distinct tile URLs seen by all viewers together and by one, the distinct signed
queries, the statuses other than 200, and the seconds taken.
"""
import http.client
import json
import random
import sys
import threading
import time
from collections import Counter

SCREEN = (1920, 1080)


def tour(width, height):
    """The viewports of the tour: (x, y, zoomScale), x and y the content offset in zoomed points."""
    fit = min(SCREEN[0] / width, SCREEN[1] / height)
    steps = [(0.0, 0.0, fit)]
    rng = random.Random(26)

    def centred(px, py, zoom):
        return (px * zoom - SCREEN[0] / 2, py * zoom - SCREEN[1] / 2, zoom)

    for _ in range(6):
        px, py = rng.uniform(0.15, 0.85) * width, rng.uniform(0.15, 0.85) * height
        zoom = fit
        while zoom < 1:
            zoom = min(1.0, zoom * 2)
            steps.append(centred(px, py, zoom))
        for dx, dy in [(1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (0, 0)]:
            steps.append(centred(px + dx * SCREEN[0] * 0.6, py + dy * SCREEN[1] * 0.6, zoom))
        steps.append((0.0, 0.0, fit))
    return steps


def browse(port, name, steps, token, delay, results, lock):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    fetched, verdicts, statuses, urls = set(), Counter(), Counter(), set()

    def get(path, extra):
        for attempt in range(2):
            try:
                connection.request("GET", path, headers=extra)
                response = connection.getresponse()
                return response.status, response.getheader("X-Cache", "-"), response.read()
            except (http.client.HTTPException, OSError):
                connection.close()
                if attempt:
                    raise

    time.sleep(delay)
    for x, y, zoom in steps:
        query = f"/api/images/{name}/visible?x={x:.0f}&y={y:.0f}&width={SCREEN[0]}&height={SCREEN[1]}&zoomScale={zoom:.6f}"
        status, _, body = get(query, headers)
        if status != 200:
            statuses[f"visible {status}"] += 1
            continue
        for tile in json.loads(body)["tiles"]:
            url = tile["url"]
            if url in fetched:
                continue
            fetched.add(url)
            status, verdict, _ = get(url, {})
            verdicts[verdict] += 1
            urls.add(url)
            if status != 200:
                statuses[f"tile {status}"] += 1
        time.sleep(0.02)
    connection.close()
    with lock:
        results.append((verdicts, statuses, urls))


def main():
    port, name, width, height, viewers = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
    tokens = sys.argv[6:]
    if tokens and len(tokens) != viewers:
        sys.exit(f"give one token per viewer ({viewers}), or none")
    steps = tour(width, height)
    rng = random.Random(7)
    results, lock = [], threading.Lock()
    threads = [threading.Thread(target=browse, args=(port, name, steps, tokens[i] if tokens else None, rng.uniform(0, 0.5), results, lock))
               for i in range(viewers)]
    started = time.time()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    verdicts, statuses, urls = Counter(), Counter(), set()
    for v, s, u in results:
        verdicts.update(v)
        statuses.update(s)
        urls |= u
    tiles = sum(verdicts.values())
    print(json.dumps({
        "viewers": viewers, "finished": len(results), "viewports": len(steps), "tile_requests": tiles,
        "verdicts": dict(verdicts), "hit_ratio": round(verdicts["HIT"] / tiles, 4) if tiles else 0,
        "distinct_urls": len(urls), "urls_per_viewer": len(results[0][2]) if results else 0,
        "distinct_queries": len({url.partition("?")[2] for url in urls}), "errors": dict(statuses),
        "seconds": round(time.time() - started, 2)}))


if __name__ == "__main__":
    main()
