#!/usr/bin/env python3
"""seekprobe against fio, ioping and dd on one device, in alternating rounds.

Run it through benches/compare.sh, which installs the peers, builds seekprobe, creates
the RAM-backed loop device and always detaches it. Standard library only.

Each round runs, group by group, seekprobe and its peers on the same pattern, one
after the other; odd rounds reverse the order inside each group, so slow drift of the
machine (another build starting, CPU frequency) hits both sides alike. A ratio is
computed per round from the adjacent runs, and the table shows the median of the
values and the median of the per-round ratios, with their range.
"""

import argparse
import atexit
import json
import os
import platform
import re
import signal
import statistics
import subprocess
import sys
import time

SEEK_LINES = ("full_stroke", "half_stroke", "quarter_stroke", "short_forward", "short_backward")
SEEK_OPS = 250 + 250 + 500 + 400 + 400  # the five seek lines of -t on any device
REPS = 3  # A/B alternations per round of the short patterns
# The rows of one request at a time or a few (QD 1 to 4): with --pin-cpu, every tool
# and the loop device's worker run on that one CPU (see `Placement`).
PINNED_ROWS = ("1a", "1b", "1c", "1d", "1e")
WQ_CPUMASK = "/sys/devices/virtual/workqueue/cpumask"
PREFIX = []  # put before every command run(): taskset while a row is pinned


def run(cmd, **kw):
    """Run cmd, return its CompletedProcess; raise with its stderr on failure.

    Every tool runs in a session of its own (setsid), because fio's job processes
    call setsid() themselves: with the kernel's autogroup scheduling on (the default
    of most distributions' kernels, /proc/sys/kernel/sched_autogroup_enabled), a new
    session is a new scheduling group with a share of the CPUs of its own, while a
    process left in the caller's session shares the caller's (docs/performance.md).
    """
    cmd = PREFIX + cmd
    p = subprocess.run(cmd, capture_output=True, text=True, start_new_session=True, **kw)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: exit {p.returncode}\n{p.stderr.strip()}")
    return p


class Placement:
    """Where the rows of one request at a time run: with a CPU, every tool under
    `taskset -c CPU` and the kernel's unbound workqueues (the loop driver's worker,
    which serves each read) restricted to that CPU, the saved mask restored after the
    row. Without it, the scheduler places both, and at tens of µs per read its choice
    dominates: a read whose worker runs on the other, idle CPU waits for that CPU to
    wake (in this VM, guest halt polling off: about 70 µs), one served on the tool's
    own CPU takes about 5 µs, and the share of each differs from one tool to another
    and from one run to the next (docs/performance.md, "Where the loop worker runs").
    """

    def __init__(self, cpu):
        self.cpu = cpu
        self.saved = None
        if cpu is not None:
            with open(WQ_CPUMASK) as f:
                self.saved = f.read().strip()

    def describe(self):
        if self.cpu is None:
            return "rows 1a-1e placed by the scheduler (no pinning)"
        return (f"rows 1a-1e with every tool and the unbound workqueues (the loop worker) "
                f"on CPU {self.cpu}")

    def pin(self, key):
        if self.cpu is None or key not in PINNED_ROWS:
            return
        with open(WQ_CPUMASK, "w") as f:
            f.write(format(1 << self.cpu, "x"))
        PREFIX[:] = ["taskset", "-c", str(self.cpu)]

    def unpin(self):
        if not PREFIX:
            return
        PREFIX.clear()
        if self.saved is not None:
            with open(WQ_CPUMASK, "w") as f:
                f.write(self.saved)


