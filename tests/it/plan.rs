//! `seekprobe plan` (docs/plan.md), checked against real saved runs of simulated
//! drives on simulated controllers: every rule on the output, and the printed
//! zpool command parsed by a zpool-grammar parser of the tests' own (below). The
//! runs are made once and shared: 14 drives on two controllers (7 each) with
//! one of corrupt sectors, 12 on one controller, two drives that both fail, a
//! slow drive beside a bigger one, and a drive-managed SMR drive.

use crate::helpers::run;
use crate::helpers::temp_dir;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::OnceLock;

/// The saved runs, in a directory kept for the tests' life.
struct Runs {
    _dir: tempfile::TempDir,
    b14: String,
    b12: String,
    failing: String,
    extra: String,
    smr: String,
}

/// The corrupt drive of the 14 (on hba0).
const CORRUPT: &str = "sim:hdd?size=2G&seed=3&controller=hba0:600M&corrupt=1000-1008";
/// The slow drive of the extra run (on hba1).
const SLOW: &str = "sim:hdd?size=2G&slow=0-4194304:5&seed=20&controller=hba1:600M";
/// The bigger drive of the extra run (on hba1).
const BIG: &str = "sim:hdd?size=3G&seed=21&controller=hba1:600M";

/// 14 drives, 7 a controller, the third of corrupt sectors.
fn fourteen() -> Vec<String> {
    (1..=14)
        .map(|i| {
            let c = if i <= 7 { 0 } else { 1 };
            match i {
                3 => CORRUPT.to_string(),
                _ => format!("sim:hdd?size=2G&seed={i}&controller=hba{c}:600M"),
            }
        })
        .collect()
}

fn runs() -> &'static Runs {
    static RUNS: OnceLock<Runs> = OnceLock::new();
    RUNS.get_or_init(|| {
        let dir = temp_dir();
        let file = |n: &str| dir.path().join(n).to_string_lossy().into_owned();
        let (b14, b12, failing, extra, smr) = (
            file("b14.json"),
            file("b12.json"),
            file("failing.json"),
            file("extra.json"),
            file("smr.json"),
        );
        // The cheapest runs that give verdicts and paths: -t (the rates), a
        // verify of the first 16 MiB (the corrupt sectors), the path check.
        let verify = ["--verify", "--end", "16M", "-w", "--yes"];
        let mut jobs: Vec<Vec<String>> = Vec::new();
        let mut job = |opts: &[&str], out: &str, disks: Vec<String>| {
            let mut a: Vec<String> = ["-t", "--qualify", "-q", "--json-file", out]
                .iter()
                .chain(opts)
                .map(|s| s.to_string())
                .collect();
            a.extend(disks);
            jobs.push(a);
        };
        job(&[&verify[..], &["--path-check"]].concat(), &b14, fourteen());
        let twelve = (1..=12).map(|i| format!("sim:hdd?size=2G&seed={i}&controller=hba0:600M"));
        job(&["--path-check"], &b12, twelve.collect());
        let bad = (1..=2).map(|i| format!("sim:hdd?size=2G&seed={i}&corrupt=100-104"));
        job(&verify, &failing, bad.collect());
        job(&["--path-check"], &extra, vec![SLOW.into(), BIG.into()]);
        job(&[], &smr, vec!["sim:smr?size=2G".into()]);
        let handles: Vec<_> = jobs
            .into_iter()
            .map(|a| std::thread::spawn(move || (run(&a), a)))
            .collect();
        for h in handles {
            let ((code, _, err), a) = h.join().unwrap();
            assert!(code == 0 || code == 3, "{a:?}: {code}\n{err}");
        }
        Runs {
            _dir: dir,
            b14,
            b12,
            failing,
            extra,
            smr,
        }
    })
}

/// `seekprobe plan ARGS...`: its exit status and standard output.
fn plan(args: &[&str]) -> (i32, String) {
    let mut a = vec!["plan"];
    a.extend(args);
    let (code, out, err) = run(&a);
    assert!(code == 1 || err.is_empty(), "{a:?}: {err}");
    (code, out)
}

