//! The record's SSH signature (docs/record.md), checked against OpenSSH itself: a
//! burn-in of the README's simulated batch signed as it ends (`--sign-key`) is
//! accepted by `ssh-keygen -Y verify` and by `seekprobe verify-record`; a verdict
//! edited by hand, a key not among the allowed signers, another namespace and no
//! signature at all are refused by both, each named; a signature ssh-keygen made is
//! accepted by seekprobe; a key whose file is encrypted signs through a real
//! ssh-agent; the report's page says signed, unsigned or tampered, in Chromium.

use crate::helpers::openssh_tests;
use crate::helpers::{scratch_dir, seekprobe};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

/// The README's simulated batch, smaller (a debug build stamps every byte of the
/// write-verify pass): a PASS, 4 corrupt sectors (FAIL), a fake drive (FAIL).
const BATCH: [(&str, &str); 3] = [
    ("sim:hdd?size=64M", "PASS"),
    ("sim:hdd?size=64M&corrupt=5000-5004", "FAIL"),
    ("sim:ssd?size=64M&fake=16M", "FAIL"),
];

/// The signer's identity in the allowed_signers file.
const SELLER: &str = "seller@example.com";

/// A signed burn-in, once for the tests of this file.
struct Signed {
    dir: tempfile::TempDir,
    /// The run file; its signature is `run.json.sig`.
    json: PathBuf,
    /// The key it was signed with (`id_ed25519`, `.pub` beside it).
    key: PathBuf,
    /// allowed_signers naming [`SELLER`] with the key.
    allowed: PathBuf,
}

/// `program args`, its exit status and output (standard input closed).
fn tool(program: &str, args: &[&str], dir: &Path) -> Output {
    Command::new(program)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("{program}: {e}"))
}

/// A fresh ed25519 key without a passphrase, `name` and `name.pub` in `dir`.
fn new_key(dir: &Path, name: &str, passphrase: &str) -> PathBuf {
    let out = tool(
        "ssh-keygen",
        &[
            "-q", "-t", "ed25519", "-N", passphrase, "-C", SELLER, "-f", name,
        ],
        dir,
    );
    assert!(out.status.success(), "{out:?}");
    dir.join(name)
}

/// The key's fingerprint as `ssh-keygen -l` prints it.
fn fingerprint(key: &Path) -> String {
    let out = tool(
        "ssh-keygen",
        &["-l", "-f", key.to_str().unwrap()],
        Path::new("/"),
    );
    let text = String::from_utf8(out.stdout).unwrap();
    text.split_whitespace().nth(1).unwrap().to_string()
}

/// `ssh-keygen -Y verify` of `json` by [`SELLER`], `json.sig` beside it: its status.
fn openssh_verifies(s: &Signed, json: &Path) -> bool {
    let out = Command::new("ssh-keygen")
        .args(["-Y", "verify", "-n", "seekprobe-record", "-I", SELLER, "-f"])
        .arg(&s.allowed)
        .arg("-s")
        .arg(sig_of(json))
        .stdin(std::fs::File::open(json).unwrap())
        .output()
        .unwrap();
    eprintln!("ssh-keygen -Y verify {}: {out:?}", json.display());
    out.status.success()
}

fn sig_of(json: &Path) -> PathBuf {
    PathBuf::from(format!("{}.sig", json.display()))
}

