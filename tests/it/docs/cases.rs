//! The docs harness's tables, each in one place: the substitutions it makes in the
//! docs' commands (docs/testing.md lists them for readers), the commands it leaves
//! out although they could run here, the setup a command needs first, what each
//! command must print, and the commands that wait for another engineer's fix.
//!
//! A command is named by its doc and its text as written: the entry matches the
//! command equal to it, else the one command that contains it. An entry that
//! matches no command fails the harness, so that none outlives its command.

use std::path::Path;

/// What a piece of a command becomes.
pub enum To {
    /// This text; `{repo}`, `{target_debug}`, `{cargo}` and `{profile}` stand for the
    /// repository, the build's target/debug folder, cargo and the tests' cargo
    /// profile (`helpers::cargo_profile`).
    Text(&'static str),
    /// N loop devices the harness attached (64 MiB each, direct I/O), their
    /// paths separated by spaces; the same text in a block names the same ones.
    Loops(usize),
    /// A loop device the harness attached, by its short name (loop3).
    LoopShort,
    /// A path inside the block's temporary directory.
    Tmp(&'static str),
}

/// A substitution: the text as the docs write it, what it becomes, and why.
pub struct Substitution {
    /// The text as the docs write it.
    pub from: &'static str,
    /// What it becomes.
    pub to: To,
    /// Why.
    pub why: &'static str,
}

/// The substitutions, made in this order in every command, setup and check.
pub const SUBSTITUTIONS: &[Substitution] = &[
    Substitution {
        from: "cargo run --release --",
        to: To::Text("seekprobe"),
        why: "the freshly built binary (PATH starts with target/debug)",
    },
    Substitution {
        from: "cargo run --",
        to: To::Text("seekprobe"),
        why: "the freshly built binary",
    },
    Substitution {
        from: "cargo build --example",
        to: To::Text(
            "\"{cargo}\" build --profile {profile} --manifest-path \"{repo}/Cargo.toml\" --example",
        ),
        why: "the tests' own profile, whose dependencies `cargo test` built: the dev profile would build them all and seekprobe again while the tests run; the example lands in the same target/debug/examples",
    },
    Substitution {
        from: "cargo build",
        to: To::Text("\"{cargo}\" build --manifest-path \"{repo}/Cargo.toml\""),
        why: "run from the repository, as the doc means",
    },
    Substitution {
        from: "target/debug/",
        to: To::Text("{target_debug}/"),
        why: "the repository's build, from the block's temporary directory",
    },
    Substitution {
        from: "size=20G",
        to: To::Text("size=64M"),
        why: "a debug build stamps every byte of a write-verify pass: 20 GiB a drive would take minutes",
    },
    Substitution {
        from: "fake=8G",
        to: To::Text("fake=16M"),
        why: "the fake drive keeps its lie under the smaller size",
    },
    Substitution {
        from: "/dev/sd[b-e]",
        to: To::Loops(2),
        why: "a batch of drives: two loop devices (a --parallel batch and its path check; four would add 16 s of path check)",
    },
    Substitution {
        from: "/dev/sd[b-y]",
        to: To::Loops(2),
        why: "a rack's drives: two loop devices",
    },
    Substitution {
        from: "/dev/sd?",
        to: To::Loops(2),
        why: "every drive: two loop devices",
    },
    Substitution {
        from: "DISK...",
        to: To::Loops(1),
        why: "one or more drives: one loop device",
    },
    Substitution {
        from: "/dev/sda",
        to: To::Loops(1),
        why: "a drive: a loop device",
    },
    Substitution {
        from: "/dev/sdb",
        to: To::Loops(1),
        why: "a drive: a loop device",
    },
    Substitution {
        from: "/dev/sdc",
        to: To::Loops(1),
        why: "a drive: a loop device",
    },
    Substitution {
        from: "/dev/sdd",
        to: To::Loops(1),
        why: "a drive: a loop device",
    },
    Substitution {
        from: "da0",
        to: To::LoopShort,
        why: "a short name (FreeBSD's): a loop device's, retried under /dev/ as da0 is",
    },
    Substitution {
        from: "RUN.json...",
        to: To::Text("run1.json run2.json"),
        why: "saved runs: two, made by the setup",
    },
    Substitution {
        from: " ...",
        to: To::Text(""),
        why: "\"and more of the same\" after a list of arguments",
    },
    Substitution {
        from: "tests/data/",
        to: To::Text("{repo}/tests/data/"),
        why: "the repository's test data, from the block's temporary directory",
    },
    Substitution {
        from: "/dev/shm/backing",
        to: To::Tmp("backing"),
        why: "the backing file, in the block's temporary directory",
    },
    Substitution {
        from: "/tmp/fd",
        to: To::Tmp("fd"),
        why: "the mount point, in the block's temporary directory",
    },
    Substitution {
        from: "/backup/",
        to: To::Tmp("backup/"),
        why: "the backup folder, in the block's temporary directory",
    },
];

/// Commands that could run here but are left out, and why.
pub const LEFT_OUT: &[(&str, &str, &str)] = &[
    (
        "README.md",
        "cargo test",
        "the test suite itself: this harness runs inside it",
    ),
    (
        "README.md",
        "cargo install --path .",
        "long: a release build, installed into ~/.cargo/bin outside any temporary directory (the harness runs the freshly built binary)",
    ),
    (
        "docs/performance.md",
        "benches/compare.sh",
        "long: a benchmark (minutes; fio, ioping)",
    ),
    (
        "docs/performance.md",
        "cargo bench --bench hot_paths",
        "long: a benchmark",
    ),
    (
        "docs/performance.md",
        "cargo build --release --example queued_iops",
        "long: a release build for a benchmark",
    ),
    (
        "docs/performance.md",
        "benches/cpu_per_op.py",
        "long: a benchmark",
    ),
    (
        "docs/performance.md",
        "benches/compare_fleet.sh",
        "long: a benchmark (1000 runs, 5 rounds)",
    ),
    (
        "docs/testing.md",
        "apt-get install fuse3",
        "installs a system package (the block runs where fusermount3 is installed)",
    ),
];

/// A step run before a command, in its shell: its text (substituted as the docs'
/// commands are), the exit status it must end with and lines it must print.
pub struct Setup {
    /// The doc.
    pub doc: &'static str,
    /// The command it comes before.
    pub before: &'static str,
    /// Work done in Rust first, in the block's directory.
    pub prepare: Option<fn(&Path)>,
    /// Shell steps: (text, exit status, lines it must print).
    pub steps: &'static [(&'static str, i32, &'static [&'static str])],
}

