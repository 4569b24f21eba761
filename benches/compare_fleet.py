"""Vary one saved `-t` run into N runs for benches/compare_fleet.sh.

Each run gets its own disk name, serial and seed; every latency of every line is
scaled by one factor drawn (seeded) between 0.97 and 1.03, the elapsed times and
summaries with them, so that the figures differ from disk to disk; every 50th run
is 25% slower (it must fail --qualify).

    python3 benches/compare_fleet.py ONE.json OUT_DIR N
"""
import copy
import json
import os
import random
import sys


def scale_phase(p, f):
    p["latencies_ns"] = [int(x * f) for x in p.get("latencies_ns", [])]
    p["elapsed_ns"] = sum(p["latencies_ns"]) if p["latencies_ns"] else int(p["elapsed_ns"] * f)
    s = p.get("summary")
    if s:
        for k in ("mean_ns", "stddev_ns"):
            s[k] = s[k] * f
        for k in ("min_ns", "p50_ns", "p90_ns", "p99_ns", "p999_ns", "max_ns"):
            s[k] = int(s[k] * f)


def main():
    src, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    base = json.load(open(src))
    os.makedirs(out, exist_ok=True)
    rng = random.Random(15)
    for i in range(n):
        run = copy.deepcopy(base)
        f = rng.uniform(0.97, 1.03) * (1.25 if i % 50 == 49 else 1.0)
        disk = run["disks"][0]
        disk["name"] = f"/dev/sd{i}"
        disk["info"]["name"] = disk["name"]
        disk["info"]["ident"] = f"SIM{i:06d}"
        for t in disk["tests"]:
            for p in t["phases"]:
                scale_phase(p, f)
        with open(os.path.join(out, f"host{i // 24:03d}-sd{i % 24:02d}.json"), "w") as fh:
            json.dump(run, fh)


if __name__ == "__main__":
    main()