/// `seekprobe verify-record json` (with the allowed signers when `allowed`).
fn verify_record(s: &Signed, json: &Path, allowed: bool) -> (i32, String, String) {
    let mut cmd = seekprobe();
    cmd.arg("verify-record").arg(json);
    if allowed {
        cmd.arg("--allowed-signers").arg(&s.allowed);
    }
    let out = cmd.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn signed() -> &'static Signed {
    static RUN: OnceLock<Signed> = OnceLock::new();
    RUN.get_or_init(|| {
        let dir = scratch_dir();
        let key = new_key(dir.path(), "id_ed25519", "");
        let allowed = dir.path().join("allowed_signers");
        let public = std::fs::read_to_string(dir.path().join("id_ed25519.pub")).unwrap();
        std::fs::write(&allowed, format!("{SELLER} {public}")).unwrap();
        let json = dir.path().join("run.json");
        let out = seekprobe()
            .args(["--burn-in", "-w", "--yes", "--qualify", "--parallel", "-q"])
            .args(["--zones=20", "--json-file"])
            .arg(&json)
            .arg("--sign-key")
            .arg(&key)
            .args(BATCH.map(|b| b.0))
            .env_remove("SSH_AUTH_SOCK")
            .output()
            .unwrap();
        // Two drives fail: exit status 3, and the record is signed all the same.
        assert_eq!(out.status.code(), Some(3), "{out:?}");
        Signed {
            dir,
            json,
            key,
            allowed,
        }
    })
}

openssh_tests! {
    fn a_signed_burn_in_is_accepted_by_ssh_keygen_and_verify_record_refuses_a_changed_verdict() {
        let s = signed();
        let key = fingerprint(&s.key);
        assert!(openssh_verifies(s, &s.json));
        let (code, out, err) = verify_record(s, &s.json, true);
        assert_eq!(code, 0, "{out}{err}");
        assert!(
            out.starts_with(&format!(
                "{}: signed by {SELLER} ({key}), an allowed signer: the signature holds\n",
                s.json.display()
            )),
            "{out}"
        );
        for (drive, verdict) in BATCH {
            assert!(out.contains(&format!("\n  {drive}: {verdict}")), "{out}");
        }
        for part in [
            "  host: ",
            "  tool: seekprobe ",
            "  command: ",
            "  started: ",
            "  ended: ",
        ] {
            assert!(out.contains(part), "{part}: {out}");
        }
        assert!(out.contains("model Simulated SATA SSD, serial "), "{out}");
        // The same record with one verdict edited by hand: refused by both.
        let edited = s.dir.path().join("edited.json");
        let text = std::fs::read_to_string(&s.json).unwrap();
        let at = text.find("\"state\": \"fail\"").expect("a failing verdict");
        let text = format!("{}\"state\": \"pass\"{}", &text[..at], &text[at + 15..]);
        std::fs::write(&edited, text).unwrap();
        std::fs::copy(sig_of(&s.json), sig_of(&edited)).unwrap();
        assert!(!openssh_verifies(s, &edited));
        let (code, out, err) = verify_record(s, &edited, true);
        assert_eq!(code, 1, "{out}{err}");
        assert!(out.is_empty(), "{out}");
        assert!(
            err.contains(&format!(
                "refused: the signature by {key} does not hold: the record was changed after it was signed"
            )),
            "{err}"
        );
    }

    fn another_key_another_namespace_or_none_is_refused_and_ssh_keygen_s_signature_accepted() {
        let s = signed();
        let dir = scratch_dir();
        let json = dir.path().join("copy.json");
        std::fs::copy(&s.json, &json).unwrap();
        let json_arg = json.to_str().unwrap();
        // No signature.
        let (code, _, err) = verify_record(s, &json, true);
        assert_eq!(code, 1);
        assert!(err.contains("refused: unsigned: no signature"), "{err}");
        // A key not among the allowed signers, named by its fingerprint.
        let other = new_key(dir.path(), "other", "");
        seekprobe()
            .args(["sign", json_arg, "--key"])
            .arg(&other)
            .env_remove("SSH_AUTH_SOCK")
            .assert()
            .success();
        assert!(!openssh_verifies(s, &json));
        let (code, _, err) = verify_record(s, &json, true);
        assert_eq!(code, 1);
        assert!(
            err.contains(&format!(
                "refused: signed by {}, a key that is not among the allowed signers of {}",
                fingerprint(&other),
                s.allowed.display()
            )),
            "{err}"
        );
        // ssh-keygen's own signature with the seller's key, read by seekprobe; and
        // ssh-keygen's check of seekprobe's signature without an allowed_signers file.
        std::fs::remove_file(sig_of(&json)).unwrap();
        let key = s.key.to_str().unwrap();
        let made = tool(
            "ssh-keygen",
            &["-Y", "sign", "-f", key, "-n", "seekprobe-record", json_arg],
            Path::new("/"),
        );
        assert!(made.status.success(), "{made:?}");
        let (code, out, err) = verify_record(s, &json, true);
        assert_eq!(code, 0, "{out}{err}");
        assert!(out.contains(&format!("signed by {SELLER} (")), "{out}");
        // Without the allowed signers the record is shown, not accepted: any key's
        // signature holds, a forger's too.
        let (code, out, err) = verify_record(s, &json, false);
        assert_eq!(code, 1, "{out}{err}");
        assert!(
            out.contains(&format!("signed by {}", fingerprint(&s.key))),
            "{out}"
        );
        assert!(
            err.contains("not accepted: no --allowed-signers file says whether SHA256:"),
            "{err}"
        );
        // Another namespace: ssh-keygen's `file` signature.
        std::fs::remove_file(sig_of(&json)).unwrap();
        let made = tool(
            "ssh-keygen",
            &["-Y", "sign", "-f", key, "-n", "file", json_arg],
            Path::new("/"),
        );
        assert!(made.status.success(), "{made:?}");
        let (code, _, err) = verify_record(s, &json, false);
        assert_eq!(code, 1);
        assert!(
            err.contains("it was made in the namespace \"file\", not \"seekprobe-record\""),
            "{err}"
        );
        let check = Command::new("ssh-keygen")
            .args(["-Y", "check-novalidate", "-n", "seekprobe-record", "-s"])
            .arg(sig_of(&s.json))
            .stdin(std::fs::File::open(&s.json).unwrap())
            .output()
            .unwrap();
        assert!(check.status.success(), "{check:?}");
    }
}

