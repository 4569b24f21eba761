#!/usr/bin/env bash
# seekprobe side by side with fio, ioping and dd on a RAM-backed loop device.
#
#   sudo benches/compare.sh            # 7 alternating rounds (ROUNDS=N to change)
#
# On a fresh Debian/Ubuntu machine, as root: installs fio, ioping, time and python3
# when missing, builds seekprobe in release (plain `cargo build --release`), creates a
# file in /dev/shm, attaches it with `losetup --direct-io=on`, runs
# benches/compare.py (alternating rounds, medians, ratios, PASS/MISS), and detaches
# the loop device and removes the file on every exit: success, failure or Ctrl-C.
# docs/performance.md explains the method and holds the latest table.
#
# Environment: ROUNDS (default 7), SIZE_MIB (loop device size, default 1024),
# WARMUP (discarded rounds first, default 1), ROWS (comma-separated row keys to run,
# e.g. ROWS=1c,1d,1e,2; default: every row), PIN_CPU (the CPU that rows 1a-1e run
# on, every tool and the loop device's worker together, default 0; "none" leaves
# the placement to the scheduler: docs/performance.md says why it matters).
# Row 5f (the scan of a faulty test device: a block slowed by 200 ms, a busy loop
# beside seekprobe; is it named at its exact MiB?) also needs /dev/fuse and
# fusermount3 (fuse3): it mounts examples/faultdisk under a second loop device.
set -euo pipefail

ROUNDS=${ROUNDS:-7}
SIZE_MIB=${SIZE_MIB:-1024}
WARMUP=${WARMUP:-1}
ROWS=${ROWS:-}
PIN_CPU=${PIN_CPU:-0}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

if [ "$(uname -s)" != Linux ]; then
    echo "compare.sh: Linux only (loop devices, io_uring)" >&2
    exit 1
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "compare.sh: run as root (losetup, apt-get)" >&2
    exit 1
fi