/// A zpool create command, as parsed.
#[derive(Debug, Default)]
struct Zpool {
    /// `-o` properties.
    props: BTreeMap<String, String>,
    /// The pool's name.
    pool: String,
    /// Each top-level vdev: its type (`raidz2`, `mirror`, `disk`) and devices.
    vdevs: Vec<(String, Vec<String>)>,
    /// The hot spares.
    spares: Vec<String>,
}

/// Split a shell line into words as sh does for what the plan prints: plain
/// words, single-quoted words (`'\''` for a quote); any other character the
/// shell treats specially outside quotes is an error.
fn shell_words(line: &str) -> Result<Vec<String>, String> {
    let (mut words, mut cur, mut any) = (Vec::new(), String::new(), false);
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' => {
                if any {
                    words.push(std::mem::take(&mut cur));
                    any = false;
                }
            }
            '\'' => {
                any = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => cur.push(c),
                        None => return Err(format!("unclosed quote in {line:?}")),
                    }
                }
            }
            '\\' => {
                any = true;
                cur.push(chars.next().ok_or("a lone backslash")?);
            }
            c if "?&;|<>()$`*\"#~![]{}".contains(c) => {
                return Err(format!("{c:?} unquoted in {line:?}"));
            }
            c => {
                any = true;
                cur.push(c);
            }
        }
    }
    if any {
        words.push(cur);
    }
    Ok(words)
}

/// Parse `zpool create [-f] [-n] [-o prop=value]... [-O prop=value]... [-m
/// mountpoint] POOL VDEV...` as zpool-create(8) and zpoolconcepts(7) give it:
/// a vdev is `mirror` with 2 or more devices, `raidz`/`raidz1`/`raidz2`/`raidz3`
/// with one more than its parity or more, or a lone device; then `spare` and its
/// devices. No device may be named twice.
fn parse_zpool(text: &str) -> Result<Zpool, String> {
    let joined = text.replace("\\\n", " ");
    let line = joined
        .lines()
        .find(|l| l.starts_with("zpool "))
        .ok_or("no zpool line")?;
    let words = shell_words(line)?;
    let mut w = words.iter().map(String::as_str).peekable();
    if (w.next(), w.next()) != (Some("zpool"), Some("create")) {
        return Err("not zpool create".into());
    }
    let mut z = Zpool::default();
    while let Some(&opt) = w.peek().filter(|o| o.starts_with('-')) {
        w.next();
        match opt {
            "-f" | "-n" | "-d" => {}
            "-o" | "-O" => {
                let (k, v) = w
                    .next()
                    .and_then(|p| p.split_once('='))
                    .ok_or(format!("{opt} takes property=value"))?;
                z.props.insert(k.into(), v.into());
            }
            "-m" | "-R" => {
                w.next().ok_or(format!("{opt} takes a path"))?;
            }
            _ => return Err(format!("unknown option {opt}")),
        }
    }
    z.pool = w.next().ok_or("no pool name")?.to_string();
    let first = z.pool.chars().next().unwrap_or(' ');
    if !first.is_ascii_alphabetic()
        || ["mirror", "raidz", "spare"]
            .iter()
            .any(|r| z.pool.starts_with(r))
    {
        return Err(format!("bad pool name {}", z.pool));
    }
    let keyword = |s: &str| {
        matches!(
            s,
            "mirror" | "raidz" | "raidz1" | "raidz2" | "raidz3" | "spare"
        )
    };
    let mut seen = std::collections::BTreeSet::new();
    while let Some(word) = w.next() {
        let mut devices = Vec::new();
        let kind = if keyword(word) {
            while let Some(&d) = w.peek().filter(|d| !keyword(d)) {
                devices.push(d.to_string());
                w.next();
            }
            word.to_string()
        } else {
            devices.push(word.to_string());
            "disk".to_string()
        };
        let least = match kind.as_str() {
            "mirror" => 2,
            "raidz" | "raidz1" => 2,
            "raidz2" => 3,
            "raidz3" => 4,
            _ => 1,
        };
        if devices.len() < least {
            return Err(format!("{kind} with {} devices", devices.len()));
        }
        for d in &devices {
            if !(d.starts_with('/') || d.starts_with("sim:")) || !seen.insert(d.clone()) {
                return Err(format!("device {d:?} not a path, or named twice"));
            }
        }
        if kind == "spare" {
            z.spares.extend(devices);
        } else {
            z.vdevs.push((kind, devices));
        }
    }
    if z.vdevs.is_empty() {
        return Err("no vdev".into());
    }
    Ok(z)
}