/// An ssh-agent started for a test (`ssh-agent -D -a SOCKET`), killed on drop.
struct AgentProcess {
    child: std::process::Child,
    socket: PathBuf,
}

impl AgentProcess {
    fn start(dir: &Path) -> AgentProcess {
        let socket = dir.join("agent.sock");
        let mut child = Command::new("ssh-agent")
            .arg("-D")
            .arg("-a")
            .arg(&socket)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        crate::helpers::wait_for(
            "ssh-agent's socket",
            std::time::Duration::from_millis(20),
            || socket.exists().then_some(()),
            || (child.try_wait().ok().flatten()).map(|s| format!("ssh-agent ended: {s}")),
            String::new,
        );
        AgentProcess { child, socket }
    }
}

impl Drop for AgentProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

openssh_tests! {
    fn an_ssh_agent_signs_with_a_key_whose_file_has_a_passphrase() {
        let s = signed();
        let dir = scratch_dir();
        let json = dir.path().join("agent.json");
        std::fs::copy(&s.json, &json).unwrap();
        let key = new_key(dir.path(), "enc", "a passphrase");
        let agent = AgentProcess::start(dir.path());
        let sign = || {
            seekprobe()
                .args(["sign", json.to_str().unwrap(), "--key"])
                .arg(&key)
                .env("SSH_AUTH_SOCK", &agent.socket)
                .output()
                .unwrap()
        };
        // The agent does not hold it yet: refused, saying what to do.
        let out = sign();
        assert_eq!(out.status.code(), Some(1), "{out:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("protected by a passphrase, and the ssh-agent at") && err.contains("ssh-add"),
            "{err}"
        );
        // ssh-add reads the passphrase from SSH_ASKPASS.
        let askpass = dir.path().join("askpass");
        std::fs::write(&askpass, "#!/bin/sh\necho 'a passphrase'\n").unwrap();
        std::fs::set_permissions(
            &askpass,
            std::os::unix::fs::PermissionsExt::from_mode(0o700),
        )
        .unwrap();
        let added = Command::new("ssh-add")
            .arg(&key)
            .env("SSH_AUTH_SOCK", &agent.socket)
            .env("SSH_ASKPASS", &askpass)
            .env("SSH_ASKPASS_REQUIRE", "force")
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(added.status.success(), "{added:?}");
        let out = sign();
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        let said = String::from_utf8_lossy(&out.stdout);
        assert!(
            said.contains(&format!(
                "signed by {} (the ssh-agent at ",
                fingerprint(&key)
            )),
            "{said}"
        );
        drop(agent);
        let public = std::fs::read_to_string(dir.path().join("enc.pub")).unwrap();
        let allowed = dir.path().join("allowed");
        std::fs::write(&allowed, format!("{SELLER} {public}")).unwrap();
        let ok = Command::new("ssh-keygen")
            .args(["-Y", "verify", "-n", "seekprobe-record", "-I", SELLER, "-f"])
            .arg(&allowed)
            .arg("-s")
            .arg(sig_of(&json))
            .stdin(std::fs::File::open(&json).unwrap())
            .output()
            .unwrap();
        assert!(ok.status.success(), "{ok:?}");
    }
}