# --- tools -----------------------------------------------------------------------
missing=()
command -v fio >/dev/null || missing+=(fio)
command -v ioping >/dev/null || missing+=(ioping)
[ -x /usr/bin/time ] || missing+=(time)
command -v python3 >/dev/null || missing+=(python3)
command -v badblocks >/dev/null || missing+=(e2fsprogs)
command -v losetup >/dev/null || missing+=(mount)
command -v taskset >/dev/null || missing+=(util-linux)
command -v fusermount3 >/dev/null || missing+=(fuse3)
if [ ${#missing[@]} -gt 0 ]; then
    echo "compare.sh: installing ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# --- seekprobe -------------------------------------------------------------------
echo "compare.sh: cargo build --release" >&2
cargo build --release --quiet
TARGET_DIR=$(cargo metadata --format-version 1 --no-deps |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
BIN="$TARGET_DIR/release/seekprobe"
[ -x "$BIN" ] || { echo "compare.sh: $BIN not built" >&2; exit 1; }
# Row 5f's faulty device: only when that row runs.
FAULTY=0
case ",${ROWS}," in ,, | *,5f,*) FAULTY=1 ;; esac
if [ "$FAULTY" = 1 ]; then
    cargo build --release --quiet --example faultdisk
    FAULTDISK="$TARGET_DIR/release/examples/faultdisk"
fi

# --- the RAM-backed loop device --------------------------------------------------
avail_mib=$(df -m --output=avail /dev/shm | tail -1 | tr -d ' ')
if [ "$avail_mib" -lt $((SIZE_MIB + 256)) ]; then
    echo "compare.sh: /dev/shm has ${avail_mib} MiB free, need ${SIZE_MIB} MiB + 256" >&2
    exit 1
fi
IMG=$(mktemp /dev/shm/seekprobe-bench.XXXXXX)
WORK=$(mktemp -d /tmp/seekprobe-bench.XXXXXX)  # compare.py's iolog and time files
WQ_MASK=/sys/devices/virtual/workqueue/cpumask
wq_saved=$(cat "$WQ_MASK" 2>/dev/null || true)

FAULT_MNT="$WORK/faulty"
FAULT_PID=

cleanup() {
    # Every loop device backed by our file, even one attached just before a signal
    # arrived and whose name we never saw.
    local dev
    for dev in $(losetup -n -O NAME -j "$IMG" 2>/dev/null) \
        $(losetup -n -O NAME -j "$FAULT_MNT/disk" 2>/dev/null); do
        losetup -d "$dev" || echo "compare.sh: could not detach $dev" >&2
    done
    if [ -n "$FAULT_PID" ]; then
        fusermount3 -u "$FAULT_MNT" 2>/dev/null || fusermount3 -uz "$FAULT_MNT" 2>/dev/null || true
        kill "$FAULT_PID" 2>/dev/null || true
        wait "$FAULT_PID" 2>/dev/null || true
    fi
    rm -f "$IMG"
    rm -rf "$WORK"
    # compare.py restores the workqueues' CPUs after each pinned row; again here
    # in case it was killed inside one.
    if [ -n "$wq_saved" ] && [ "$(cat "$WQ_MASK")" != "$wq_saved" ]; then
        echo "$wq_saved" >"$WQ_MASK" || echo "compare.sh: could not restore $WQ_MASK to $wq_saved" >&2
    fi
    if [ -n "$(losetup -n -O NAME -j "$IMG" 2>/dev/null)" ]; then
        echo "compare.sh: a loop device on $IMG is still attached" >&2
    fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Real pages (not a sparse file: reading a hole costs nothing).
dd if=/dev/zero of="$IMG" bs=1M count="$SIZE_MIB" status=none
LOOP=$(losetup -f --show --direct-io=on "$IMG")
dio=$(cat "/sys/block/${LOOP#/dev/}/loop/dio" 2>/dev/null || echo 0)
if [ "$dio" != 1 ]; then
    echo "compare.sh: $LOOP has no direct I/O (dio=$dio): figures would include the page cache" >&2
    exit 1
fi
echo "compare.sh: $LOOP on $IMG (${SIZE_MIB} MiB, direct I/O)" >&2

# Row 5f: a 256 MiB faulty device whose block at 64 MiB takes 200 ms more per read,
# under a loop device with direct I/O.
faulty=()
if [ "$FAULTY" = 1 ]; then
    mkdir -p "$FAULT_MNT"
    truncate -s 256M "$WORK/faulty.img"
    "$FAULTDISK" "$WORK/faulty.img" "$FAULT_MNT" "slow-reads=64M-65M,200" </dev/null >/dev/null &
    FAULT_PID=$!
    for _ in $(seq 100); do [ -f "$FAULT_MNT/disk" ] && break; sleep 0.1; done
    [ -f "$FAULT_MNT/disk" ] || { echo "compare.sh: faultdisk did not mount on $FAULT_MNT" >&2; exit 1; }
    FLOOP=$(losetup -f --show --direct-io=on "$FAULT_MNT/disk")
    echo "compare.sh: $FLOOP on faultdisk (256 MiB, 200 ms more per read of 64-65 MiB)" >&2
    faulty=(--faulty-dev "$FLOOP")
fi

pin=()
if [ "$PIN_CPU" != none ]; then
    if [ -z "$wq_saved" ]; then
        echo "compare.sh: $WQ_MASK is missing: cannot place the loop worker (PIN_CPU=none to run unpinned)" >&2
        exit 1
    fi
    pin=(--pin-cpu "$PIN_CPU")
fi
python3 "$ROOT/benches/compare.py" --bin "$BIN" --dev "$LOOP" \
    --rounds "$ROUNDS" --warmup "$WARMUP" --backing "$IMG (tmpfs, ${SIZE_MIB} MiB)" \
    --tmp "$WORK" --rows "$ROWS" "${pin[@]}" "${faulty[@]}"
