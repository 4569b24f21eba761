//! Slow reads: listed by the scan, a slow block placed at its exact MiB beside a
//! busy CPU, and a real drive's scan sampled and held while too hot.

use super::*;
use crate::helpers::scratch_dir;
use crate::helpers::seekprobe_command;

fuse_tests! {
    fn slow_reads_are_listed_by_scan() {
        let d = FaultDisk::new(16 << 20, &["slow-reads=8M-9M,300"]);
        let (code, out, err) = run(&["--scan", "--json", "--slow-ms", "200", &d.dev]);
        assert_eq!(code, 0, "{out}{err}");
        let v = json(&out);
        let slow = &v["disks"][0]["tests"][0]["scan"]["slow"];
        assert_eq!(slow[0]["first_sector"], 16384, "{slow}");
        assert_eq!(slow[0]["sectors"], 2048, "{slow}");
        assert_eq!(slow.as_array().unwrap().len(), 1, "{slow}");
    }
}

/// A CPU-bound loop on its own thread until the guard is dropped: the load that
/// runs an I/O thread of the scan late (and that once put the slow block's time on
/// a neighbour).
struct BusyLoop(std::sync::Arc<std::sync::atomic::AtomicBool>);

impl BusyLoop {
    fn start() -> BusyLoop {
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let flag = std::sync::Arc::clone(&stop);
        std::thread::spawn(move || {
            let mut x = 0u64;
            while !flag.load(std::sync::atomic::Ordering::Relaxed) {
                for i in 0..10_000u64 {
                    x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(i));
                }
            }
        });
        BusyLoop(stop)
    }
}

impl Drop for BusyLoop {
    fn drop(&mut self) {
        self.0.store(true, std::sync::atomic::Ordering::Relaxed);
    }
}

