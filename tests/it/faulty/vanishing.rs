//! Drives that go away or change mid-run: vanishing, turning read-only, a burn-in
//! killed and resumed from its checkpoint.

use super::*;
use crate::helpers::scratch_dir;
use crate::helpers::seekprobe_command;

fuse_tests! {
    fn a_drive_that_vanishes_mid_verify_is_reported_stopped_within_seconds() {
        // Every request fails once 300 MiB have moved: the drive dropped off the bus.
        let d = FaultDisk::new(1 << 30, &["vanish-after=300M"]);
        let mut run = start(&["--verify", "-w", "--yes", "--json", "-q", &d.dev]);
        run.wait_until("the drive to vanish", |_| {
            (d.stats().json["vanished"] == true).then_some(())
        });
        let vanished = Instant::now();
        let (code, text, _) = run.finish();
        let took = vanished.elapsed();
        assert_eq!(code, Some(1), "{text}");
        // The bound: reported as stopped within 15 s of vanishing.
        assert!(took < Duration::from_secs(15), "{took:?}");
        eprintln!("reported {took:?} after vanishing");
        let v = json(&text);
        let test = &v["disks"][0]["tests"][0];
        let u = &test["verify"]["unanswered"];
        let at = u["at_bytes"].as_u64().expect("unanswered");
        // 300 MiB less the signature check's 12 MiB, and what the pass had in flight.
        assert!((280 << 20..320 << 20).contains(&at), "{u}");
        assert!(
            test["outcome"]["failed"]
                .as_str()
                .unwrap()
                .contains(&format!("the drive stopped answering at byte {at} after "))
        );
        // Given up after a handful of failed requests (the streak and the re-reads), not
        // after retrying each of the 1.4 million sectors left.
        let s = d.stats();
        assert!(s.get("failed") < 64, "{:?}", s);
    }

    fn a_drive_that_turns_read_only_mid_pass_is_one_finding_with_its_byte() {
        let d = FaultDisk::new(256 << 20, &[]);
        let args = ["--verify", "-w", "--yes", "--json", "-q"];
        let mut run = start(&[&args[..], &["--block-size", "256K", &d.dev]].concat());
        d.wait_counter(&mut run, "write_bytes", 32 << 20);
        let ro = std::process::Command::new(crate::helpers::tool("blockdev"))
            .args(["--setro", &d.dev])
            .status()
            .unwrap();
        assert!(ro.success());
        let (code, text, _) = run.finish();
        assert_eq!(code, Some(1), "{text}");
        let v = json(&text);
        let u = &v["disks"][0]["tests"][0]["verify"]["unanswered"];
        assert_eq!(u["read_only"], true, "{u}");
        let at = u["at_bytes"].as_u64().unwrap();
        assert!((32 << 20..256 << 20).contains(&at), "{u}");
        // One finding, not a failure per sector.
        assert_eq!(verify_ranges(&v, 0), []);
    }

    fn a_drive_vanishing_in_a_burn_in_skips_its_remaining_steps_and_the_other_drive_goes_on() {
        let d = FaultDisk::new(64 << 20, &[]);
        let good = LoopDev::scratch(64 << 20, true, None);
        let args = ["--burn-in", "-w", "--yes", "--qualify", "-q", "--parallel"];
        let mut run = Spawned::saving(&args, &[&d.dev, &good.dev], &[]);
        // The zone curve writes 100 samples of 655 KiB (64 MiB), then the write-verify
        // pass 64 MiB: the drive vanishes about 16 MiB into the pass.
        d.wait_counter(&mut run, "write_bytes", 80 << 20);
        d.control("vanish");
        let json_file = run.json_file.clone();
        let (code, text, _) = run.finish();
        assert_ne!(code, Some(0), "{text}");
        let v = json(&std::fs::read_to_string(&json_file).unwrap());
        let status = |disk: usize, step: &str| {
            v["disks"][disk]["burn_in"]
                .as_array()
                .unwrap()
                .iter()
                .find(|s| s["step"] == step)
                .unwrap_or_else(|| panic!("{step}"))["status"]
                .clone()
        };
        let verify = status(0, "verify");
        assert!(
            verify["failed"]
                .as_str()
                .unwrap()
                .contains("stopped answering"),
            "{verify}"
        );
        let after = status(0, "smart_after");
        assert!(
            after["skipped"]
                .as_str()
                .unwrap()
                .starts_with("the drive stopped answering at byte "),
            "{after}"
        );
        assert_eq!(status(1, "verify"), "done");
        assert!(d.stats().get("failed") < 64, "{:?}", d.stats());
        // A mirror pair: the faulty drive FAILs for stopping, the clean one PASSes (its
        // timings not judged against one other drive), exit status 3.
        assert_eq!(code, Some(3), "{text}");
        let verdict = |disk: usize| v["disks"][disk]["verdict"].clone();
        assert_eq!(verdict(0)["pass"], false, "{}", verdict(0));
        assert!(
            verdict(0)["findings"]
                .as_array()
                .unwrap()
                .iter()
                .any(|f| f["code"] == "stopped_answering" && f["severity"] == "fail"),
            "{}",
            verdict(0)
        );
        assert_eq!(verdict(1)["pass"], true, "{}", verdict(1));
        assert!(
            text.contains(&format!("Burn-in of {}:", good.dev)),
            "{text}"
        );
    }

    fn a_burn_in_killed_mid_write_verify_resumes_from_its_checkpoint_with_the_same_verdict() {
        let size = 128u64 << 20;
        let rules = ["write-error=1000s-1003s"];
        let dir = scratch_dir();
        let burn_in = |dev: &str, json: &std::path::Path, resume: bool| {
            let mut c = seekprobe_command();
            c.args(["--burn-in", "-w", "--yes", "--qualify", "-q"]);
            c.arg(if resume { "--resume" } else { "--json-file" })
                .arg(json);
            c.arg(dev)
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped());
            c
        };
        // The verdict of an uninterrupted run.
        let whole = FaultDisk::new(size, &rules);
        let json0 = dir.path().join("whole.json");
        let out = burn_in(&whole.dev, &json0, false).output().unwrap();
        let whole_text = String::from_utf8(out.stdout).unwrap();
        let whole_code = out.status.code();
        let verdict = |text: &str| {
            text.lines()
                .find(|l| l.trim_start().starts_with("verdict:"))
                .map(str::trim)
                .map(String::from)
        };
        assert!(verdict(&whole_text).is_some(), "{whole_text}");
        drop(whole);
        // Killed with SIGKILL once its checkpoint says half of the write half is flushed.
        let d = FaultDisk::new(size, &rules);
        let json = dir.path().join("run.json");
        let mut child = burn_in(&d.dev, &json, false).spawn().unwrap();
        let cp_file = dir.path().join(format!(
            "run.json.{}.verify-checkpoint",
            d.dev.trim_start_matches("/dev/")
        ));
        let until = Instant::now() + Duration::from_secs(60);
        let done_to = loop {
            assert!(Instant::now() < until, "no checkpoint");
            if let Some(cp) = std::fs::read(&cp_file)
                .ok()
                .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
                && cp["half"] == "write"
                && cp["done_to"].as_u64().unwrap() >= size / 2
            {
                child.kill().unwrap();
                break cp["done_to"].as_u64().unwrap();
            }
            std::thread::sleep(Duration::from_millis(1));
        };
        let _ = child.wait();
        // Writes the kernel had queued still land after the process died: count once
        // the loop device has none in flight.
        let written = d.settled().get("write_bytes");
        // The checkpoint left at the kill may be a later one than the one seen.
        let cp: serde_json::Value = serde_json::from_slice(&std::fs::read(&cp_file).unwrap()).unwrap();
        let resume_at = cp["done_to"].as_u64().unwrap();
        assert!(resume_at >= done_to && resume_at < size, "{cp}");
        let out = burn_in(&d.dev, &json, true).output().unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        let said = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), whole_code, "{text}");
        assert_eq!(verdict(&text), verdict(&whole_text), "{text}");
        assert!(!cp_file.exists(), "the checkpoint outlived its pass");
        let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
        let verify = v["disks"][0]["tests"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["verify"].is_object())
            .unwrap()
            .clone();
        // Only the part after the checkpoint was written again, besides the writes that
        // located the failed block before it (the checkpoint carried it, unlocated):
        // within that 1 MiB block, a probe the kernel splits into two 512 KiB requests
        // stores the half that does not fail.
        let rewritten = d.stats().get("write_bytes") - written;
        let located = verify["verify"]["passes"][0]["write"]["retried_bytes"]
            .as_u64()
            .unwrap();
        assert!(located > 0 && located < 1 << 20, "{located}");
        assert!(
            (size - resume_at + located..=size - resume_at + (2 << 20)).contains(&rewritten),
            "resumed at {resume_at} (seen at the kill: {done_to}): {rewritten} bytes written again; the resumed run:\n{text}\n{said}"
        );
        let f = &verify["verify"]["passes"][0]["failures"]["ranges"];
        assert_eq!(f[0]["kind"], "unwritable", "{f}");
        assert_eq!(
            (f[0]["start_lba"].clone(), f[0]["sectors"].clone()),
            (1000.into(), 3.into())
        );
        // The whole failure list of each pass, counts included, is the uninterrupted
        // run's: nothing recorded twice by the resumed run.
        let failures = |path: &std::path::Path| -> Vec<serde_json::Value> {
            let v: serde_json::Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
            let t = v["disks"][0]["tests"].as_array().unwrap().iter();
            let passes = t.clone().find(|t| t["verify"].is_object()).unwrap()["verify"]["passes"]
                .as_array()
                .unwrap()
                .clone();
            passes.iter().map(|p| p["failures"].clone()).collect()
        };
        assert_eq!(failures(&json), failures(&json0));
    }

    fn a_drive_vanishing_before_the_write_verify_step_is_recognised_by_the_sectors_read_before() {
        // The drive vanishes during -t, the burn-in's first test: the write-verify pass
        // sees no sector read fine itself, and re-reads those the signature check read.
        let d = FaultDisk::new(64 << 20, &[]);
        let args = ["--burn-in", "-w", "--yes", "--qualify", "-q"];
        let mut run = Spawned::saving(&args, &[&d.dev], &[]);
        // Past the signature check's 12 MiB (8 at the start, 4 at the end), into -t.
        d.wait_counter(&mut run, "read_bytes", 24 << 20);
        d.control("vanish");
        let json_file = run.json_file.clone();
        let (code, _, err) = run.finish();
        assert_ne!(code, Some(0), "{err}");
        let v = json(&std::fs::read_to_string(&json_file).unwrap());
        let steps = v["disks"][0]["burn_in"].as_array().unwrap();
        let status = |step: &str| steps.iter().find(|s| s["step"] == step).unwrap()["status"].clone();
        let verify = status("verify");
        assert!(
            verify["failed"]
                .as_str()
                .unwrap()
                .contains("stopped answering"),
            "{verify}"
        );
        assert!(
            status("smart_after")["skipped"]
                .as_str()
                .unwrap()
                .starts_with("the drive stopped answering"),
            "{steps:?}"
        );
        assert!(d.stats().get("failed") < 200, "{:?}", d.stats());
    }
}
