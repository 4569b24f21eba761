//! A device that shrinks to half its size in the middle of a write-verify pass
//! (a bridge that re-enumerates, an HPA set; here a loop device over a file in
//! /dev/shm, its file truncated and `losetup -c` run): the size change named
//! (from, to, where), a failing `size_changed` finding, the pass stopped there and
//! no flood of failed sectors (needs root and /dev/loop-control).

use crate::helpers::loop_tests;
use crate::helpers::{LoopDev, Spawned};
use std::process::Command;

/// Sectors written to the loop device `name` since boot (/sys/block/NAME/stat).
fn written_sectors(name: &str) -> u64 {
    let stat = std::fs::read_to_string(format!("/sys/block/{name}/stat")).unwrap();
    stat.split_whitespace().nth(6).unwrap().parse().unwrap()
}

/// Every value under the key `key` in `v`, depth first.
fn under<'v>(v: &'v serde_json::Value, key: &str, acc: &mut Vec<&'v serde_json::Value>) {
    match v {
        serde_json::Value::Object(m) => {
            for (k, x) in m {
                if k == key {
                    acc.push(x);
                }
                under(x, key, acc);
            }
        }
        serde_json::Value::Array(a) => a.iter().for_each(|x| under(x, key, acc)),
        _ => {}
    }
}

loop_tests! {
    fn a_loop_device_halved_mid_pass_is_named_and_the_pass_stops() {
        const SIZE: u64 = 256 << 20;
        let ld = LoopDev::scratch(SIZE, false, None);
        let name = ld.short_name().to_string();
        let backing = std::fs::read_to_string(format!("/sys/block/{name}/loop/backing_file"))
            .unwrap()
            .trim()
            .to_string();
        let before = written_sectors(&name);
        let args = ["--verify", "-w", "--yes", "--qualify"];
        let mut run = Spawned::saving(&args, &[&ld.dev], &[]);
        // Once more than half is written: the file cut to half, the device told.
        run.wait_until("half of the device written", |_| {
            (written_sectors(&name) - before > SIZE / 512 / 2).then_some(())
        });
        std::fs::OpenOptions::new()
            .write(true)
            .open(&backing)
            .unwrap()
            .set_len(SIZE / 2)
            .unwrap();
        let st = Command::new("losetup").args(["-c", &ld.dev]).status();
        assert!(st.unwrap().success(), "losetup -c {}", ld.dev);
        // Writes that land between the cut and `losetup -c` extend the file again:
        // the size the device took is at least half, and less than it was.
        let now = std::fs::read_to_string(format!("/sys/block/{name}/size")).unwrap();
        let now: u64 = now.trim().parse::<u64>().unwrap() * 512;
        assert!(
            (SIZE / 2..SIZE).contains(&now),
            "the device's size now: {now}"
        );
        let (code, out, err) = run.finish();
        let v = run
            .json()
            .unwrap_or_else(|| panic!("no saved run: {out}\n{err}"));
        assert_eq!(code, Some(3), "{out}\n{err}");
        let mut changed = Vec::new();
        under(&v, "size_changed", &mut changed);
        let c = changed
            .first()
            .unwrap_or_else(|| panic!("no size_changed: {v}"));
        assert_eq!(c["from_bytes"], SIZE, "{c}");
        assert_eq!(c["to_bytes"], now, "{c}");
        assert_eq!(c["pass"], 0, "{c}");
        // Where the pass noticed: the block whose answer it was handling then. The
        // kernel counts a write when the device completes it, before seekprobe takes
        // its answer, so up to the pass's requests in flight (VERIFY_DEPTH blocks of
        // the default 1 MiB) may be counted beyond it: on a busy machine the pass
        // noticed at 127 MiB of the 128 MiB the test had seen written.
        let in_flight = u64::from(seekprobe::test_plans::VERIFY_DEPTH.get()) << 20;
        let at = c["at_bytes"].as_u64().unwrap();
        assert!((SIZE / 2 - in_flight..=SIZE).contains(&at), "{c}");
        let findings = v["disks"][0]["verdict"]["findings"].as_array().unwrap();
        let f = (findings.iter().find(|f| f["code"] == "size_changed"))
            .unwrap_or_else(|| panic!("no size_changed finding: {findings:?}"));
        assert_eq!(f["severity"], "fail", "{f}");
        let reason = f["reason"].as_str().unwrap();
        let words = format!(
            "the device's size changed during the pass: from {SIZE} to {now} bytes at byte {at}"
        );
        assert!(reason.contains(&words), "{reason}");
        // No flood of failed sectors: none of the missing part counts as failed.
        let mut failures = Vec::new();
        under(&v, "failures", &mut failures);
        let failed: u64 = (failures
            .iter()
            .flat_map(|f| f["counts"].as_array().unwrap()))
        .map(|n| n.as_u64().unwrap())
        .sum();
        assert!(failed < (SIZE - now) / 512, "{failed} failed sectors");
    }
}