fuse_tests! {
    fn a_slow_block_is_placed_at_its_exact_mib_by_the_queued_scan_beside_a_busy_loop() {
        // The loop device reports no rotation: the scan reads queued, then reads the
        // suspects again alone. Five runs, each beside a CPU-bound loop. The threshold
        // is under the injected 200 ms: at a load average of 30 on this 2-CPU machine a
        // healthy 1 MiB block of this FUSE device (several requests to its daemon,
        // each waiting for a CPU) took over 100 ms alone, twice in a row.
        let d = FaultDisk::new(16 << 20, &["slow-reads=8M-9M,200"]);
        let _busy = BusyLoop::start();
        for run_no in 0..5 {
            let (code, out, err) = run(&["--scan", "--json", "--slow-ms", "190", &d.dev]);
            assert_eq!(code, 0, "run {run_no}: {out}{err}");
            let v = json(&out);
            let slow = &v["disks"][0]["tests"][0]["scan"]["slow"];
            assert_eq!(slow.as_array().unwrap().len(), 1, "run {run_no}: {slow}");
            assert_eq!(slow[0]["first_sector"], 16384, "run {run_no}: {slow}");
            assert_eq!(slow[0]["sectors"], 2048, "run {run_no}: {slow}");
            assert_eq!(slow[0]["timed"], "confirmed", "run {run_no}: {slow}");
            let ms = slow[0]["max_ns"].as_f64().unwrap() / 1e6;
            assert!(ms >= 200.0, "run {run_no}: its own time, {ms} ms");
        }
        // The text says which blocks, with their time, confirmed alone.
        let (code, out, err) = run(&["--scan", "--slow-ms", "190", &d.dev]);
        assert_eq!(code, 0, "{out}{err}");
        let line = out.lines().find(|l| l.contains("slow (>=")).unwrap_or("");
        assert!(
            line.starts_with("\tslow (>= 190 ms): sectors 16384-18431 (2048), up to ")
                && line.ends_with(" ms, confirmed alone"),
            "{out}"
        );
    }

    fn verify_places_a_slow_block_of_its_read_half_exactly_confirmed_alone() {
        let d = FaultDisk::new(16 << 20, &["slow-reads=8M-9M,200"]);
        let _busy = BusyLoop::start();
        let (code, out, err) = run(&[
            "--verify",
            "-w",
            "--yes",
            "--json",
            "--slow-ms",
            "190",
            &d.dev,
        ]);
        assert_eq!(code, 0, "{out}{err}");
        let v = json(&out);
        let pass = &v["disks"][0]["tests"][0]["verify"]["passes"][0];
        let slow = &pass["read"]["slow"];
        assert_eq!(slow.as_array().unwrap().len(), 1, "{slow}");
        assert_eq!(slow[0]["first_sector"], 16384, "{slow}");
        assert_eq!(slow[0]["sectors"], 2048, "{slow}");
        assert_eq!(slow[0]["timed"], "confirmed", "{slow}");
        assert!(slow[0]["max_ns"].as_u64().unwrap() >= 200_000_000, "{slow}");
    }

    /// A real drive's queued pass (`--scan`) is sampled from a side thread while it
    /// runs and held by `--max-temp`: the stand-in smartctl says 55 °C above a
    /// limit of 50, the drive reads nothing while it says so, and the pass goes on
    /// to its end once it says 40 °C. Sampled every second here
    /// (`SEEKPROBE_TEMP_EVERY_S`; 5 minutes without it); every read takes 20 ms, so
    /// the pass lasts long enough to be sampled.
    fn a_real_drives_scan_is_sampled_while_it_runs_and_held_while_too_hot() {
        let d = FaultDisk::new(32 << 20, &["slow-reads=0-32M,20"]);
        let bin = scratch_dir();
        let celsius = bin.path().join("celsius");
        std::fs::write(&celsius, "55").unwrap();
        let report = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/smartctl/ST3500418AS_11.json"
        );
        let body = format!(
            r#"sed "s/\"current\": 32/\"current\": $(cat {})/" {report}"#,
            celsius.display()
        );
        let path = stand_in_smartctl(bin.path(), &body);
        let json_file = bin.path().join("run.json");
        let child = seekprobe_command()
            .env("PATH", path)
            .env("SEEKPROBE_TEMP_EVERY_S", "1")
            .args(["--scan", "--smart", "--max-temp", "50", "-q", "--json-file"])
            .arg(&json_file)
            .arg(&d.dev)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // Held: nothing read for 2 s (the reads in flight at the first sample done).
        std::thread::sleep(Duration::from_secs(3));
        let before = d.stats().get("reads");
        std::thread::sleep(Duration::from_secs(2));
        let held = d.stats().get("reads");
        std::fs::write(&celsius, "40").unwrap();
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(held, before, "the drive read while too hot; {err}");
        let text = std::fs::read_to_string(&json_file).unwrap_or_else(|e| panic!("{e}: {err}"));
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        let disk = &v["disks"][0];
        let scan = &disk["tests"][0]["scan"];
        assert_eq!(
            scan["end_bytes"],
            32 << 20,
            "the pass did not end: {scan}\n{err}"
        );
        let t = &disk["smart"]["temperature"];
        assert_eq!(t["limit_c"], 50, "{t}");
        let pauses = t["pauses"].as_array().unwrap();
        assert_eq!(pauses.len(), 1, "{t}");
        let p = &pauses[0];
        assert_eq!(
            (&p["celsius"], &p["cooled"]),
            (&55.into(), &true.into()),
            "{t}"
        );
        let (from, to) = (p["from_s"].as_u64().unwrap(), p["to_s"].as_u64().unwrap());
        assert!(to >= from + 5, "held {from}..{to} s: {t}");
        // Sampled from the side thread about every second while held.
        let samples = t["samples"].as_array().unwrap();
        let during = samples
            .iter()
            .filter(|s| (from..=to).contains(&s["at_s"].as_u64().unwrap()))
            .count() as u64;
        assert!(
            during + 1 >= to - from,
            "{during} samples in {from}..{to} s: {t}"
        );
        assert!(samples.iter().any(|s| s["celsius"] == 40), "{t}");
    }
}
