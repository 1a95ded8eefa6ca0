"""What the nginx scenarios (test_nginx.py, nginx_tls.py) share: a shipped file rewritten only where a test must (ports,
certificate paths, cache folder), and a real nginx whose http {} block includes it."""
import os
import re
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(REPO, "Tests", "Support"))
from proxy_checks import check  # noqa: E402


def rewritten(path, replacements):
    """The text of the shipped file at `path` with each (regular expression, replacement) applied, each checked to
    match exactly once: a shipped line the test no longer finds fails it rather than going untested."""
    with open(path) as f:
        text = f.read()
    for pattern, replacement in replacements:
        text, count = re.subn(pattern, lambda _: replacement, text)
        check(f"{os.path.basename(path)} has `{pattern}` once", count == 1, f"{count} times")
    return text


class Nginx:
    """nginx (as root, its workers as `nobody`) in `folder`, its cache folder `cache`; `start` includes the text of a
    shipped file in its http {} block. That block also holds what Debian's own /etc/nginx/nginx.conf sets there, which
    a shipped file must live with: ssl_protocols with TLS 1.0 and 1.1, and ssl_prefer_server_ciphers on."""

    def __init__(self, folder, label):
        self.folder, self.label, self.process = folder, label, None
        self.cache = os.path.join(folder, "cache")
        os.makedirs(folder)
        # nginx's workers drop root for `nobody`: they must reach the cache and temporary folders.
        for name in ["cache", "temp"]:
            os.makedirs(os.path.join(folder, name))
            os.chmod(os.path.join(folder, name), 0o777)
        os.chmod(folder, 0o755)

    def start(self, conf, ready):
        """Writes nginx.conf around `conf`, checks it with `nginx -t` (no error, no warning), starts nginx and waits
        (10 s at most) until `ready()` is true."""
        folder = self.folder
        with open(os.path.join(folder, "tiler.conf"), "w") as f:
            f.write(conf)
        temp = os.path.join(folder, "temp")
        self.conf = os.path.join(folder, "nginx.conf")
        with open(self.conf, "w") as f:
            f.write(f"""daemon off; worker_processes 1; pid {folder}/nginx.pid; error_log {folder}/error.log;
events {{ worker_connections 256; }}
http {{
    access_log off;
    ssl_protocols TLSv1 TLSv1.1 TLSv1.2 TLSv1.3;
    ssl_prefer_server_ciphers on;
    client_body_temp_path {temp}/body; proxy_temp_path {temp}/proxy; fastcgi_temp_path {temp}/fastcgi;
    uwsgi_temp_path {temp}/uwsgi; scgi_temp_path {temp}/scgi;
    include {folder}/tiler.conf;
}}
""")
        tested = subprocess.run(["nginx", "-t", "-c", self.conf], capture_output=True, text=True)
        check(f"nginx accepts {self.label}", tested.returncode == 0 and "[warn]" not in tested.stderr, tested.stderr)
        self.process = subprocess.Popen(["nginx", "-c", self.conf], stderr=subprocess.DEVNULL)
        deadline = time.time() + 10
        while time.time() < deadline:
            try:
                if ready():
                    return
            except OSError:
                pass
            time.sleep(0.1)

    def error_log(self):
        path = os.path.join(self.folder, "error.log")
        if not os.path.exists(path):
            return ""
        with open(path) as f:
            return f.read()[-2000:]

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGQUIT)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