/// The setups.
pub const SETUPS: &[Setup] = &[
    Setup {
        doc: "README.md",
        before: "seekprobe --burn-in -w --qualify --parallel /dev/sd[b-e] --resume",
        prepare: None,
        // A burn-in without --json-file (saved in /var/lib/seekprobe/runs, the
        // block's own tmpfs), stopped after its -t step as Ctrl-C would stop it.
        steps: &[(
            "SEEKPROBE_BURN_IN_STOP_AFTER=seek_transfer seekprobe --burn-in -w --qualify --parallel /dev/sd[b-e]",
            130,
            &["[..]--resume[..]"],
        )],
    },
    Setup {
        doc: "README.md",
        before: "seekprobe plan burnin.json --layout raidz2:6 --spares 1",
        prepare: None,
        // docs/plan.md's batch of 14 drives on two controllers, one failing.
        steps: &[(
            "set --; for i in $(seq 1 14); do s=\"sim:hdd?size=2G&seed=$i&controller=hba$(( (i-1)/7 )):600M\"; [ $i = 3 ] && s=\"$s&corrupt=1000-1008\"; set -- \"$@\" \"$s\"; done; seekprobe -t --verify --end 16M -w --yes --qualify --path-check --json-file burnin.json \"$@\" >/dev/null",
            3,
            &[],
        )],
    },
    Setup {
        doc: "README.md",
        before: "seekprobe -v disk.img",
        prepare: None,
        steps: &[("truncate -s 1G disk.img", 0, &[])],
    },
    Setup {
        doc: "README.md",
        before: "--json-file burnin.json /dev/sd[b-e] --resume burnin.json",
        prepare: None,
        // The burn-in, stopped after its -t step as Ctrl-C would stop it: it
        // prints the README's resume command, the devices named.
        steps: &[(
            "SEEKPROBE_BURN_IN_STOP_AFTER=seek_transfer seekprobe --burn-in -w --qualify --parallel --json-file burnin.json /dev/sd[b-e]",
            130,
            &[
                "seekprobe --burn-in -w --qualify --parallel --json-file burnin.json /dev/sd[b-e] --resume burnin.json",
            ],
        )],
    },
    Setup {
        doc: "README.md",
        before: "seekprobe report burnin.json -o batch.html",
        prepare: None,
        steps: &[(
            "seekprobe --burn-in -w --yes -q --json-file burnin.json 'sim:hdd?size=64M' 'sim:ssd?size=64M'",
            0,
            &[],
        )],
    },
    Setup {
        doc: "docs/report.md",
        before: "seekprobe report RUN.json... -o report.html",
        prepare: None,
        steps: &[
            ("seekprobe -t --json-file run1.json sim:hdd", 0, &[]),
            (
                "seekprobe -t --json-file run2.json 'sim:hdd?seed=2'",
                0,
                &[],
            ),
        ],
    },
    Setup {
        doc: "docs/fleet.md",
        before: "seekprobe compare --qualify results/*/*.json",
        prepare: None,
        // Two hosts' runs laid out as section 2 says, the drives of
        // examples/ansible's test: the fourth slow over its outer 200 MiB.
        steps: &[
            ("mkdir -p results/storage01 results/storage02", 0, &[]),
            (
                "seekprobe -t --json-file results/storage01/storage01.json sim:hdd 'sim:hdd?seed=2'",
                0,
                &[],
            ),
            (
                "seekprobe -t --json-file results/storage02/storage02.json 'sim:hdd?seed=3' 'sim:hdd?slow=0-409600:5&seed=4'",
                0,
                &[],
            ),
        ],
    },
    Setup {
        doc: "docs/fleet.md",
        before: "--prometheus /var/lib/prometheus/node-exporter/seekprobe.prom",
        prepare: None,
        // The folders a host has: seekprobe's and node_exporter's textfile one.
        steps: &[(
            "mkdir -p /var/lib/seekprobe /var/lib/prometheus/node-exporter",
            0,
            &[],
        )],
    },
    Setup {
        doc: "docs/history.md",
        before: "seekprobe history",
        prepare: Some(real_drive_runs),
        steps: &[("seekprobe history import host1.json", 0, &[])],
    },
    Setup {
        doc: "docs/history.md",
        before: "sqlite3 /var/lib/seekprobe/history.db",
        prepare: Some(real_drive_runs),
        steps: &[
            ("seekprobe history import host1.json", 0, &[]),
            ("mkdir -p /backup/", 0, &[]),
        ],
    },
];

