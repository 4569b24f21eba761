//! seekprobe as its users install it (issue 59): the Debian package made by
//! cargo-deb from the release build, its man page and completions held to what
//! the sources generate, its contents and lintian's
//! verdict, then `apt-get install` in a throwaway root (tests/it/throwaway.rs)
//! where it runs from /usr/bin, `man` finds its page, bash completes its
//! subcommands and `apt-get remove` leaves none of its files; the crate as `cargo
//! package` makes it; and `--version` naming the commit built from.

use crate::helpers::{Finish, run};
use crate::throwaway::ThrowawayRoot;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::{Duration, Instant, SystemTime};

/// The files a user of the package relies on.
const SHIPPED: [&str; 8] = [
    "/usr/bin/seekprobe",
    "/usr/share/man/man1/seekprobe.1.gz",
    "/usr/share/bash-completion/completions/seekprobe",
    "/usr/share/zsh/vendor-completions/_seekprobe",
    "/usr/share/fish/vendor_completions.d/seekprobe.fish",
    "/usr/share/doc/seekprobe/copyright",
    "/usr/share/doc/seekprobe/README.md",
    "/usr/share/doc/seekprobe/docs/methods.md",
];

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A command's standard output, asserting it succeeded.
fn stdout_of(cmd: &mut Command) -> String {
    cmd.current_dir(repo()).stdout_of_success()
}

/// The newest modification time among what the release binary is built from:
/// src/ (its folders and every file in them), build.rs and Cargo.lock (not
/// Cargo.toml, whose package metadata an edit of [package.metadata.deb] changes
/// without changing the binary).
fn newest_source() -> SystemTime {
    let src = crate::source_tree::entries("src").into_values();
    [
        repo().join("src"),
        repo().join("build.rs"),
        repo().join("Cargo.lock"),
    ]
    .into_iter()
    .chain(src)
    .map(|p| std::fs::metadata(&p).and_then(|m| m.modified()).unwrap())
    .max()
    .unwrap()
}

/// The .deb, made once per test run by `cargo deb --no-build` from the release
/// build already there (README.md's `cargo deb` makes that build first; so does
/// .ci/run): no release build inside the tests. It fails when that build is
/// missing or older than the sources, rather than packaging a stale binary or
/// building one behind the tests' back (minutes under load).
pub fn deb() -> &'static Path {
    static DEB: OnceLock<PathBuf> = OnceLock::new();
    DEB.get_or_init(|| {
        let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
        assert!(
            readme.lines().any(|l| l.starts_with("cargo deb --locked")),
            "README.md's Install section gives `cargo deb --locked` on a line of its own"
        );
        let bin = repo().join("target/release/seekprobe");
        let built = std::fs::metadata(&bin).and_then(|m| m.modified());
        assert!(
            built.as_ref().is_ok_and(|t| *t >= newest_source()),
            "{} is missing or older than the sources: run `cargo build --release --locked` \
             (or README.md's `cargo deb --locked`) before the tests",
            bin.display()
        );
        let t0 = Instant::now();
        stdout_of(Command::new(env!("CARGO")).args(["deb", "--no-build", "--locked", "--quiet"]));
        let arch = stdout_of(Command::new("dpkg").arg("--print-architecture"));
        let name = format!(
            "seekprobe_{}-1_{}.deb",
            env!("CARGO_PKG_VERSION"),
            arch.trim()
        );
        eprintln!(
            "package: {name} made in {:.1} s",
            t0.elapsed().as_secs_f64()
        );
        repo().join("target/debian").join(name)
    })
}

/// Every path the package installs (dpkg-deb -c), directories included.
fn contents(deb: &Path) -> Vec<String> {
    stdout_of(Command::new("dpkg-deb").arg("-c").arg(deb))
        .lines()
        .filter_map(|l| l.split_whitespace().last())
        .map(|p| p.trim_start_matches('.').trim_end_matches('/').to_string())
        .filter(|p| !p.is_empty())
        .collect()
}

/// The lintian tags of a severity (`E`, `W`) in lintian's report.
fn tags(report: &str, severity: &str) -> BTreeSet<String> {
    let prefix = format!("{severity}: seekprobe: ");
    report
        .lines()
        .filter_map(|l| l.strip_prefix(&prefix))
        .filter_map(|l| l.split_whitespace().next())
        .map(String::from)
        .collect()
}

