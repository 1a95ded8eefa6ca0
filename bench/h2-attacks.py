#!/usr/bin/env python3
"""The measuring side of bench/h2-attacks.sh (the script drives it); /usr/bin/python3 with Debian's python3-h2.

  h2-attacks.py run ATTACK --port P --pid PID --dzi FILE --cafile CERT --seconds S --out FILE.json
      one attack (bench/h2-attackers.py) against a running `tiler serve --tls-cert …` for S seconds while the served
      client (bench/h2-client.py) asks for random tiles over HTTP/2, each its own process; samples the server's RSS
      (and its VmHWM, reset when the attack starts) and CPU.
  h2-attacks.py report --budget-mb MB FILE.json…   the table, one row per attack, and the verdict.
"""
import argparse
import importlib
import json
import os
import statistics
import subprocess
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
client = importlib.import_module("h2-client")  # the served client's connection, for the health check
hostile, now = client.hostile, client.now
TITLES = {
    "none": "none (served client alone)", "rapid-reset": "1 Rapid Reset (CVE-2023-44487)",
    "continuation": "2 CONTINUATION flood (CVE-2024-27316 and kin)", "ping-flood": "3 PING flood, not reading",
    "settings-flood": "4 SETTINGS flood, not reading", "hpack-bomb": "5 HPACK bomb",
    "zero-window": "6 stream windows held at zero", "no-read": "7 a client that never reads",
}


def status_field(pid, field):
    try:
        with open(f"/proc/{pid}/status") as f:
            return next((int(line.split()[1]) / 1024 for line in f if line.startswith(field + ":")), None)
    except OSError:
        return None


