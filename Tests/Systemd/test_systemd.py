#!/usr/bin/env python3
"""The shipped systemd unit (deploy/systemd/tiler@.service) and its environment file (tiler.env), as systemd runs them.

1. `systemd-analyze verify` accepts the unit (with ExecStart pointing at the binary under test).
2. ExecStart is expanded the way systemd expands it — `%i` is the instance (the port), `${VAR}` comes from the
   EnvironmentFile — and run with the file's variables in its environment too (systemd passes them on, and tiler
   reads TILER_* variables): the replica must start, serve the pyramid folder the file names (pointed at a test
   folder), and answer /healthz and /api/images.
Prints `N passed, M failed` last; exits non-zero on any failure.
"""
import json
import os
import re
import shlex
import shutil
import subprocess
import time
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(REPO, "Tests", "Support"))
from proxy_checks import check, free_port, get, summary  # noqa: E402

TILER = os.environ.get("TILER_BIN", os.path.join(REPO, ".build", "debug", "tiler"))
UNIT = os.path.join(REPO, "deploy", "systemd", "tiler@.service")
ENV = os.path.join(REPO, "deploy", "systemd", "tiler.env")


def environment_file(path):
    """KEY=value lines, comments and blank lines skipped, as systemd's EnvironmentFile= reads them."""
    values = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#") or line.startswith(";"):
                continue
            key, _, value = line.partition("=")
            values[key.strip()] = value.strip().strip('"')
    return values


def main():
    folder = tempfile.mkdtemp(prefix="tiler-systemd-")
    server = None
    try:
        with open(UNIT) as f:
            unit = f.read()
        check("the unit runs /usr/local/bin/tiler", "ExecStart=/usr/local/bin/tiler serve " in unit)
        units = os.path.join(folder, "units")
        os.makedirs(units)
        with open(os.path.join(units, "tiler@.service"), "w") as f:
            f.write(unit.replace("/usr/local/bin/tiler", TILER))
        verified = subprocess.run(["systemd-analyze", "verify", os.path.join(units, "tiler@8081.service")],
                                  capture_output=True, text=True)
        check("systemd-analyze verify accepts the unit", verified.returncode == 0 and not verified.stderr.strip(),
              verified.stderr[-800:])

        variables = environment_file(ENV)
        check("the environment file names the pyramid folder the unit protects", variables.get("TILER_ROOT") == "/srv/pyramids"
              and "ReadOnlyPaths=/srv/pyramids" in unit, variables)
        root = os.path.join(folder, "pyramids")
        source = os.path.join(folder, "a.jpg")
        subprocess.run([TILER, "sample", source, "--size", "600x400", "--quiet"], check=True)
        subprocess.run([TILER, "slice", source, "-o", root, "--quiet"], check=True)
        variables["TILER_ROOT"] = root
        port = free_port()
        command = re.search(r"^ExecStart=(.*)$", unit, re.M).group(1)
        command = command.replace("%i", str(port))
        command = re.sub(r"\$\{(\w+)\}", lambda m: variables.get(m.group(1), ""), command)
        words = shlex.split(command)
        words[0] = TILER
        environment = {k: v for k, v in os.environ.items() if not k.startswith("TILER_")}
        environment.update(variables)
        server = subprocess.Popen(words, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment)
        banner = server.stdout.readline()
        check("the replica starts as the unit runs it", f":{port}/" in banner, (banner, server.poll(),
                                                                                 server.stderr.read() if server.poll() is not None else ""))
        status, _, _ = get(port, "/healthz")
        check("it answers /healthz", status == 200, status)
        status, _, body = get(port, "/api/images")
        check("it serves the folder TILER_ROOT names", status == 200 and [i["name"] for i in json.loads(body)] == ["a"], body[:200])
        # `systemctl reload` runs ExecReload with $MAINPID: the replica rescans (and rereads a TLS pair) and serves on.
        subprocess.run([TILER, "slice", source, "-o", root, "--name", "b", "--quiet"], check=True)
        reload = re.search(r"^ExecReload=(.*)$", unit, re.M).group(1).replace("$MAINPID", str(server.pid))
        subprocess.run(shlex.split(reload), check=True)
        deadline = time.time() + 10
        names = []
        while time.time() < deadline and names != ["a", "b"]:
            names = sorted(i["name"] for i in json.loads(get(port, "/api/images")[2]))
            time.sleep(0.05)
        check("ExecReload's SIGHUP rescans and the replica serves on", server.poll() is None and names == ["a", "b"], names)
    except Exception as error:  # a broken step is a failed check, reported like the others
        check("the scenario ran to the end", False, repr(error))
    finally:
        if server:
            server.terminate()
            server.wait(timeout=15)
        shutil.rmtree(folder, ignore_errors=True)
    return summary("systemd")


if __name__ == "__main__":
    sys.exit(main())