/// The package holds what a user relies on, and names its dependencies.
fn holds_what_it_should(deb: &Path, paths: &[String]) {
    for p in SHIPPED {
        assert!(paths.iter().any(|x| x == p), "{p} not in {paths:?}");
    }
    let field = |f: &str| stdout_of(Command::new("dpkg-deb").arg("-f").arg(deb).arg(f));
    let depends = field("Depends");
    assert!(
        depends.split(',').any(|d| d.trim() == "libblkid1"),
        "{depends}"
    );
    assert_eq!(field("Recommends").trim(), "smartmontools");
}

/// lintian finds no error, and each warning it leaves is explained in Cargo.toml's
/// [package.metadata.deb] comments.
fn lintian_finds_no_error(deb: &Path) {
    let (code, report, err) = Command::new("lintian").arg(deb).outcome();
    assert!(
        code == 0 && tags(&report, "E").is_empty(),
        "lintian: exit status {code}:\n{report}{err}"
    );
    let manifest = std::fs::read_to_string(repo().join("Cargo.toml")).unwrap();
    let comments: Vec<&str> = manifest
        .lines()
        .filter(|l| l.trim_start().starts_with('#'))
        .collect();
    for tag in tags(&report, "W") {
        assert!(
            comments.iter().any(|c| c.contains(&tag)),
            "lintian warns {tag}, which no comment of Cargo.toml explains:\n{report}"
        );
    }
}

/// Which of `paths` exist in the root.
fn existing(root: &ThrowawayRoot, paths: &[String]) -> BTreeSet<String> {
    let (code, out) = root.sh(&format!(
        "for p in {}; do [ -e \"$p\" ] && echo \"$p\"; done; true",
        paths.join(" ")
    ));
    assert_eq!(code, 0, "{out}");
    out.lines().map(String::from).collect()
}

/// Type `seekprobe pl<TAB>` into a login bash in tmux in the root (bash-completion
/// loads the package's completion on first use); the screen once it shows
/// `seekprobe plan`, or after 20 s.
fn bash_completes(root: &ThrowawayRoot) -> String {
    let tmux = |args: &[&str]| {
        root.command("tmux")
            .args(["-S", "/tmp/tmux.sock"])
            .args(args)
            .outcome()
    };
    let (code, _, err) = tmux(&[
        "new-session",
        "-d",
        "-x",
        "100",
        "-y",
        "10",
        "env HOME=/tmp bash --login",
    ]);
    assert_eq!(code, 0, "{err}");
    tmux(&["send-keys", "seekprobe pl", "Tab"]);
    let t0 = Instant::now();
    let mut screen = String::new();
    while t0.elapsed() < Duration::from_secs(20) {
        screen = tmux(&["capture-pane", "-p"]).1;
        if screen.contains("seekprobe plan") {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    tmux(&["kill-server"]);
    screen
}

/// `apt-get install ./seekprobe_*.deb` in a throwaway root: seekprobe runs from
/// /usr/bin, `man` finds its page, bash completes it; after `apt-get remove`, none
/// of its files is left.
fn installs_runs_completes_and_removes(deb: &Path, paths: &[String]) {
    let root = ThrowawayRoot::new();
    let name = deb.file_name().unwrap().to_string_lossy();
    std::fs::copy(deb, root.tmp().join(&*name)).unwrap();
    let before = existing(&root, paths);

    let (code, out) = root.sh(&format!(
        "apt-get install -y --no-install-recommends /tmp/{name}"
    ));
    assert_eq!(code, 0, "{out}");
    let (code, out) = root.sh("command -v seekprobe && seekprobe -ctv sim:hdd");
    assert_eq!(code, 0, "{out}");
    assert!(
        out.starts_with("/usr/bin/seekprobe\n") && out.contains("# sectorsize"),
        "{out}"
    );
    let built = stdout_of(Command::new(repo().join("target/release/seekprobe")).arg("--version"));
    assert_eq!(root.sh("seekprobe --version"), (0, built));
    let (code, out) = root.sh("man -w seekprobe");
    assert_eq!(
        (code, out.trim()),
        (0, "/usr/share/man/man1/seekprobe.1.gz")
    );
    let screen = bash_completes(&root);
    assert!(
        screen.contains("seekprobe plan"),
        "bash did not complete `seekprobe pl<TAB>` (is bash-completion installed?):\n{screen}"
    );

    let (code, out) = root.sh("apt-get remove -y seekprobe");
    assert_eq!(code, 0, "{out}");
    let left: Vec<String> = existing(&root, paths)
        .into_iter()
        .filter(|p| !before.contains(p))
        .collect();
    assert!(left.is_empty(), "left after apt-get remove: {left:?}");
}

#[test]
#[cfg_attr(
    not(all(
        seekprobe_loop,
        seekprobe_has_cargo_deb,
        seekprobe_has_lintian,
        seekprobe_has_tmux
    )),
    ignore = "needs root (build.rs's seekprobe_loop), cargo-deb, lintian and tmux; .ci/run installs them"
)]
fn the_debian_package_is_whole_lintian_clean_and_installs_runs_and_removes_cleanly() {
    let deb = deb();
    let paths = contents(deb);
    holds_what_it_should(deb, &paths);
    lintian_finds_no_error(deb);
    installs_runs_completes_and_removes(deb, &paths);
}

