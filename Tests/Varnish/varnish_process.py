"""varnishd for the Varnish tests: started on the shipped VCL with its backend ports pointed at the replicas, and
stopped, by the scenarios (test_varnish.py, test_bucket_varnish.py, test_private_varnish.py)."""

import os
import re
import signal
import subprocess
import time

from proxy_checks import check, free_port, get


def start_varnish(folder, vcl_file, backend_ports, storage="malloc,64m"):
    """Writes `vcl_file` with its backend ports 8081–8083 replaced by `backend_ports` (each must appear once), starts
    varnishd on a free port with its working folder in `folder`, waits (up to 20 s) for /healthz through it, and
    returns (port, working folder)."""
    with open(vcl_file) as f:
        vcl = f.read()
    for default, port in zip(["8081", "8082", "8083"], backend_ports):
        vcl, count = re.subn(r'\.port = "%s";' % default, '.port = "%d";' % port, vcl)
        check(f"the shipped VCL names backend port {default} once", count == 1, f"{count} times")
    vcl_path = os.path.join(folder, "tiler.vcl")
    with open(vcl_path, "w") as f:
        f.write(vcl)
    port = free_port()
    varnish_dir = os.path.join(folder, "varnish")
    os.makedirs(varnish_dir)
    subprocess.run(["varnishd", "-f", vcl_path, "-a", f"127.0.0.1:{port}", "-n", varnish_dir,
                    "-P", os.path.join(varnish_dir, "pid"), "-s", storage], check=True, stdout=subprocess.DEVNULL)
    deadline = time.time() + 20
    while time.time() < deadline:
        try:
            if get(port, "/healthz")[0] == 200:
                break
        except OSError:
            time.sleep(0.2)
    return port, varnish_dir


def stop_varnish(varnish_dir):
    """Stops the varnishd whose working folder is `varnish_dir`, if it was started."""
    pid_file = os.path.join(varnish_dir, "pid")
    if os.path.exists(pid_file):
        with open(pid_file) as f:
            try:
                os.kill(int(f.read().strip()), signal.SIGTERM)
            except (ProcessLookupError, ValueError):
                pass