/// The controller a simulated drive's name puts it on.
fn controller(name: &str) -> &str {
    name.split("controller=")
        .nth(1)
        .and_then(|c| c.split(':').next())
        .unwrap_or("none")
}

/// How many drives of each controller a vdev holds.
fn spread(devices: &[String]) -> BTreeMap<&str, usize> {
    let mut m = BTreeMap::new();
    for d in devices {
        *m.entry(controller(d)).or_default() += 1;
    }
    m
}

#[test]
fn fourteen_drives_on_two_controllers_make_two_raidz2_vdevs_of_three_and_three_and_a_spare() {
    let r = runs();
    let (code, out) = plan(&[&r.b14, "--layout", "raidz2:6", "--spares", "1"]);
    assert_eq!(code, 0, "{out}");
    let z = parse_zpool(&out).unwrap_or_else(|e| panic!("{e}\n{out}"));
    assert_eq!(
        z.props.get("ashift").map(String::as_str),
        Some("12"),
        "{out}"
    );
    assert_eq!(z.pool, "tank");
    assert_eq!(z.vdevs.len(), 2, "{out}");
    for (kind, devices) in &z.vdevs {
        assert_eq!(kind, "raidz2");
        assert_eq!(devices.len(), 6);
        assert_eq!(
            spread(devices),
            BTreeMap::from([("hba0", 3), ("hba1", 3)]),
            "{out}"
        );
    }
    // The spare from the controller with 7 passing drives (hba0 lost one).
    assert_eq!(z.spares.len(), 1);
    assert_eq!(controller(&z.spares[0]), "hba1", "{out}");
    // Every drive by the whole sim: name it was given, the failing one left out
    // on a line of its own with its reason.
    let mut named: Vec<&String> = z.vdevs.iter().flat_map(|v| &v.1).chain(&z.spares).collect();
    named.sort();
    let mut passing: Vec<String> = fourteen().into_iter().filter(|d| d != CORRUPT).collect();
    passing.sort();
    assert_eq!(named, passing.iter().collect::<Vec<_>>());
    let line = format!("  {CORRUPT}: FAIL: verify: corrupt: sectors 1000-1007 (8)");
    assert!(out.lines().any(|l| l == line), "{out}");
    assert!(out.contains("named by the whole sim: name"), "{out}");
    assert!(out.contains("ashift=12: 2^12 = 4096 bytes, the largest physical sector in the pool (13 drives have 512-byte logical and 4096-byte physical sectors)"), "{out}");
    // Two controllers cannot carry 6-wide raidz2 vdevs through the loss of one:
    // said, naming each as the path check does.
    assert!(out.contains("warning: controller hba0: its failure takes 3 drives from raidz2-0 and 3 drives from raidz2-1, more than the 2 a raidz2 vdev can lose"), "{out}");
    assert!(out.contains("need at least 3"), "{out}");
}

#[test]
fn twelve_drives_on_one_controller_are_planned_with_a_warning_that_it_takes_a_whole_vdev() {
    let (code, out) = plan(&[&runs().b12, "--layout", "raidz2:6"]);
    assert_eq!(code, 0, "{out}");
    let z = parse_zpool(&out).unwrap_or_else(|e| panic!("{e}\n{out}"));
    assert_eq!(z.vdevs.len(), 2);
    assert!(z.spares.is_empty());
    assert!(
        out.contains("warning: controller hba0: its failure takes a whole vdev (all 6 drives of raidz2-0 and raidz2-1): the pool is lost with it"),
        "{out}"
    );
}

#[test]
fn a_batch_without_a_passing_drive_gets_no_command_and_each_drive_its_reason() {
    let (code, out) = plan(&[&runs().failing, "--layout", "mirror"]);
    assert_eq!(code, 3, "{out}");
    assert!(!out.contains("zpool create"), "{out}");
    assert!(
        out.starts_with("No pool: none of the 2 drives can join the pool."),
        "{out}"
    );
    for i in 1..=2 {
        let line = format!(
            "  sim:hdd?size=2G&seed={i}&corrupt=100-104: FAIL: verify: corrupt: sectors 100-103 (4)"
        );
        assert!(out.lines().any(|l| l == line), "{line}\n{out}");
    }
}