/// The man page and completions the package ships (packaging/generated, committed
/// so that `cargo deb` alone packages them) are byte for byte what the current
/// sources' `seekprobe generate` prints: they cannot go stale unnoticed.
#[test]
fn the_packaged_man_page_and_completions_are_what_seekprobe_generates() {
    for (what, file) in [
        ("man", "seekprobe.1"),
        ("bash", "seekprobe.bash"),
        ("zsh", "_seekprobe"),
        ("fish", "seekprobe.fish"),
    ] {
        let (code, generated, err) = run(&["generate", what]);
        assert_eq!(code, 0, "{err}");
        let path = repo().join("packaging/generated").join(file);
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            committed == generated,
            "{} differs from `seekprobe generate {what}`: run packaging/generate and commit",
            path.display()
        );
    }
}

#[test]
fn the_crate_leaves_out_tests_and_their_third_party_data_and_stays_under_10_mb() {
    let meta = stdout_of(Command::new(env!("CARGO")).args([
        "metadata",
        "--no-deps",
        "--offline",
        "--format-version",
        "1",
    ]));
    let meta: serde_json::Value = serde_json::from_str(&meta).unwrap();
    let pkg = &meta["packages"][0];
    for key in ["license", "description", "readme", "rust_version"] {
        assert!(pkg[key].is_string(), "Cargo.toml has no {key}");
    }
    for key in ["keywords", "categories"] {
        assert!(pkg[key].as_array().is_some_and(|a| !a.is_empty()), "{key}");
    }
    let package = ["package", "--locked", "--offline", "--allow-dirty"];
    let list = stdout_of(Command::new(env!("CARGO")).args(package).arg("--list"));
    let files: Vec<&str> = list.lines().collect();
    for needed in [
        "LICENSE-MIT",
        "LICENSE-APACHE",
        "README.md",
        "Cargo.lock",
        "build.rs",
    ] {
        assert!(files.contains(&needed), "{needed} not in the crate");
    }
    for left_out in ["tests/", "benches/", "examples/", "packaging/"] {
        assert!(
            !files.iter().any(|f| f.starts_with(left_out)),
            "{left_out} in the crate:\n{list}"
        );
    }
    stdout_of(Command::new(env!("CARGO")).args(package).arg("--no-verify"));
    let name = format!(
        "target/package/seekprobe-{}.crate",
        env!("CARGO_PKG_VERSION")
    );
    let size = std::fs::metadata(repo().join(name)).unwrap().len();
    assert!(size < 10 << 20, "the .crate is {size} bytes");
}

#[test]
fn version_names_the_version_and_the_commit_built_from() {
    let (code, out, _) = run(&["--version"]);
    assert_eq!(code, 0);
    let version = env!("CARGO_PKG_VERSION");
    let Some(commit) = option_env!("SEEKPROBE_COMMIT") else {
        assert_eq!(
            out,
            format!("seekprobe {version} (commit unknown: not built in its git checkout)\n")
        );
        return;
    };
    assert_eq!(out, format!("seekprobe {version} (commit {commit})\n"));
    // Built in this checkout, no commit given at build time: its HEAD.
    let head = Command::new("git")
        .args(["rev-parse", "HEAD"])
        .current_dir(repo())
        .output();
    if let Ok(h) = head
        && h.status.success()
        && std::env::var_os("SEEKPROBE_GIT_COMMIT").is_none()
    {
        assert_eq!(commit, String::from_utf8_lossy(&h.stdout).trim());
    }
}