/// What a command must do.
pub struct Expect {
    /// The doc.
    pub doc: &'static str,
    /// The command.
    pub command: &'static str,
    /// Its exit status (a shown output's `(exit status N)` says it too).
    pub status: i32,
    /// Lines it must print (standard output, then standard error): each a
    /// pattern some line contains, `[..]` standing for any text, `{dev1}`,
    /// `{dev2}`... for the block's loop devices in the order attached.
    pub lines: &'static [&'static str],
    /// Burn-in verdicts: (drive, state, reasons), from its "Burn-in of DRIVE:"
    /// block; the drive and reasons as patterns, the state exact.
    pub verdicts: &'static [(&'static str, &'static str, &'static [&'static str])],
    /// A shell check run right after it in its shell (what it wrote): must exit 0.
    pub check: Option<&'static str>,
    /// The longest it may take, seconds.
    pub limit_s: u64,
}

/// The defaults: exit status 0, nothing else, 60 s.
pub const E: Expect = Expect {
    doc: "",
    command: "",
    status: 0,
    lines: &[],
    verdicts: &[],
    check: None,
    limit_s: 60,
};

/// A burn-in of loop devices: the path check alone is 8 s a drive and 8 s together.
pub const BURN_IN_S: u64 = 300;

/// What the commands must do. A command without an entry must exit 0.
pub const EXPECT: &[Expect] = &[
    Expect {
        doc: "README.md",
        command: "seekprobe --burn-in -w --qualify --parallel /dev/sd[b-e] --resume",
        lines: &["[..]resumed[..]"],
        verdicts: &[("{dev1}", "PASS[..]", &[]), ("{dev2}", "PASS[..]", &[])],
        limit_s: BURN_IN_S,
        ..E
    },
    Expect {
        doc: "README.md",
        command: "seekprobe plan burnin.json --layout raidz2:6 --spares 1",
        lines: &[
            "zpool create -o ashift=12 tank \\",
            "Plan: raidz2:6 for zpool, 13 of the 14 drives in burnin.json (12 in 2 vdevs, 1 spare); nothing was run",
        ],
        ..E
    },
    Expect {
        doc: "docs/plan.md",
        command: "seekprobe --burn-in -w --yes --qualify --parallel --json-file burnin.json",
        status: 3,
        limit_s: BURN_IN_S,
        ..E
    },
    Expect {
        doc: "docs/plan.md",
        command: "seekprobe plan burnin.json --layout mirror",
        status: 3,
        lines: &["No pool: mirror:2 takes 2 drives a vdev, and 1 drive can join the pool."],
        ..E
    },
    Expect {
        doc: "docs/plan.md",
        command: "seekprobe -t --verify --end 16M -w --yes --qualify --path-check --json-file batch.json",
        status: 3,
        ..E
    },
    Expect {
        doc: "README.md",
        command: "cargo run --release -- -ctv sim:hdd",
        lines: &[
            "\tSIMH4F857   \t# Disk ident.",
            "I/O command overhead:",
            "\tcalculated command overhead\t\t\t=    0.060 msec/sector",
            "Seek times:",
            "Transfer rates:",
        ],
        ..E
    },
    Expect {
        doc: "README.md",
        command: "cargo run --release -- --burn-in -w --yes --qualify --parallel",
        status: 3,
        verdicts: &[
            ("sim:hdd?size=64M", "PASS", &[]),
            (
                "sim:hdd?size=64M&corrupt=5000-5004",
                "FAIL",
                &["verify: corrupt: sectors 5000-5003 (4)"],
            ),
            (
                "sim:ssd?size=64M&fake=16M",
                "FAIL",
                &[
                    "capacity check: stores only the first 16.0 MiB of the 64.0 MiB it reports[..](a fake drive)",
                ],
            ),
        ],
        ..E
    },
    Expect {
        doc: "README.md",
        command: "seekprobe -tv /dev/sdb",
        lines: &[
            "{dev1}",
            "Seek times:",
            "\tFull stroke:\t  250 iter in [..] msec",
            "\tinside: [..] kbytes/sec",
        ],
        ..E
    },
    Expect {
        doc: "README.md",
        command: "seekprobe -ctv da0",
        lines: &[
            "\tloop        \t# Attachment",
            "calculated command overhead",
            "Transfer rates:",
        ],
        ..E
    },
    Expect {
        doc: "README.md",
        command: "seekprobe /dev/sda /dev/sdb",
        lines: &[
            "{dev3}\t512\t67108864\t131072\t0\t0",
            "{dev1}\t512\t67108864\t131072\t0\t0",
        ],
        ..E
    },
    Expect {
        doc: "README.md",
        command: "seekprobe -v disk.img",
        lines: &[
            "disk.img",
            "\t512         \t# sectorsize",
            "\t1073741824  \t# mediasize in bytes (1.0G)",
        ],
        ..E
    },
    Expect {
        doc: "README.md",
        command: "seekprobe -t --qualify --parallel --json-file batch.json /dev/sdb /dev/sdc /dev/sdd",
        lines: &[
            "Qualification:",
            "\t{dev1}: PASS",
            "\t{dev2}: PASS",
            "\t{dev3}: PASS",
        ],
        check: Some("test -s batch.json"),
        ..E
    },
    Expect {
        doc: "README.md",
        command: "cargo run -- -t --qualify sim:hdd 'sim:hdd?seed=2' 'sim:hdd?seed=3' 'sim:hdd?seed=4&slow=0-409600:5'",
        status: 3,
        ..E
    },
    Expect {
        doc: "README.md",
        command: "seekprobe --burn-in -w --qualify --parallel --json-file burnin.json /dev/sd[b-e]",
        verdicts: &[("{dev1}", "PASS[..]", &[]), ("{dev2}", "PASS[..]", &[])],
        check: Some("test -s burnin.json"),
        limit_s: BURN_IN_S,
        ..E
    },
    Expect {
        doc: "README.md",
        command: "--json-file burnin.json /dev/sd[b-e] --resume burnin.json",
        lines: &["[..]resumed[..]"],
        verdicts: &[("{dev1}", "PASS[..]", &[]), ("{dev2}", "PASS[..]", &[])],
        limit_s: BURN_IN_S,
        ..E
    },
    Expect {
        doc: "README.md",
        command: "seekprobe report burnin.json -o batch.html",
        check: Some("grep -q 'sim:ssd?size=64M' batch.html"),
        ..E
    },
    Expect {
        doc: "README.md",
        command: "seekprobe --burn-in -w --json-file b.json --html batch.html /dev/sd[b-e]",
        verdicts: &[("{dev1}", "PASS[..]", &[]), ("{dev2}", "PASS[..]", &[])],
        check: Some("test -s b.json && grep -q '{dev1}' batch.html && grep -q '{dev2}' batch.html"),
        limit_s: BURN_IN_S,
        ..E
    },
    Expect {
        doc: "docs/fleet.md",
        command: "--json-file \"$(hostname)\".json /dev/sd[b-y]",
        lines: &[
            "{dev1}",
            "{dev2}",
            "Zone transfer curve (100 samples of 655 KiB):",
        ],
        check: Some("test -s \"$(hostname)\".json"),
        ..E
    },
    Expect {
        doc: "docs/fleet.md",
        command: "seekprobe compare --qualify results/*/*.json",
        status: 3,
        lines: &[
            "\tstorage01:sim:hdd: PASS",
            "\tstorage02:sim:hdd?slow=0-409600:5&seed=4: FAIL",
            "\t\tSeq outer (ms): 5.071 is 6993.0% worse than the group median 0.0715 (tolerance 15%)",
        ],
        ..E
    },
    Expect {
        doc: "docs/fleet.md",
        command: "seekprobe compare --qualify --json results/*/*.json",
        status: 3,
        lines: &["\"schema_version\": 1", "\"state\": \"fail\""],
        ..E
    },
    Expect {
        doc: "docs/fleet.md",
        command: "--prometheus /var/lib/prometheus/node-exporter/seekprobe.prom",
        check: Some(
            "test -s /var/lib/seekprobe/last.json && grep -q '^seekprobe_qualification_passed' /var/lib/prometheus/node-exporter/seekprobe.prom",
        ),
        ..E
    },
    Expect {
        doc: "docs/history.md",
        command: "seekprobe history",
        lines: &["ZL2ABC12"],
        ..E
    },
    Expect {
        doc: "docs/history.md",
        command: "seekprobe history ZL2ABC12",
        lines: &["[..]PASS[..]"],
        ..E
    },
    Expect {
        doc: "docs/history.md",
        command: "seekprobe history --format json",
        lines: &["\"serial\": \"ZL2ABC12\""],
        ..E
    },
    Expect {
        doc: "docs/history.md",
        command: "seekprobe history import host1.json host2.db ...",
        lines: &["[..]imported[..]"],
        check: Some("seekprobe history --format json | grep -q '\"serial\": \"ZL2XYZ34\"'"),
        ..E
    },
    Expect {
        doc: "docs/history.md",
        command: "sqlite3 /var/lib/seekprobe/history.db \".backup /backup/history.db\"",
        check: Some("sqlite3 backup/history.db 'SELECT serial FROM drives' | grep -q ZL2ABC12"),
        ..E
    },
    Expect {
        doc: "docs/report.md",
        command: "seekprobe report RUN.json... -o report.html",
        check: Some("grep -q 'sim:hdd?seed=2' report.html"),
        ..E
    },
    Expect {
        doc: "docs/report.md",
        command: "seekprobe --burn-in -w --json-file b.json --html report.html DISK...",
        verdicts: &[("{dev1}", "PASS[..]", &[])],
        check: Some("grep -q '{dev1}' report.html"),
        limit_s: BURN_IN_S,
        ..E
    },
    Expect {
        doc: "docs/sim.md",
        command: "seekprobe -tv sim:hdd",
        lines: &["\tFull stroke:\t  250 iter in   5.544012 sec =   22.176 msec"],
        ..E
    },
    Expect {
        doc: "docs/sim.md",
        command: "seekprobe -cv 'sim:hdd?rpm=5400&seed=7'",
        lines: &[
            "\t5400        \t# Rotation rate in RPM",
            "calculated command overhead",
        ],
        ..E
    },
    Expect {
        doc: "docs/sim.md",
        command: "seekprobe -tv 'sim:ssd?size=64G&bad=1000-1008'",
        // Its sectors 1000-1007 are unreadable: -t's reads at the start meet them.
        status: 1,
        lines: &["Seq outer: I/O error at byte offset 512000[..]"],
        ..E
    },
    Expect {
        doc: "docs/testing.md",
        command: "cargo build --example faultdisk",
        limit_s: 600,
        ..E
    },
    Expect {
        doc: "docs/testing.md",
        command: "seekprobe --scan \"$dev\"",
        status: 1,
        lines: &["unreadable: sectors 196608-2097151"],
        limit_s: 120,
        ..E
    },
    Expect {
        doc: "docs/testing.md",
        command: "cat /tmp/fd/stats",
        lines: &["\"reads\""],
        ..E
    },
];

