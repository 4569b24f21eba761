//! A drive that never answers a cache flush: the write-verify pass's flushes (a
//! burn-in's checkpoint in the write half, and the flush at the half's end) go
//! through the drive's I/O thread, held to --io-timeout as every request
//! (docs/testing.md, "A drive that stops answering"). faultdisk's
//! `hang-flushes-after=N` keeps every flush after the N-th unanswered.

use crate::faultdisk::{FaultDisk, HUNG_IO_TIMEOUT_S, waited_the_hung_limit};
use crate::helpers::Spawned;
use crate::helpers::fuse_tests;

/// The byte a drive given up at a flush (`u`: the pass's `unanswered`) was given
/// up at, checked: its reason names the flush, the same byte, and a wait of
/// `--io-timeout` [`HUNG_IO_TIMEOUT_S`] to within a second.
fn given_up_at_a_flush(u: &serde_json::Value) -> u64 {
    let at = u["at_bytes"].as_u64().unwrap();
    let waited: f64 = (u["reason"].as_str())
        .and_then(|r| r.strip_prefix("no answer for "))
        .and_then(|r| {
            r.strip_suffix(&format!(
                " s to a cache flush of the writes below byte {at}"
            ))
        })
        .and_then(|w| w.parse().ok())
        .unwrap_or_else(|| panic!("{u}"));
    assert!(waited_the_hung_limit(waited), "{u}");
    at
}

fuse_tests! {
    /// A burn-in's write half flushes the drive's cache for each checkpoint: a drive
    /// that never answers that flush is given up after --io-timeout, as on a read or a
    /// write, and the burn-in ends. (The flush was an fdatasync on the pass's own
    /// thread, which no watchdog held: the run waited for the kernel for ever.)
    fn a_drive_that_hangs_on_a_checkpoints_flush_is_given_up_after_io_timeout() {
        let size = 256u64 << 20;
        let d = FaultDisk::new(size, &[]);
        let timeout = HUNG_IO_TIMEOUT_S.to_string();
        let args = ["--burn-in", "-w", "--yes", "-q", "--io-timeout", &timeout];
        let mut run = Spawned::saving(&args, &[&d.dev], &[]);
        let mut cp_file = run.json_file.clone().into_os_string();
        cp_file.push(format!(
            ".{}.verify-checkpoint",
            d.dev.trim_start_matches("/dev/")
        ));
        let done_to = run.wait_until("the write half's first checkpoint", |_| {
            let cp = std::fs::read(&cp_file).ok()?;
            let cp: serde_json::Value = serde_json::from_slice(&cp).ok()?;
            (cp["half"] == "write" && cp["done_to"].as_u64()? > 0).then(|| cp["done_to"].as_u64())?
        });
        // From now on the drive answers reads and writes, and no cache flush.
        d.control("add hang-flushes-after=0");
        let verify = |v: &serde_json::Value| {
            v["disks"][0]["tests"]
                .as_array()?
                .iter()
                .find(|t| t["verify"]["unanswered"].is_object())
                .cloned()
        };
        let t = run.wait_until("the write-verify pass given up", |r| {
            r.json().as_ref().and_then(verify)
        });
        assert!(d.stats().get("hung") >= 1, "{:?}", d.stats());
        d.abort();
        let (code, text, _) = run.finish();
        // Judged: FAIL.
        assert_eq!(code, Some(3), "{text}");
        let u = &t["verify"]["unanswered"];
        let at = given_up_at_a_flush(u);
        // The flush of a later checkpoint, or of the write half's end.
        assert!(
            (done_to..=size).contains(&at),
            "checkpoint at {done_to}: {u}"
        );
        assert!(text.contains("verdict: FAIL"), "{text}");
        assert!(text.contains("to a cache flush"), "{text}");
        // The steps after it are skipped for it, said once.
        assert!(
            text.contains("long self-test                       skipped: the drive stopped answering"),
            "{text}"
        );
    }

    /// The flush at a write half's end goes through the same watchdog: a drive that
    /// never answers it is given up there, before the read half.
    fn a_drive_that_hangs_on_the_write_halfs_flush_is_given_up_after_io_timeout() {
        let size = 64u64 << 20;
        let d = FaultDisk::new(size, &[]);
        // Added once the loop device is attached: losetup's switch to direct I/O
        // flushes the file too, and would hang.
        d.control("add hang-flushes-after=0");
        let timeout = HUNG_IO_TIMEOUT_S.to_string();
        let args = ["--verify", "-w", "--yes", "-q", "--io-timeout", &timeout];
        let mut run = Spawned::saving(&args, &[&d.dev], &[]);
        let v = run.wait_until("the write-verify pass given up", |r| {
            r.json()
                .filter(|v| v["disks"][0]["tests"][0]["verify"]["unanswered"].is_object())
        });
        assert_eq!(d.stats().get("hung"), 1, "{:?}", d.stats());
        d.abort();
        let (code, text, _) = run.finish();
        assert_eq!(code, Some(1), "{text}");
        let verify = &v["disks"][0]["tests"][0]["verify"];
        assert_eq!(given_up_at_a_flush(&verify["unanswered"]), size);
        // The whole range written, and nothing read back.
        let pass = &verify["passes"][0];
        assert_eq!(pass["write"]["bytes"], size, "{pass}");
        assert!(pass["read"].is_null(), "{pass}");
    }
}