#[test]
#[cfg_attr(
    any(seekprobe_no_openssh, seekprobe_no_chromium),
    ignore = "ssh-keygen or chromium is missing (Debian's openssh-client and chromium; .ci/run installs them)"
)]
fn the_report_shows_a_signed_an_unsigned_and_a_tampered_record_in_chromium() {
    let s = signed();
    let dir = scratch_dir();
    let key = fingerprint(&s.key);
    let copy = |name: &str, edit: fn(String) -> String, sig: bool| {
        let json = dir.path().join(name);
        std::fs::write(&json, edit(std::fs::read_to_string(&s.json).unwrap())).unwrap();
        if sig {
            std::fs::copy(sig_of(&s.json), sig_of(&json)).unwrap();
        }
        json
    };
    let cases = [
        (
            copy("signed.json", |t| t, true),
            format!("signed by {SELLER} ({key}), an allowed signer: the signature holds"),
        ),
        (copy("unsigned.json", |t| t, false), "unsigned".to_string()),
        (
            copy(
                "tampered.json",
                |t| t.replacen("\"state\": \"fail\"", "\"state\": \"pass\"", 1),
                true,
            ),
            format!(
                "signature does not hold: the signature by {key} does not hold: the record was changed after it was signed"
            ),
        ),
    ];
    let tags = regex::Regex::new("<[^>]+>").unwrap();
    for (json, says) in &cases {
        let page = json.with_extension("html");
        let out = seekprobe()
            .arg("report")
            .arg(json)
            .arg("-o")
            .arg(&page)
            .arg("--allowed-signers")
            .arg(&s.allowed)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        let (dom, _) = crate::report::chromium(&page, &["--dump-dom"]);
        let cell = dom
            .split("<td class=\"seal ")
            .nth(1)
            .unwrap_or_else(|| panic!("no signature cell in {}", page.display()));
        let cell = &cell[..cell.find("</td>").unwrap()];
        let text = tags.replace_all(cell, "");
        assert!(text.contains(says.as_str()), "{text}");
        assert!(!text.contains("signed: signed"), "{text}");
        // A tampered record is also said at the top of the page.
        let notice =
            (dom.find("⚠ The record ")).map(|at| dom[at..].chars().take(200).collect::<String>());
        assert_eq!(
            notice.is_some(),
            json.ends_with("tampered.json"),
            "{notice:?}"
        );
        if let Some(n) = notice {
            assert!(n.contains("does not hold: the record was changed"), "{n}");
        }
    }
}