def run_main(args):
    me, base, children = os.path.abspath(__file__), os.path.splitext(args.out)[0], []
    common = ["--port", str(args.port), "--dzi", args.dzi, "--seconds", str(args.seconds)]
    try:
        served = subprocess.Popen([sys.executable, os.path.join(os.path.dirname(me), "h2-client.py"), *common,
                                   "--cafile", args.cafile, "--out", base + ".served.json"],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        children.append(served)
        if served.stdout.readline().strip() != b"ready":
            raise SystemExit("the served client could not warm the server")
        before = hostile.sample(args.pid)
        try:  # VmHWM from here on: a peak between two samples is not missed
            with open(f"/proc/{args.pid}/clear_refs", "w") as f:
                f.write("5")
            hwm_reset = True
        except OSError:
            hwm_reset = False
        start = now() + 1.0  # the attacker's process has imported python-h2 by then
        if args.attack != "none":
            children.append(subprocess.Popen([sys.executable, os.path.join(os.path.dirname(me), "h2-attackers.py"),
                                              args.attack, *common, "--start", str(start), "--out",
                                              base + ".attack.json"] + (["--connections", str(args.connections)]
                                                                        if args.connections else [])))
        served.stdin.write(f"{start}\n".encode())
        served.stdin.flush()
        time.sleep(max(0.0, start - now()))
        first = last = hostile.sample(args.pid)
        t_first = t_last = now()
        peak, died, series = first[1] if first else 0, first is None, []
        while now() < start + args.seconds and not died:
            time.sleep(0.2)
            s = hostile.sample(args.pid)
            died = s is None
            if s:
                last, t_last, peak = s, now(), max(peak, s[1])
                series.append((round(t_last - start, 1), round(s[1])))
        cpu = 100.0 * (last[2] - first[2]) / hostile.CLK_TCK / (t_last - t_first) if t_last > t_first else None
        for child in children:
            child.wait(timeout=args.seconds + 30)
        hwm = status_field(args.pid, "VmHWM") if hwm_reset else None
        time.sleep(args.settle)
        after = hostile.sample(args.pid)
        health = "-"
        try:
            probe = client.Client(args.port, args.cafile, 5)
            t0 = now()
            results, why = probe.get(["/api/images", hostile.Pyramid(args.dzi).tiles[0]], t0 + 5)
            health = why or (f"a new connection: /api/images {results[0][0]}, a tile {results[1][0]} in "
                             f"{(now() - t0) * 1000:.0f} ms")
            probe.close()
        except (OSError, ConnectionError) as e:
            health = client.describe(e)
    finally:
        for child in children:
            if child.poll() is None:
                child.kill()
    with open(base + ".served.json") as f:
        s = json.load(f)
    attack = {}
    if args.attack != "none":
        with open(base + ".attack.json") as f:
            attack = json.load(f)
    ok = s["keep"]["ok"] + s["fresh"]["ok"]
    failures = {f"kept-alive: {k}": v for k, v in s["keep"]["failed"].items()}
    failures.update({f"new connection: {k}": v for k, v in s["fresh"]["failed"].items()})
    result = {
        "attack": args.attack, "title": TITLES[args.attack], "seconds": args.seconds, "settle": args.settle,
        "before": before and before[1], "after": after and after[1], "peak_rss": max(peak, hwm or 0),
        "sampled_peak": peak, "hwm": hwm, "cpu_percent": cpu, "server_died": died or after is None,
        "ok": len(ok), "failed": sum(failures.values()), "failures": failures,
        "p50": hostile.percentile(ok, 0.5), "p99": hostile.percentile(ok, 0.99), "max": max(ok, default=None),
        "keep_p99": hostile.percentile(s["keep"]["ok"], 0.99), "fresh_p99": hostile.percentile(s["fresh"]["ok"], 0.99),
        "served_cpu": s["cpu_percent"], "attack_result": attack, "health": health, "rss_series": series,
    }
    with open(args.out, "w") as f:
        json.dump(result, f)
    print(f"  {args.attack}: {result['ok']} ok, {result['failed']} failed, p99 {fmt_ms(result['p99'])} ms, "
          f"RSS peak {result['peak_rss']:.0f} MB", file=sys.stderr)


def fmt_ms(v):
    return "-" if v is None else (f"{v:.1f}" if v < 100 else f"{v:.0f}")


def attack_column(a):
    if not a:
        return "n/a"
    by_server = [c for c in a["connections"] if not c[1].startswith("client:")]
    text = f"{len(by_server):,} closed by the server of {len(a['connections']) + len(a['open_ages']):,} made"
    if by_server:
        text += f" (median {statistics.median(c[0] for c in by_server):.2f} s open)"
    if a["open_ages"]:
        text += f"; {len(a['open_ages'])} open at the end"
    for how, times in sorted(a["holds"].items()):
        text += (f"; {len(times):,} streams {how} (median age {statistics.median(times):.1f} s)" if how.startswith("still")
                 else f"; {len(times):,} streams {how} after a median {statistics.median(times):.1f} s")
    return text


CONTAINED = ("the server let go of what the attack held: a flood's or a bomb's connections within 2 s, streams "
             "whose window is held at zero and a client that does not read within the send timeout (10 s) and 2 s "
             "more, none given up by the attacker first.")


def contained(r):
    a = r["attack_result"]
    if not a:
        return "n/a"
    limit = 12 if r["attack"] in ("zero-window", "no-read") else 2
    ages = a["open_ages"] + [c[0] for c in a["connections"]]
    # a window held at zero costs the server a stream, not the connection: the stream is what it should let go of
    held = 0 if r["attack"] == "zero-window" else sum(1 for t in ages if t > limit)
    streams = sum(1 for t in a["holds"].get("still held at the end", []) if t > limit)
    gave_up = sum(1 for c in a["connections"] if c[1].startswith("client:"))
    why = []
    if held:
        why.append(f"{held} connections held past {limit} s")
        if r["attack"] == "no-read":  # what each costs: its unread answers, in the server's memory
            grew = r["peak_rss"] - (r["before"] or 0)
            why[-1] += f" (RSS +{grew:.0f} MB, ≈{grew / len(ages):.1f} MB a connection)"
    if streams:
        why.append(f"{streams} streams held past {limit} s")
    if gave_up:
        why.append(f"{gave_up} given up by the attacker")
    return "no: " + ", ".join(why) if why else "yes"


def report_main(args):
    rows = []
    for path in args.files:
        with open(path) as f:
            rows.append(json.load(f))
    print("| attack | RSS MB before → peak → after | server CPU % | served client ok / failed | p50 ms | p99 ms "
          "| the attack's connections | contained | goal |")
    print("|---|---|---:|---:|---:|---:|---|---|---|")
    verdicts = []
    for r in rows:
        a = r["attack_result"]
        title = r["title"] + (f", {a['parallel']} connections" if a else "")
        rss = f"{r['before'] or 0:.0f} → {r['peak_rss']:.0f} → " + (f"{r['after']:.0f}" if r["after"] else "gone")
        reasons = []
        if r["server_died"]:
            reasons.append("server died")
        if r["failed"]:
            reasons.append(f"{r['failed']} failed")
        if r["p99"] is None or r["p99"] >= 50:
            reasons.append("p99 ≥ 50 ms")
        if r["peak_rss"] >= args.budget_mb:
            reasons.append(f"RSS ≥ {args.budget_mb} MB")
        verdicts.append(not reasons)
        cpu = "-" if r["cpu_percent"] is None else f"{r['cpu_percent']:.0f}"
        print(f"| {title} | {rss} | {cpu} | {r['ok']:,} / {r['failed']:,} | {fmt_ms(r['p50'])} | {fmt_ms(r['p99'])} "
              f"| {attack_column(a)} | {contained(r)} | {'PASS' if not reasons else 'FAIL: ' + ', '.join(reasons)} |")
    print()
    print(f"Goal (issue #49): under each attack the served client's p99 stays under 50 ms (and its requests all "
          f"succeed), and the server's memory within its budget ({args.budget_mb} MB here: {args.budget_note}). "
          f"{sum(verdicts)} of {len(verdicts)} rows pass. Contained: {CONTAINED}")
    print()
    print("Notes:")
    for r in rows:
        a, parts = r["attack_result"], []
        if r["failures"]:
            parts.append("served client's failures: " + ", ".join(f"{k} ×{v}" for k, v in sorted(r["failures"].items())))
        parts.append(f"p99 kept-alive {fmt_ms(r['keep_p99'])} ms, new connections (TLS handshake included) "
                     f"{fmt_ms(r['fresh_p99'])} ms, max {fmt_ms(r['max'])} ms")
        if r["hwm"] is None:
            parts.append("peak RSS sampled every 0.2 s (VmHWM could not be reset)")
        if a:
            parts.append("sent: " + (", ".join(f"{k} {v:,}" for k, v in sorted(a["counts"].items())) or "nothing"))
            hows = {}
            for _, how in a["connections"]:
                hows[how] = hows.get(how, 0) + 1
            if hows:
                parts.append("ends: " + ", ".join(f"{k} ×{v:,}" for k, v in sorted(hows.items(), key=lambda x: -x[1])))
            if a["open_errors"]:
                parts.append("connects failed: " + ", ".join(f"{k} ×{v}" for k, v in sorted(a["open_errors"].items())))
            parts.append(f"attacker CPU {a['cpu_percent']:.0f}%")
        parts.append(f"served client CPU {r['served_cpu']:.0f}%")
        parts.append(f"{r['settle']:.0f} s after: {r['health']}")
        print(f"- {r['title']}: " + "; ".join(parts) + ".")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run")
    run.add_argument("attack", choices=list(TITLES))
    run.add_argument("--port", type=int, required=True)
    run.add_argument("--dzi", required=True)
    run.add_argument("--cafile", required=True)
    run.add_argument("--seconds", type=float, default=15)
    run.add_argument("--out", required=True)
    run.add_argument("--pid", type=int, required=True)
    run.add_argument("--connections", type=int, help="the attack's connections at once (default: per attack)")
    run.add_argument("--settle", type=float, default=3.0, help="seconds after the attack before the 'after' sample")
    rep = sub.add_parser("report")
    rep.add_argument("--budget-mb", type=int, required=True)
    rep.add_argument("--budget-note", default="")
    rep.add_argument("files", nargs="+")
    args = ap.parse_args()
    {"run": run_main, "report": report_main}[args.command](args)


if __name__ == "__main__":
    main()