/// Commands that fail today because of a defect being fixed: each runs and is
/// checked like any other; its failure is shown, not counted as one. Once one passes
/// the harness fails until its line is removed. Empty: (doc, command, the defect).
pub const PENDING_FIXES: &[(&str, &str, &str)] = &[];

/// Two runs saved on other hosts of real drives, for the history's examples:
/// host1.json (drive ZL2ABC12, whose SMART shows 3 UDMA CRC errors: a `smart`
/// finding to acknowledge) and host2.db, a history database holding host2's drive
/// ZL2XYZ34. The figures are a simulated drive's; the identity is rewritten as a
/// real drive's, since the default history database takes only real drives.
fn real_drive_runs(dir: &Path) {
    let sim = dir.join("sim.json");
    for (serial, file) in [("ZL2ABC12", "host1.json"), ("ZL2XYZ34", "host2.json")] {
        let (code, _, err) = crate::helpers::run(&[
            "-t",
            "--smart",
            "--qualify",
            "--no-history",
            "--json-file",
            sim.to_str().unwrap(),
            "sim:hdd?crc=3",
        ]);
        assert_eq!(code, 0, "{err}");
        let mut run: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&sim).unwrap()).unwrap();
        let disk = &mut run["disks"][0];
        disk["name"] = "/dev/sdb".into();
        disk["warnings"] = serde_json::json!([]);
        let info = &mut disk["info"];
        for (k, v) in [
            ("name", "/dev/sdb"),
            ("path", "/dev/sdb"),
            ("kind", "disk"),
            ("descr", "ST2000DM001-1CH164"),
            ("ident", serial),
            ("attachment", "ATA"),
            ("io_mode", "direct"),
        ] {
            info[k] = v.into();
        }
        info["simulated"] = serde_json::Value::Null;
        std::fs::write(dir.join(file), run.to_string()).unwrap();
    }
    let host2 = dir.join("host2.db");
    let (code, _, err) = crate::helpers::run(&[
        "history",
        "import",
        "--history",
        host2.to_str().unwrap(),
        dir.join("host2.json").to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
}