class Bench:
    def __init__(self, bin_, dev, tmp):
        self.bin = bin_
        self.dev = dev
        self.tmp = tmp

    # --- seekprobe --------------------------------------------------------------
    def seekprobe_json(self, *args):
        out = run([self.bin, *args, "--json", "--quiet", self.dev]).stdout
        disk = json.loads(out)["disks"][0]
        if disk.get("error"):
            raise RuntimeError(f"seekprobe {' '.join(args)}: {disk['error']}")
        return disk["info"], disk["tests"][0]["phases"]

    def sp_t(self):
        """One `-t --settle 0`: per-op ns of Seq outer and of the seek lines, and the
        outside rate in KiB/s (diskinfo's kbytes/sec)."""
        ph = {p["id"]: p for p in self.seekprobe_json("-t", "--settle", "0")[1]}
        seq = ph["seq_outer"]
        seek_ns = sum(ph[i]["elapsed_ns"] for i in SEEK_LINES)
        seek_ops = sum(len(ph[i]["latencies_ns"]) for i in SEEK_LINES)
        out = ph["outside"]
        kib = len(out["latencies_ns"]) * out["op_bytes"] / 1024
        return {
            "seq512_ns": seq["elapsed_ns"] / len(seq["latencies_ns"]),
            "rand512_ns": seek_ns / seek_ops,
            "seq1m_kibs": kib / (out["elapsed_ns"] / 1e9),
        }

    def sp_t_wall(self):
        """Wall time of a whole `-t --settle 0` with diskinfo's text, in seconds."""
        t0 = time.perf_counter()
        subprocess.run([self.bin, "-t", "--settle", "0", "--quiet", self.dev],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True,
                       start_new_session=True)
        return time.perf_counter() - t0

    def sp_scan(self):
        """--scan of the whole device in 1 MiB blocks: its read rate, MiB/s."""
        out = run([self.bin, "--scan", "--json", "--quiet", self.dev]).stdout
        scan = json.loads(out)["disks"][0]["tests"][0]["scan"]
        return scan["bytes_read"] / (1 << 20) / (scan["elapsed_ns"] / 1e9)

    def sp_scan_faulty(self, dev):
        """Row 5f: --scan of the faulty device (a block at 64 MiB slowed by 200 ms)
        with a CPU-bound loop running beside it: (whether exactly that block, and
        nothing else, is listed slow, its time in ms, the scan's MiB/s)."""
        busy = subprocess.Popen([sys.executable, "-c", "while True: pass"],
                                start_new_session=True)
        try:
            out = run([self.bin, "--scan", "--json", "--quiet", "--slow-ms", "190",
                       dev]).stdout
        finally:
            busy.kill()
            busy.wait()
        scan = json.loads(out)["disks"][0]["tests"][0]["scan"]
        slow = scan["slow"]
        mib = 2048  # sectors of 512 bytes in a MiB
        exact = [(s["first_sector"], s["sectors"]) for s in slow] == [(64 * mib, mib)]
        ms = max((s["max_ns"] for s in slow), default=0) / 1e6
        return exact, ms, scan["bytes_read"] / (1 << 20) / (scan["elapsed_ns"] / 1e9)

    def sp_i(self, *args, rss=False):
        """-i: {op_bytes: (ops, elapsed_ns, mean_ns)}, and the peak RSS in KiB."""
        cmd = [self.bin, "-i", *args, "--json", "--quiet", self.dev]
        tf = None
        if rss:
            tf = os.path.join(self.tmp, "time.txt")
            cmd = ["/usr/bin/time", "-v", "-o", tf, *cmd]
        out = run(cmd).stdout
        disk = json.loads(out)["disks"][0]
        if disk.get("error"):
            raise RuntimeError(f"seekprobe -i {' '.join(args)}: {disk['error']}")
        phases = disk["tests"][0]["phases"]
        lines = {}
        for p in phases:
            s = p.get("summary") or {}
            lines[p["op_bytes"]] = (s.get("count", 0), p["elapsed_ns"], s.get("mean_ns"))
        peak = None
        if tf:
            peak = max_rss_kib(tf)
            os.unlink(tf)
        return lines, peak

    def sp_i_qd1(self):
        return self.sp_i_low(1)

    def sp_i_low(self, qd):
        """-i --queue-depth QD: the 512-byte line's time per operation, ns."""
        lines, _ = self.sp_i("--queue-depth", str(qd), "--duration", "1")
        ops, ns, _ = lines[512]
        return ns / ops

    def sp_i_qd128(self):
        lines, peak = self.sp_i("--duration", "3", rss=True)
        ops, ns, _ = lines[4096]
        return ops / (ns / 1e9), peak

    def gib(self):
        with open(f"/sys/block/{os.path.basename(self.dev)}/size") as f:
            return int(f.read()) * 512 / (1 << 30)

    def wall(self, cmd):
        """Wall time of `cmd` per GiB of the device, in seconds."""
        t0 = time.perf_counter()
        # In the scratch directory: fio's verify leaves a state file where it runs.
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True,
                       cwd=self.tmp, start_new_session=True)
        return (time.perf_counter() - t0) / self.gib()

    def sp_verify(self):
        """One --verify pass (write all, flush, read and check all), 1 MiB blocks,
        4 deep: the whole run's wall time per GiB."""
        return self.wall([self.bin, "--verify", "-w", "--yes", "--quiet", self.dev])

    # --- peers ------------------------------------------------------------------
    def fio_verify(self):
        """fio's write-and-verify with a pattern, 1 MiB, io_uring, QD16: s/GiB."""
        return self.wall(["fio", "--name=verify", f"--filename={self.dev}", "--direct=1",
                          "--rw=write", "--verify=pattern", "--verify_pattern=0x5eec",
                          "--do_verify=1", "--bs=1M", "--ioengine=io_uring",
                          "--iodepth=16", "--verify_state_save=0"])

    def badblocks_w(self):
        """badblocks -w -t random (one random pattern written, read and compared),
        4 KiB blocks, 256 at a time (1 MiB): s/GiB."""
        return self.wall(["badblocks", "-w", "-t", "random", "-b", "4096", "-c", "256",
                          self.dev])

    def fio(self, *args, rss=False):
        cmd = ["fio", "--name=bench", f"--filename={self.dev}", "--direct=1",
               "--output-format=json", *args]
        tf = None
        if rss:
            tf = os.path.join(self.tmp, "time.txt")
            cmd = ["/usr/bin/time", "-v", "-o", tf, *cmd]
        out = run(cmd).stdout
        job = json.loads(out[out.index("{"):])["jobs"][0]
        if job.get("error"):
            raise RuntimeError(f"fio {' '.join(args)}: error {job['error']}")
        r = job["read"]
        if rss:
            r = dict(r, max_rss_kib=max_rss_kib(tf))
            os.unlink(tf)
        return r

    def fio_seq512(self):
        r = self.fio("--ioengine=psync", "--rw=read", "--bs=512", "--size=1M")
        assert r["total_ios"] == 2048, r["total_ios"]
        return r["lat_ns"]["mean"]

    def write_seek_iolog(self, info, phases):
        """The five seek lines of -t as a fio iolog (version 2: no timestamps, so
        fio replays it back to back), from the plan in docs/methods.md; checked
        against what seekprobe reported (counts and first offsets of each line)."""
        ss = info["sector_size_bytes"]
        n = info["media_size_bytes"] // ss
        q = n // 800
        step = min(1 << (q.bit_length() - 1), 16384)

        def pairs(a0, da, b0, db, count):
            return [s for i in range(count) for s in (a0 + da * i * step, b0 + db * i * step)]

        def line(start, d, count):
            return [start + d * i * step for i in range(count)]

        plan = {
            "full_stroke": pairs(0, 1, n - step, -1, 125),
            "half_stroke": pairs(n // 4, 1, n // 4 + n // 2, 1, 125),
            "quarter_stroke": pairs(n // 4, 1, n // 4 + n // 4, 1, 250),
            "short_forward": line(n // 2, 1, 400),
            "short_backward": line(n // 2, -1, 400),
        }
        by_id = {p["id"]: p for p in phases}
        for pid, sectors in plan.items():
            got = by_id[pid]
            if (got["ops_planned"], got["first_offset_bytes"]) != (len(sectors), sectors[0] * ss):
                raise RuntimeError(f"{pid}: the iolog's plan differs from seekprobe's")
        self.iolog = os.path.join(self.tmp, "seek.iolog")
        with open(self.iolog, "w") as f:
            f.write(f"fio version 2 iolog\n{self.dev} add\n{self.dev} open\n")
            for sectors in plan.values():
                for s in sectors:
                    f.write(f"{self.dev} read {s * ss} {ss}\n")
            f.write(f"{self.dev} close\n")

    def fio_seek_iolog(self):
        r = self.fio("--ioengine=psync", f"--read_iolog={self.iolog}")
        assert r["total_ios"] == SEEK_OPS, r["total_ios"]
        return r["lat_ns"]["mean"]

    def fio_rand512(self):
        r = self.fio("--ioengine=psync", "--rw=randread", "--bs=512",
                     f"--number_ios={SEEK_OPS}", "--randrepeat=0")
        assert r["total_ios"] == SEEK_OPS, r["total_ios"]
        return r["lat_ns"]["mean"]

    def fio_seq1m(self):
        r = self.fio("--ioengine=psync", "--rw=read", "--bs=1M", "--size=100M")
        assert r["total_ios"] == 100, r["total_ios"]
        # fio's bw comes from a runtime in whole ms (about 30 ms here): use its mean
        # per-I/O latency instead, which leaves out fio's own time between I/Os.
        return 1024 / (r["lat_ns"]["mean"] / 1e9)

    def fio_scan(self):
        """Queued sequential 1 MiB reads of the whole device, MiB/s."""
        r = self.fio("--ioengine=io_uring", "--iodepth=16", "--rw=read", "--bs=1M")
        return r["bw_bytes"] / (1 << 20)

    def fio_qd1(self):
        return self.fio_low(1)

    def fio_low(self, qd):
        """fio io_uring, random 512 B reads at depth QD for 1 s: ns per operation."""
        r = self.fio("--ioengine=io_uring", f"--iodepth={qd}", "--rw=randread", "--bs=512",
                     "--runtime=1", "--time_based", "--randrepeat=0")
        return 1e9 / r["iops"]

    def fio_qd128(self, engine, *extra):
        r = self.fio(f"--ioengine={engine}", "--iodepth=128", "--rw=randread", "--bs=4k",
                     "--runtime=3", "--time_based", "--randrepeat=0", *extra)
        return r["iops"]

    def fio_rss_1m(self):
        r = self.fio("--ioengine=io_uring", "--iodepth=128", "--rw=randread", "--bs=1M",
                     "--runtime=1", "--time_based", rss=True)
        return r["max_rss_kib"]

    def ioping(self, *args):
        out = run(["ioping", "-D", "-B", "-i", "0", *args, self.dev]).stdout.split()
        return float(out[5])  # average request time, ns (the first request is a warm-up)

    def ioping_seq512(self):
        return self.ioping("-L", "-s", "512", "-S", "1m", "-c", "2049")

    def ioping_rand512(self):
        return self.ioping("-s", "512", "-c", str(SEEK_OPS + 1))

    def dd_1m(self):
        err = run(["dd", f"if={self.dev}", "of=/dev/null", "bs=1M", "count=100",
                   "iflag=direct"]).stderr
        m = re.search(r"copied, ([0-9.]+) s", err)
        return 102400 / float(m.group(1))


def max_rss_kib(time_file):
    with open(time_file) as f:
        for line in f:
            if "Maximum resident set size" in line:
                return int(line.rsplit(":", 1)[1])
    raise RuntimeError(f"no max RSS in {time_file}")


# Rows: (key, what, unit, seekprobe measure, [(peer name, peer measure, target)],
# better, scale, reps). better: "lower" (times) or "higher" (rates); target: the ratio
# bound, or None for a reference peer; scale: to the printed unit; reps: A/B
# alternations per round (more for the patterns that take milliseconds).
def groups(b):
    sp_t = {}

    def t(key):
        def f():
            sp_t.update(b.sp_t())
            return sp_t[key]
        return f

    qd128 = {}

    def sp_qd128():
        iops, peak = b.sp_i_qd128()
        qd128.setdefault("rss", []).append(peak)
        return iops

    return [
        ("1a", "seq 512 B reads, QD1 (Seq outer, 2048 from 0)", "µs/op", t("seq512_ns"), [
            ("fio psync", b.fio_seq512, 1.02),
            ("ioping -D -L", b.ioping_seq512, None),
        ], "lower", 1e-3, REPS),
        ("1b", f"random 512 B reads, QD1 ({SEEK_OPS}: the five seek lines)", "µs/op",
         t("rand512_ns"), [
            ("fio psync, same offsets (iolog)", b.fio_seek_iolog, 1.02),
            ("fio psync randread", b.fio_rand512, None),
            ("ioping -D", b.ioping_rand512, None),
        ], "lower", 1e-3, REPS),
        ("1c", "random 512 B reads, QD1, queued engine (-i --queue-depth 1)", "µs/op",
         b.sp_i_qd1, [
            ("fio io_uring QD1", b.fio_qd1, 1.02),
        ], "lower", 1e-3, 1),
        ("1d", "random 512 B reads, QD2, queued engine (-i --queue-depth 2)", "µs/op",
         lambda: b.sp_i_low(2), [
            ("fio io_uring QD2", lambda: b.fio_low(2), 1.02),
        ], "lower", 1e-3, 1),
        ("1e", "random 512 B reads, QD4, queued engine (-i --queue-depth 4)", "µs/op",
         lambda: b.sp_i_low(4), [
            ("fio io_uring QD4", lambda: b.fio_low(4), 1.02),
        ], "lower", 1e-3, 1),
        ("2", "random 4 KiB reads, QD128 (-i, 4 kbytes line)", "IOPS", sp_qd128, [
            ("fio io_uring", lambda: b.fio_qd128("io_uring"), 1.0),
            ("fio libaio", lambda: b.fio_qd128("libaio"), None),
            # fio's best io_uring setup, as seekprobe's: registered buffers and file.
            ("fio io_uring --fixedbufs --registerfiles",
             lambda: b.fio_qd128("io_uring", "--fixedbufs", "--registerfiles"), None),
        ], "higher", 1.0, 1),
        ("3", "seq 1 MiB reads, 100 MiB (-t outside)", "MiB/s", t("seq1m_kibs"), [
            ("fio psync", b.fio_seq1m, 0.98),
            ("dd iflag=direct", b.dd_1m, None),
        ], "higher", 1 / 1024, REPS),
        ("5", "surface scan, 1 MiB blocks, whole device (--scan)", "MiB/s", b.sp_scan, [
            ("fio io_uring QD16 seq read", b.fio_scan, 0.95),
        ], "higher", 1.0, 1),
        ("6", "write and verify, 1 MiB, whole device (--verify -w, one pass)", "s/GiB",
         b.sp_verify, [
            ("fio write+verify pattern io_uring QD16", b.fio_verify, 1.0),
            ("badblocks -w -t random", b.badblocks_w, 1.0),
        ], "lower", 1.0, 1),
    ], qd128


def fmt(x):
    if x >= 100_000:
        return f"{x:,.0f}"
    if x >= 100:
        return f"{x:.0f}"
    if x >= 10:
        return f"{x:.1f}"
    return f"{x:.2f}"


def machine(args):
    cpu = "?"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    ver = lambda cmd: subprocess.run(cmd, capture_output=True, text=True).stdout.strip()
    rev = ver(["git", "-C", os.path.dirname(os.path.abspath(__file__)), "describe",
               "--always", "--dirty"]) or "?"
    return [
        f"machine: {os.cpu_count()} CPUs, {cpu}, Linux {platform.release()}",
        f"tools:   {ver([args.bin, '--version'])} (git {rev}), {ver(['fio', '--version'])}, "
        f"{ver(['ioping', '-v'])}, dd ({ver(['dd', '--version']).splitlines()[0]})",
        f"device:  {args.dev}, loop with direct I/O on {args.backing}",
        f"rounds:  {args.rounds} measured (+{args.warmup} discarded); rows 1a, 1b, 3: {REPS} "
        f"A/B pairs per round; the order flips at every pair",
        f"placement: {args.placement}",
    ]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", required=True)
    ap.add_argument("--dev", required=True)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--backing", default="?")
    ap.add_argument("--tmp", default="/tmp", help="a directory for the iolog and time files")
    ap.add_argument("--pin-cpu", type=int, default=None,
                    help="run rows 1a-1e with every tool and the loop worker on this CPU")
    ap.add_argument("--faulty-dev", default=None,
                    help="row 5f: a faultdisk loop device whose block at 64 MiB is 200 ms slow")
    ap.add_argument("--rows", default="",
                    help="comma-separated row keys to run (default: all), e.g. 1c,1d,1e,2")
    args = ap.parse_args()
    place = Placement(args.pin_cpu)
    atexit.register(place.unpin)  # also after an error or Ctrl-C in a pinned row
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # so that atexit runs
    args.placement = place.describe()
    b = Bench(args.bin, args.dev, args.tmp)
    b.write_seek_iolog(*b.seekprobe_json("-t", "--settle", "0"))
    rows, qd128 = groups(b)
    if args.rows:
        wanted = args.rows.split(",")
        rows = [r for r in rows if r[0] in wanted]

    faulty = args.faulty_dev if (not args.rows or "5f" in args.rows.split(",")) else None

    # values[(row key, name)] = [per round]; ratios[(row key, peer)] = [per round]
    values, ratios, walls, placed = {}, {}, [], []
    total = args.warmup + args.rounds
    for r in range(total):
        keep = r >= args.warmup
        t0 = time.perf_counter()
        for key, _, _, sp, peers, _, _, reps in rows:
            place.pin(key)
            for rep in range(reps):
                jobs = [("seekprobe", sp)] + [(n, f) for n, f, _ in peers]
                if (r + rep) % 2:
                    jobs.reverse()
                got = {n: f() for n, f in jobs}
                if keep:
                    for n, v in got.items():
                        values.setdefault((key, n), []).append(v)
                    for n, _, _ in peers:
                        ratios.setdefault((key, n), []).append(got["seekprobe"] / got[n])
            place.unpin()
        if faulty:
            got = b.sp_scan_faulty(faulty)
            if keep:
                placed.append(got)
        if not args.rows:
            w = b.sp_t_wall()
            if keep:
                walls.append(w)
        if not keep:
            qd128.clear()
        print(f"round {r + 1}/{total}{'' if keep else ' (warm-up, discarded)'}: "
              f"{time.perf_counter() - t0:.1f} s", file=sys.stderr, flush=True)
    fio_rss = None if args.rows else b.fio_rss_1m()
    os.unlink(b.iolog)

    med = statistics.median
    out = machine(args)
    out.append("")
    out.append("| # | pattern | unit | seekprobe | peer | peer value | seekprobe/peer "
               "(median, range) | target | verdict |")
    out.append("|---|---|---|---:|---|---:|---|---|---|")
    for key, what, unit, _, peers, better, scale, _ in rows:
        sp_v = med(values[(key, "seekprobe")]) * scale
        for i, (n, _, target) in enumerate(peers):
            rs = ratios[(key, n)]
            ratio = med(rs)
            peer_v = med(values[(key, n)]) * scale
            if target is None:
                tgt, verdict = "(reference)", ""
            elif better == "lower":
                tgt, verdict = f"≤ {target:.2f}×", "PASS" if ratio <= target else "MISS"
            else:
                tgt, verdict = f"≥ {target:.2f}×", "PASS" if ratio >= target else "MISS"
                if key == "2":
                    tgt += " (stretch 1.05×)"
                    if ratio >= 1.05:
                        verdict = "PASS (stretch too)"
            out.append(
                f"| {key if i == 0 else ''} | {what if i == 0 else ''} | {unit} | "
                f"{fmt(sp_v) if i == 0 else ''} | {n} | {fmt(peer_v)} | "
                f"{ratio:.3f} ({min(rs):.3f}–{max(rs):.3f}) | {tgt} | {verdict} |")
    if placed:
        n = sum(1 for p in placed if p[0])
        ms = [p[1] for p in placed if p[0]]
        mibs = med([p[2] for p in placed])
        times = f", {min(ms):.0f}–{max(ms):.0f} ms alone" if ms else ""
        out.append(
            f"| 5f | surface scan of a faulty device beside a busy loop: the block at 64 MiB "
            f"slowed by 200 ms (--scan --slow-ms 190) | placed exactly | {n}/{len(placed)} "
            f"| | | {mibs:.0f} MiB/s{times} | every round | "
            f"{'PASS' if n == len(placed) else 'MISS'} |")
    if args.rows:
        print("\n".join(out))
        return
    wall = med(walls)
    out.append(
        f"| 4 | whole `-t --settle 0`, wall time | s | {wall:.3f} | | | "
        f"(range {min(walls):.3f}–{max(walls):.3f}) | < 1 s | {'PASS' if wall < 1 else 'MISS'} |")
    rss = med(qd128["rss"]) / 1024
    out.append(
        f"| 4 | peak RSS of `-i` (up to 1024 KiB × QD128) | MiB | {rss:.1f} | "
        f"fio io_uring 1 MiB QD128 | {fio_rss / 1024:.1f} | {rss * 1024 / fio_rss:.3f} | "
        f"(reference) | |")
    print("\n".join(out))


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        sys.exit(130)
