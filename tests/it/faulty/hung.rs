//! Requests that never answer: given up after --io-timeout in every test, with
//! Ctrl-C, SIGTERM, and the healthy drive beside them going on.

use super::*;
use crate::helpers::scratch_dir;
use crate::helpers::seekprobe_command;

/// The seconds in a watchdog's "no answer for X s at byte N": the time the
/// request really waited (at least --io-timeout, by up to a poll).
fn no_answer_for(reason: &str) -> f64 {
    let rest = reason
        .strip_prefix("no answer for ")
        .unwrap_or_else(|| panic!("{reason}"));
    let (secs, at) = rest.split_once(" s at byte ").unwrap();
    assert!(at.parse::<u64>().is_ok(), "{reason}");
    secs.parse().unwrap()
}

/// Poll `path` until `ready` holds for its JSON, for at most `limit`.
fn wait_json(
    path: &std::path::Path,
    limit: Duration,
    ready: impl Fn(&serde_json::Value) -> bool,
) -> Option<serde_json::Value> {
    let until = Instant::now() + limit;
    while Instant::now() < until {
        if let Some(v) = std::fs::read(path)
            .ok()
            .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
            && ready(&v)
        {
            return Some(v);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    None
}

/// The request the hung-request test's drive was given up at (`v`: its saved run;
/// requests touching 32-33 MiB never answer), checked against what can be that old.
///
/// The request given up is the oldest one unanswered, handed out no later than
/// the hung write at 32 MiB: that write never answers, so every later request is
/// younger. The loop device serves a FUSE file's requests one at a time (fuser
/// asks for no FUSE_ASYNC_DIO, so each waits for its answer), and a pool thread
/// handed a request before the hung write can reach the kernel after it (on a
/// busy CPU): then that request waits behind it, and is the oldest. Two kinds
/// can be: a write in flight with the hung one (VERIFY_DEPTH slots, so at most
/// three blocks before it), or the write half's read-back of a block's first
/// sector (engine/verify/sample.rs: on this 64-block range every block is
/// sampled, once the writes up to the block after it are done). 28 MiB, seen
/// beside a busy CPU, was such a read-back, with the writes done up to 32 MiB
/// (docs/testing.md).
fn given_up_at_the_hung_write_or_before_it(v: &serde_json::Value) {
    let u = &v["disks"][0]["tests"][0]["verify"]["unanswered"];
    let at = u["at_bytes"].as_u64().unwrap();
    // The writes' done prefix tells the two apart: a write is given up at it, a
    // read-back two blocks or more below it. The prefix is the leading blocks the
    // write half counted (a region is a block on this 64-block range).
    let regions = v["disks"][0]["tests"][0]["verify"]["passes"][0]["write"]["region_bytes"]
        .as_array()
        .unwrap();
    assert_eq!(regions.len(), 64, "a region a block");
    let prefix = (regions
        .iter()
        .take_while(|b| b.as_u64() == Some(1 << 20))
        .count() as u64)
        << 20;
    eprintln!("given up at {at}, written up to {prefix}");
    assert!(prefix <= 32 << 20, "written up to {prefix}: {u}");
    assert_eq!(at % (1 << 20), 0, "{u}");
    if at == prefix {
        let in_flight = u64::from(seekprobe::test_plans::VERIFY_DEPTH.get() - 1) << 20;
        assert!(
            ((32 << 20) - in_flight..=32 << 20).contains(&at),
            "a write: {u}"
        );
    } else {
        assert!(
            at + (2 << 20) <= prefix,
            "a read-back, written up to {prefix}: {u}"
        );
    }
}

fuse_tests! {
    fn a_hung_request_is_given_up_after_io_timeout_and_the_healthy_drive_beside_it_completes() {
        // Requests touching 32-33 MiB never answer.
        let d = FaultDisk::new(64 << 20, &["hang=32M-33M"]);
        // The healthy drive answers the reads of its sector at 40 MiB after 1.5 s.
        // Each pass reads it at least once (twice as verify reads now), so its 4
        // passes take at least 6 s however fast the machine: its test outlasts the
        // hung drive's 5 s watchdog. (A plain loop device's 50 passes once took 4.8 s
        // on an idle machine and ended before the watchdog fired.)
        let good = FaultDisk::new(64 << 20, &["slow-reads=81920s-81921s,1500"]);
        let t0 = Instant::now();
        let args = [
            "--verify",
            "-w",
            "--yes",
            "-q",
            "--parallel",
            "--io-timeout",
            "5",
            "--passes",
            "4",
            // Its 1.5 s reads are not listed as slow blocks, nor read again to place them.
            "--slow-ms",
            "4000",
        ];
        let mut run = Spawned::saving(&args, &[&d.dev, &good.dev], &[]);
        let done = |v: &serde_json::Value| {
            v["disks"].as_array().is_some_and(|d| {
                d.len() == 2
                    && d.iter().all(|d| {
                        d["tests"][0]["outcome"].is_string() || d["tests"][0]["outcome"].is_object()
                    })
            })
        };
        // Both tests saved (the hung one given up) while the hung request still hangs.
        let v = run.wait_until("both drives' tests saved", |r| r.json().filter(done));
        // Free the hung request, so that seekprobe can end.
        d.abort();
        let (_, text, _) = run.finish();
        eprintln!("saved after {:?}", t0.elapsed());
        let hung = &v["disks"][0]["tests"][0];
        let u = &hung["verify"]["unanswered"];
        let waited = no_answer_for(u["reason"].as_str().unwrap());
        assert!((5.0..5.0 + 1.0).contains(&waited), "{u}");
        given_up_at_the_hung_write_or_before_it(&v);
        assert_eq!(
            v["disks"][1]["tests"][0]["outcome"], "complete",
            "{}",
            v["disks"][1]
        );
        assert_eq!(
            v["disks"][1]["tests"][0]["verify"]["passes"][0]["read"]["bytes"],
            64 << 20
        );
        // The requests left behind are the hung drive's own: the healthy drive, whose
        // test spans the watchdog's firing, has no request_abandoned warning.
        let healthy_ns: u64 = v["disks"][1]["tests"][0]["verify"]["passes"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|p| [&p["write"]["elapsed_ns"], &p["read"]["elapsed_ns"]])
            .map(|ns| ns.as_u64().unwrap())
            .sum();
        assert!(
            healthy_ns > u["after_ns"].as_u64().unwrap(),
            "{healthy_ns} {u}"
        );
        let codes = |d: &serde_json::Value| -> Vec<String> {
            d["warnings"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|w| w["code"].as_str().unwrap().to_string())
                .collect()
        };
        assert!(
            codes(&v["disks"][0]).contains(&"request_abandoned".to_string()),
            "{}",
            v["disks"][0]
        );
        assert!(
            !codes(&v["disks"][1]).contains(&"request_abandoned".to_string()),
            "{}",
            v["disks"][1]
        );
        assert!(text.contains("pass 1: 0 failed sectors"), "{text}");
    }

    fn ctrl_c_during_a_hung_request_prints_and_saves_within_2_s() {
        let d = FaultDisk::new(64 << 20, &["hang=40M-41M"]);
        let mut run = Spawned::saving(&["--verify", "-w", "--yes", "-q"], &[&d.dev], &[]);
        d.wait_counter(&mut run, "hung", 1);
        let t0 = Instant::now();
        run.signal(nix::sys::signal::Signal::SIGINT);
        // The promise under test: saved within 2 s of Ctrl-C.
        let v = wait_json(&run.json_file, Duration::from_secs(2), |v| {
            v["disks"][0]["tests"][0]["outcome"] == "interrupted"
        });
        let took = t0.elapsed();
        d.abort();
        let (_, text, _) = run.finish();
        assert!(v.is_some(), "not saved within 2 s ({took:?}): {text}");
        assert!(text.contains("Write and verify"), "{text}");
    }

    fn a_scan_gives_a_hung_request_up_after_io_timeout() {
        let d = FaultDisk::new(32 << 20, &["hang=20M-21M"]);
        let timeout = HUNG_IO_TIMEOUT_S.to_string();
        let mut run = Spawned::saving(&["--scan", "-q", "--io-timeout", &timeout], &[&d.dev], &[]);
        let v = run.wait_until("the scan to give the hung request up", |r| {
            r.json()
                .filter(|v| v["disks"][0]["tests"][0]["scan"]["unanswered"].is_object())
        });
        d.abort();
        run.finish();
        let scan = &v["disks"][0]["tests"][0]["scan"];
        let u = &scan["unanswered"];
        let waited = no_answer_for(u["reason"].as_str().unwrap());
        assert!(waited_the_hung_limit(waited), "{u}");
        // A block at or just before 20 MiB: a loop device reports no rotation, so the
        // scan keeps 8 blocks of 1 MiB in flight, and the loop device reads its backing
        // file through the page cache, whose readahead from a block just before the
        // hanging area can enter it; the oldest request left unanswered is the one named.
        let at = u["at_bytes"].as_u64().unwrap();
        assert!(((20 - 8) << 20..=20 << 20).contains(&at), "{u}");
        assert!(scan["end_bytes"].as_u64().unwrap() <= 20 << 20, "{scan}");
    }

    /// A drive whose every read takes 20 s (a dying drive retrying each read), burnt
    /// in beside a healthy one with --io-timeout 5: the slow drive is given up while
    /// its signatures are looked for (named: the wait and the byte), never written,
    /// its burn-in block ends FAIL; the healthy drive PASSes; exit 3, within 90 s.
    fn a_drive_whose_reads_take_20_s_is_given_up_at_its_signatures_and_the_healthy_one_passes() {
        let d = FaultDisk::new(64 << 20, &[]);
        // Slow from now on (not while the kernel and udev look at the new device).
        d.control("add slow-reads=0-64M,20000");
        let good = FaultDisk::new(64 << 20, &[]);
        let bin = scratch_dir();
        let path = stand_in_smartctl(bin.path(), NO_SMART);
        let t0 = Instant::now();
        let out = seekprobe_command()
            .env("PATH", path)
            .args(["--burn-in", "-w", "--yes", "--qualify", "--parallel"])
            .args(["--io-timeout", "5", &d.dev, &good.dev])
            .output()
            .unwrap();
        let took = t0.elapsed();
        let writes = d.stats().get("writes");
        d.abort();
        let text = String::from_utf8_lossy(&out.stdout);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(3), "{text}{err}");
        assert!(took < Duration::from_secs(90), "{took:?}");
        let block = |dev: &str| {
            let start = text
                .find(&format!("Burn-in of {dev}:"))
                .unwrap_or_else(|| panic!("no burn-in block of {dev}: {text}{err}"));
            let rest = &text[start..];
            let end = rest.find("\n\n").unwrap_or(rest.len());
            rest[..end].to_string()
        };
        let slow = block(&d.dev);
        assert!(slow.contains("\n  verdict: FAIL"), "{slow}");
        assert!(block(&good.dev).contains("\n  verdict: PASS"), "{text}");
        // Named: "no answer for 5.x s at byte B while looking for signatures".
        let all = format!("{text}{err}");
        let at = all
            .find("no answer for ")
            .unwrap_or_else(|| panic!("{all}"));
        let line = all[at..].lines().next().unwrap();
        assert!(line.contains("while looking for signatures"), "{line}");
        let reason = &line[..line.find(" while").unwrap()];
        assert!((5.0..6.0).contains(&no_answer_for(reason)), "{line}");
        // Not written.
        assert_eq!(writes, 0);
    }
}

/// `-t --io-timeout 5` is accepted: every test's requests are watched.
#[test]
fn io_timeout_applies_to_every_test() {
    let (code, out, err) = run(&["-t", "--io-timeout", "5", "sim:ssd"]);
    assert_eq!(code, 0, "{out}{err}");
}

/// What smartctl says of a loop device: no device type, so no SMART.
const NO_SMART: &str = r#"echo '{"smartctl":{"version":[7,3],"exit_status":1,"messages":[{"string":"Unable to detect device type","severity":"error"}]}}'
exit 1"#;

fuse_tests! {
    /// Ctrl-C and SIGTERM while a drive leaves a read unanswered (the -t test's
    /// middle transfer reads 32 MiB, which hangs): the results are saved within 2 s,
    /// the test marked interrupted, and the exit status is 130 after Ctrl-C, 143
    /// after SIGTERM, once the kernel gives the hung read back.
    fn a_signal_while_a_drive_hangs_saves_the_results_within_2_s() {
        let d = FaultDisk::new(64 << 20, &[]);
        d.control("add hang=32M-33M");
        use nix::sys::signal::Signal;
        for (sig, status) in [(Signal::SIGINT, 130), (Signal::SIGTERM, 143)] {
            let mut run = Spawned::saving(&["-t", "-q"], &[&d.dev], &[]);
            d.wait_counter(&mut run, "hung", 1);
            let t0 = Instant::now();
            run.signal(sig);
            let interrupted =
                |v: &serde_json::Value| v["disks"][0]["tests"][0]["outcome"] == "interrupted";
            let v = run.wait_until("the test saved interrupted", |r| {
                r.json().filter(interrupted)
            });
            let took = t0.elapsed();
            // Answer the hung read (EIO), so that the process can end.
            d.control("release");
            let (code, _, err) = run.finish();
            assert!(interrupted(&v), "{sig}: {err}");
            assert!(took < Duration::from_secs(2), "{sig}: saved after {took:?}");
            assert_eq!(code, Some(status), "{sig}: {err}");
            assert!(err.contains("went unanswered"), "{sig}: {err}");
        }
    }

    /// The requests of the synchronous tests are watched: the -t test's middle
    /// transfer (one request at a time) gives the drive up after --io-timeout at the
    /// hung read, naming it; exit 1. (The queued -i test is watched by the same loop
    /// as --scan and --verify, but io_uring's submission itself can be held by the
    /// kernel once the device's queue is full behind a hung request: docs/testing.md.)
    fn a_sync_test_gives_a_hung_read_up_after_io_timeout() {
        let d = FaultDisk::new(64 << 20, &[]);
        d.control("add hang=32M-33M");
        let g = given_up(&d, &["-t"]);
        assert!((32 << 20..33 << 20).contains(&g.byte), "{}", g.outcome);
    }
}

/// What [`given_up`] found: the failed test's outcome, the byte it names, and the
/// faulty device's hung requests when it was saved (before they are released).
struct GivenUp {
    outcome: String,
    byte: u64,
    hung: u64,
}

/// Run `args` with `--io-timeout` [`HUNG_IO_TIMEOUT_S`] on `d` (which hangs) until
/// its first test is saved failed, release the hung requests, and assert what every
/// such run must show: "no answer for" that limit to a second more, saved within
/// 30 s, exit 1.
fn given_up(d: &FaultDisk, args: &[&str]) -> GivenUp {
    let started = Instant::now();
    let timeout = HUNG_IO_TIMEOUT_S.to_string();
    let all = [args, &["-q", "--io-timeout", &timeout]].concat();
    let mut run = Spawned::saving(&all, &[&d.dev], &[]);
    let failed = |v: &serde_json::Value| v["disks"][0]["tests"][0]["outcome"].is_object();
    let v = run.wait_until("the first test saved failed", |r| r.json().filter(failed));
    let took = started.elapsed();
    let hung = d.stats().json["hung"].as_u64().unwrap();
    d.control("release");
    let (code, _, err) = run.finish();
    let outcome = v["disks"][0]["tests"][0]["outcome"].to_string();
    let at = outcome
        .find("no answer for ")
        .unwrap_or_else(|| panic!("{args:?}: {outcome}"));
    let reason = outcome[at..].trim_end_matches(['"', '}']);
    let waited = no_answer_for(reason);
    assert!(waited_the_hung_limit(waited), "{args:?}: {outcome}");
    assert!(
        took < Duration::from_secs(30),
        "{args:?}: {took:?}: {outcome}"
    );
    assert_eq!(code, Some(1), "{args:?}: {err}");
    let byte = reason.rsplit(' ').next().unwrap().parse().unwrap();
    GivenUp {
        outcome,
        byte,
        hung,
    }
}

fuse_tests! {
    /// -S's writes above 128 KiB are issued in diskinfo's pieces, several at once, and
    /// are watched as one request: a drive that stops answering in the middle of the
    /// 256 KiB writes (after the 250 writes of each size from 512 B to 128 KiB) is
    /// given up after --io-timeout at that write, named; exit 1. Before the pieces went
    /// through the watchdog they were written outside it, and the run waited for the
    /// kernel.
    fn a_hung_split_write_of_the_sync_write_test_is_given_up_after_io_timeout() {
        const SPLIT: u64 = 256 << 10;
        let d = FaultDisk::new(64 << 20, &[]);
        let st = d.stats();
        let before = st.json["read_bytes"].as_u64().unwrap() + st.json["write_bytes"].as_u64().unwrap();
        // One batch of 250 writes of each size from 512 B to 128 KiB moves
        // 250 x 512 x 511 bytes; the hang begins 32 MB into the 256 KiB writes (64 MB
        // in all), which leaves 32 MB either way for the reads of the safety checks.
        let small: u64 = 250 * 512 * 511;
        d.control(&format!("add hang-after={}", before + small + 32_000_000));
        let g = given_up(&d, &["-S", "-w", "--yes", "--write-duration", "0"]);
        // The write named is one of the 256 KiB writes (two pieces, one from a piece
        // thread), and the device held requests when it was given up.
        assert_eq!(g.byte % SPLIT, 0, "{}", g.outcome);
        assert!(g.hung >= 1, "nothing hung: {}", g.outcome);
    }
}
