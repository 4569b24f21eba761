#!/usr/bin/env python3
"""CPU time per read of seekprobe's queued engine beside fio's io_uring engine, at low
queue depths, on a device (a RAM-backed loop device with direct I/O): the figure that
does not depend on what else the machine runs (wall time per read does, by far).

    benches/cpu_per_op.py --dev /dev/loopN --bin target/release/examples/queued_iops \
        [--bin-label NAME --bin OTHER ...] [--rounds 5] [--depths 1,2,4]

Each tool runs 1 s of random 512 B reads at each depth under `perf stat -e task-clock`
(the process's CPU time, user and kernel, all threads); a run of one read (seekprobe:
duration 0; fio: --number_ios=1) measured the same way is subtracted as the start-up
cost, and the rest is divided by the reads done. `strace -f -c` of a separate 1 s run
counts io_uring_enter calls per read. Tools alternate in every round; medians and
ranges are printed. The loop driver's worker thread, which does the copy, is not in
either figure: it is the same device work for both.
"""
import argparse, json, re, statistics, subprocess, sys


def perf_ms(cmd):
    p = subprocess.run(["perf", "stat", "-x,", "-e", "task-clock", *cmd],
                       capture_output=True, text=True, check=True)
    for line in p.stderr.splitlines():
        if "task-clock" in line:
            return float(line.split(",")[0]), p.stdout
    raise RuntimeError(p.stderr)


def sp_cmd(b, dev, qd, secs):
    return [b, dev, "uring", "512", str(qd), str(secs)]


def sp_ops(out):
    return int(re.search(r"completed=(\d+)", out).group(1))


def fio_cmd(dev, qd, secs):
    base = ["fio", "--name=x", f"--filename={dev}", "--ioengine=io_uring", f"--iodepth={qd}",
            "--rw=randread", "--bs=512", "--direct=1", "--randrepeat=0", "--output-format=json"]
    if secs:
        return base + [f"--runtime={secs}", "--time_based"]
    return base + ["--number_ios=1"]


def fio_ops(out):
    return json.loads(out[out.index("{"):])["jobs"][0]["read"]["total_ios"]


def enters_per_op(cmd, ops_of):
    p = subprocess.run(["strace", "-f", "-c", "-e", "trace=io_uring_enter", "-o", "/dev/stderr",
                        *cmd], capture_output=True, text=True, check=True)
    for line in p.stderr.splitlines():
        f = line.split()
        if f and f[-1] == "io_uring_enter":
            return int(f[3]) / ops_of(p.stdout)  # % time, seconds, usecs/call, calls
    raise RuntimeError(p.stderr)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dev", required=True)
    ap.add_argument("--bin", action="append", required=True)
    ap.add_argument("--bin-label", action="append", default=[])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--depths", default="1,2,4")
    a = ap.parse_args()
    labels = a.bin_label + [f"seekprobe#{i}" for i in range(len(a.bin_label), len(a.bin))]
    tools = [(lab, lambda qd, s, b=b: sp_cmd(b, a.dev, qd, s), sp_ops)
             for lab, b in zip(labels, a.bin)]
    tools.append(("fio io_uring", lambda qd, s: fio_cmd(a.dev, qd, s), fio_ops))
    depths = [int(x) for x in a.depths.split(",")]
    base = {}
    for name, cmd, _ in tools:
        base[name] = statistics.median(perf_ms(cmd(1, 0))[0] for _ in range(3))
    cpu = {}
    wall = {}
    for r in range(a.rounds):
        order = tools if r % 2 == 0 else tools[::-1]
        for qd in depths:
            for name, cmd, ops_of in order:
                ms, out = perf_ms(cmd(qd, 1))
                ops = ops_of(out)
                cpu.setdefault((name, qd), []).append((ms - base[name]) * 1e3 / ops)
                wall.setdefault((name, qd), []).append(1e6 / ops)
        print(f"round {r + 1}/{a.rounds}", file=sys.stderr, flush=True)
    enters = {(name, qd): enters_per_op(cmd(qd, 1), ops_of)
              for name, cmd, ops_of in tools for qd in depths}
    med = statistics.median
    print("start-up CPU subtracted (ms): " + ", ".join(f"{n} {v:.1f}" for n, v in base.items()))
    print()
    print("| depth | tool | CPU µs/read (median, range) | wall µs/read (median, range) "
          "| io_uring_enter/read |")
    print("|---:|---|---|---|---:|")
    for qd in depths:
        for name, _, _ in tools:
            c, w = cpu[(name, qd)], wall[(name, qd)]
            print(f"| {qd} | {name} | {med(c):.2f} ({min(c):.2f}–{max(c):.2f}) | "
                  f"{med(w):.1f} ({min(w):.1f}–{max(w):.1f}) | {enters[(name, qd)]:.2f} |")


if __name__ == "__main__":
    main()