#[test]
#[cfg_attr(
    any(seekprobe_no_openssh, seekprobe_no_ansible),
    ignore = "ssh-keygen or ansible-playbook is missing (.ci/run installs openssh-client and ansible-core)"
)]
fn the_fleet_playbook_signs_each_host_s_record_and_checks_it_on_the_controller() {
    let s = signed();
    let dir = scratch_dir();
    let key = format!("seekprobe_sign_key={}", s.key.display());
    let allowed = format!("seekprobe_allowed_signers={}", s.allowed.display());
    let (code, text) = crate::fleet::run_playbook(
        dir.path(),
        &["sim:hdd?seed=5"],
        &["sim:hdd?seed=6"],
        &["-e", &key, "-e", &allowed],
    );
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains("Check the signed record on the controller"),
        "{text}"
    );
    for host in ["host1", "host2"] {
        let run = dir.path().join(format!("results/{host}/{host}.json"));
        assert!(openssh_verifies(s, &run), "{text}");
    }
}

openssh_tests! {
    fn a_signed_run_says_where_its_signature_is_and_an_unsigned_one_names_the_file_it_lacks() {
        let dir = scratch_dir();
        let key = new_key(dir.path(), "id_ed25519", "");
        let json = dir.path().join("batch.json");
        let run = |quiet: bool| {
            let mut cmd = seekprobe();
            cmd.args(["-t", "--qualify", "--json-file"]).arg(&json);
            if quiet {
                cmd.arg("-q");
            }
            let out = cmd
                .arg("--sign-key")
                .arg(&key)
                .arg("sim:hdd?size=64M")
                .env_remove("SSH_AUTH_SOCK")
                .output()
                .unwrap();
            assert_eq!(out.status.code(), Some(0), "{out:?}");
            String::from_utf8_lossy(&out.stderr).into_owned()
        };
        let err = run(false);
        assert!(
            err.contains(&format!(
                "seekprobe: {} signed by {} (the key file): its signature is {}\n",
                json.display(),
                fingerprint(&key),
                sig_of(&json).display()
            )),
            "{err}"
        );
        // Run again into the signed file (quiet): the signed record it replaces is said,
        // even under -q, and the new run is signed in its place.
        let err = run(true);
        assert!(!err.contains("its signature is"), "{err}");
        assert!(
            err.contains(&format!(
                "seekprobe: {} holds a signed run ({}); this run replaces it and removes that signature",
                json.display(),
                sig_of(&json).display()
            )),
            "{err}"
        );
        // Unsigned: the signature file it lacks, by its own name.
        std::fs::remove_file(sig_of(&json)).unwrap();
        let out = seekprobe().arg("render").arg(&json).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&format!(
                "unsigned: no signature file {} beside it",
                sig_of(&json).display()
            )),
            "{err}"
        );
        assert!(!err.contains("RUN.json"), "{err}");
    }
}

openssh_tests! {
    fn a_signed_run_kept_aside_by_new_run_keeps_its_signature_and_a_refused_run_says_nothing_of_it() {
        let s = signed();
        let dir = scratch_dir();
        let json = dir.path().join("run.json");
        std::fs::copy(&s.json, &json).unwrap();
        std::fs::copy(sig_of(&s.json), sig_of(&json)).unwrap();
        let burn_in = |new_run: bool| {
            let mut cmd = seekprobe();
            cmd.args(["--burn-in", "-w", "--yes", "-q", "--zones=20", "--json-file"]);
            cmd.arg(&json);
            if new_run {
                cmd.arg("--new-run");
            }
            let out = cmd.arg(BATCH[0].0).output().unwrap();
            (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
        };
        // A finished burn-in is not written over: nothing is replaced, nor said to be.
        let (code, err) = burn_in(false);
        assert_eq!(code, Some(1), "{err}");
        assert!(!err.contains("holds a signed run"), "{err}");
        assert!(sig_of(&json).is_file());
        // --new-run keeps the signed run aside, its signature with it, still holding.
        let (code, err) = burn_in(true);
        assert_eq!(code, Some(0), "{err}");
        assert!(!err.contains("holds a signed run"), "{err}");
        let kept = dir.path().join("run.json.old-1");
        assert!(sig_of(&kept).is_file(), "{err}");
        assert!(!sig_of(&json).exists());
        let (code, out, err) = verify_record(s, &kept, true);
        assert_eq!(code, 0, "{out}{err}");
    }
}