#[test]
fn mirrors_over_two_controllers_lose_no_vdev_with_either() {
    let (code, out) = plan(&[&runs().b14, "--layout", "mirror"]);
    assert_eq!(code, 0, "{out}");
    let z = parse_zpool(&out).unwrap_or_else(|e| panic!("{e}\n{out}"));
    assert_eq!(z.vdevs.len(), 6, "{out}");
    for (kind, devices) in &z.vdevs {
        assert_eq!(kind, "mirror");
        assert_eq!(
            spread(devices),
            BTreeMap::from([("hba0", 1), ("hba1", 1)]),
            "{out}"
        );
    }
    assert!(out.contains("paths: no vdev holds more than 1 drive of one path, so losing any one path (controller hba0 and controller hba1) costs no vdev more than it can lose"), "{out}");
    assert!(!out.contains("warning: controller"), "{out}");
    // 13 passing drives make 6 mirrors: the 13th is named, not needed.
    assert!(
        out.contains(": not needed: 6 vdevs of 2 and 0 spares take 12 of the 13 passing drives"),
        "{out}"
    );
}

#[test]
fn a_far_slower_drive_becomes_the_spare_or_is_named_and_unlike_sizes_are_named() {
    let r = runs();
    let (code, out) = plan(&[&r.b14, &r.extra, "--layout", "raidz2:6", "--spares", "1"]);
    assert_eq!(code, 0, "{out}");
    let z = parse_zpool(&out).unwrap_or_else(|e| panic!("{e}\n{out}"));
    assert_eq!(z.spares, [SLOW], "{out}");
    assert!(
        out.contains(&format!("spare: {SLOW}: the slowest: ")),
        "{out}"
    );
    // The bigger drive is set aside before the drives of its size.
    assert!(
        out.contains(&format!("  {BIG} ({}): not needed", r.extra)),
        "{out}"
    );
    // Without a spare the slow drive is left over, named as slow; the bigger
    // one joins a mirror, and the capacity it loses is named.
    let (code, out) = plan(&[&r.b14, &r.extra, "--layout", "mirror"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains(&format!("  {SLOW} ({}): not needed: 7 vdevs of 2 and 0 spares take 14 of the 15 passing drives; far slower than the rest: ", r.extra)), "{out}");
    assert!(
        out.contains(
            "mirror-0: drives of 2.0 GiB to 3.0 GiB: each is used to the smallest's 2.0 GiB"
        ),
        "{out}"
    );
    assert!(out.contains("1.0 GiB lost on the larger"), "{out}");
}

#[test]
fn drive_managed_smr_is_refused_in_raidz_and_named_in_a_mirror() {
    let r = runs();
    let (_, out) = plan(&[&r.smr, &r.b14, "--layout", "raidz2:6", "--with-warnings"]);
    assert!(out.contains("  sim:smr?size=2G ("), "{out}");
    assert!(
        out.contains(
            "drive-managed SMR (its model: the model matches Seagate BarraCuda 8 TB (DM004)"
        ),
        "{out}"
    );
    assert!(out.contains("refused in raidz"), "{out}");
    assert!(
        !parse_zpool(&out)
            .unwrap()
            .vdevs
            .iter()
            .flat_map(|v| &v.1)
            .any(|d| d.starts_with("sim:smr"))
    );
    // Without --with-warnings its SMR signs keep it out by its verdict.
    let (_, out) = plan(&[&r.smr, &r.b14, "--layout", "mirror"]);
    assert!(
        out.contains("sim:smr?size=2G (")
            && out.contains("PASS with warnings (--with-warnings takes it)"),
        "{out}"
    );
    let (_, out) = plan(&[&r.smr, &r.b14, "--layout", "stripe", "--with-warnings"]);
    assert!(
        out.contains("warning: sim:smr?size=2G is drive-managed SMR"),
        "{out}"
    );
    // Its path is unknown (no --path-check in its run): said.
    assert!(
        out.contains("is unknown (no --path-check in its run)"),
        "{out}"
    );
}

#[test]
fn mdadm_gets_raid6_arrays_striped_into_one_and_refuses_other_shapes() {
    let r = runs();
    let (code, out) = plan(&[
        &r.b14, "--layout", "raid6:6", "--spares", "1", "--for", "mdadm",
    ]);
    assert_eq!(code, 0, "{out}");
    let joined = out.replace("\\\n", " ");
    let commands: Vec<Vec<String>> = joined
        .lines()
        .filter(|l| l.starts_with("mdadm "))
        .map(|l| shell_words(l).unwrap())
        .collect();
    assert_eq!(commands.len(), 3, "{out}");
    for (k, c) in commands[..2].iter().enumerate() {
        assert_eq!(&c[..3], ["mdadm", "--create", &format!("/dev/md/tank-{k}")]);
        assert!(
            c.contains(&"--level=6".to_string()) && c.contains(&"--raid-devices=6".to_string()),
            "{c:?}"
        );
        let drives: Vec<String> = c
            .iter()
            .filter(|w| w.starts_with("sim:"))
            .cloned()
            .collect();
        assert_eq!(drives.len(), if k == 0 { 7 } else { 6 }, "{c:?}");
        assert_eq!(
            spread(&drives[..6]),
            BTreeMap::from([("hba0", 3), ("hba1", 3)])
        );
    }
    assert!(commands[0].contains(&"--spare-devices=1".to_string()));
    assert_eq!(
        commands[2],
        [
            "mdadm",
            "--create",
            "/dev/md/tank",
            "--level=0",
            "--raid-devices=2",
            "/dev/md/tank-0",
            "/dev/md/tank-1"
        ]
    );
    let (code, _) = plan(&[&r.b14, "--layout", "raidz1:3", "--for", "mdadm"]);
    assert_eq!(code, 1);
}

#[test]
fn the_json_plan_is_the_same_plan_as_data() {
    let r = runs();
    let (code, out) = plan(&[&r.b14, "--layout", "raidz2:6", "--spares", "1", "--json"]);
    assert_eq!(code, 0, "{out}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["ashift"], 12);
    assert_eq!(j["for"], "zfs");
    assert_eq!(j["vdevs"].as_array().unwrap().len(), 2);
    assert_eq!(j["vdevs"][0]["name"], "raidz2-0");
    assert_eq!(j["spares"].as_array().unwrap().len(), 1);
    assert_eq!(j["left_out"][0]["drive"], CORRUPT);
    assert_eq!(j["drives"].as_array().unwrap().len(), 14);
    let (_, text) = plan(&[&r.b14, "--layout", "raidz2:6", "--spares", "1"]);
    assert!(text.starts_with(j["command"].as_str().unwrap()), "{text}");
    let argv = &j["argv"][0];
    assert_eq!(argv[0], "zpool");
    assert_eq!(argv[4], "tank");
}

#[test]
fn unusable_input_is_named_with_exit_status_1() {
    let r = runs();
    let (code, _) = plan(&[&r.b14, "--layout", "raidz2"]);
    assert_eq!(code, 1);
    let (code, _) = plan(&[&r.b14, "--layout", "raidz5:6"]);
    assert_eq!(code, 1);
    let missing = PathBuf::from(&r.b14).with_file_name("missing.json");
    let (code, out, err) = run(&["plan", missing.to_str().unwrap(), "--layout", "mirror"]);
    assert_eq!((code, out.as_str()), (1, ""));
    assert!(err.contains("missing.json"), "{err}");
}

#[test]
fn a_drive_in_two_runs_joins_once() {
    let r = runs();
    let again = PathBuf::from(&r.b14).with_file_name("again.json");
    std::fs::copy(&r.b14, &again).unwrap();
    let again = again.to_string_lossy().into_owned();
    let (code, out) = plan(&[&r.b14, &again, "--layout", "raidz2:6", "--spares", "1"]);
    assert_eq!(code, 0, "{out}");
    let z = parse_zpool(&out).unwrap_or_else(|e| panic!("{e}\n{out}"));
    assert_eq!(
        z.vdevs.iter().map(|v| v.1.len()).sum::<usize>() + z.spares.len(),
        13
    );
    let twice = out
        .lines()
        .filter(|l| l.contains(": the same drive as "))
        .count();
    assert_eq!(twice, 13, "{out}");
}
