//! Tells the integration tests which outside tools are present, so that a test
//! needing one is reported as ignored (not passed) where the tool is missing:
//! `promtool` (Debian's prometheus package) and `ansible-playbook` (ansible-core,
//! which .ci/run installs in /opt/seekprobe-ansible). Nothing here affects the
//! program itself.

use std::path::{Path, PathBuf};

/// The venv .ci/run installs ansible-core into.
const ANSIBLE_VENV: &str = "/opt/seekprobe-ansible/bin";

fn on_path(tool: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(tool))
        .find(|p| p.is_file())
}

fn main() {
    println!("cargo::rustc-check-cfg=cfg(seekprobe_no_promtool)");
    println!("cargo::rustc-check-cfg=cfg(seekprobe_no_ansible)");
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-env-changed=PATH");
    // Installing either tool changes one of these directories.
    for dir in ["/usr/bin", "/opt", ANSIBLE_VENV] {
        if Path::new(dir).is_dir() {
            println!("cargo::rerun-if-changed={dir}");
        }
    }
    if on_path("promtool").is_none() {
        println!("cargo::rustc-cfg=seekprobe_no_promtool");
    }
    let venv = Path::new(ANSIBLE_VENV).join("ansible-playbook");
    if !venv.is_file() && on_path("ansible-playbook").is_none() {
        println!("cargo::rustc-cfg=seekprobe_no_ansible");
    }
}
