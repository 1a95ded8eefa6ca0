#!/usr/bin/python3
"""OpenSlide's own way of serving a slide as Deep Zoom, for bench/slide-serve.sh: python3-openslide's
DeepZoomGenerator (256-pixel tiles, overlap 0, limit_bounds off, as tiler serves) behind Python's threading HTTP server,
one OpenSlide handle shared by the threads as openslide-python's deepzoom_server.py shares it, each tile encoded as
JPEG at QUALITY (85, Tiler's). Serves /images/img_files/L/C_R.jpg. Prints "listening on PORT" once ready.
Usage: slide-dzg-server.py SLIDE PORT [QUALITY]"""
import io
import re
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import openslide
from openslide.deepzoom import DeepZoomGenerator

SLIDE = openslide.OpenSlide(sys.argv[1])
GENERATOR = DeepZoomGenerator(SLIDE, tile_size=256, overlap=0, limit_bounds=False)
QUALITY = int(sys.argv[3]) if len(sys.argv) > 3 else 85
TILE = re.compile(r"^/images/img_files/(\d+)/(\d+)_(\d+)\.jpg$")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        match = TILE.match(self.path)
        try:
            tile = GENERATOR.get_tile(int(match.group(1)), (int(match.group(2)), int(match.group(3)))) if match else None
        except ValueError:
            tile = None
        if tile is None:
            self.send_error(404)
            return
        buffer = io.BytesIO()
        tile.save(buffer, "jpeg", quality=QUALITY)
        body = buffer.getvalue()
        self.send_response(200)
        self.send_header("Content-Type", "image/jpeg")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[2])), Handler)
server.daemon_threads = True
print(f"listening on {server.server_address[1]}", flush=True)
server.serve_forever()
