//! No side channels (issue 39): src/ outside test code declares no `static` but
//! those listed here, each with why it is there ([`ALLOWED`]); a `thread_local!`
//! cache is no side channel. The request limit, the stop flag and its signal, the
//! count of requests given up and smartctl's limit are passed as values
//! (`device::OpenOptions`, `device::Stop`, `smart::Smartctl`). And the `Target` trait is the I/O
//! contract alone: what only a simulated drive offers is `Simulated`'s, and a
//! queued pass's watch is handed to the engines, not asked of the target.

use std::path::Path;

/// The statics that stay: (file under src/, name, why).
const ALLOWED: &[(&str, &str, &str)] = &[(
    "safety/blkid.rs",
    "API",
    "libblkid, loaded once from the system at the first use",
)];

/// The `static` items of `code` outside `thread_local!` blocks: their names.
fn statics(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_thread_local = false;
    for line in code.lines() {
        let t = line.trim_start();
        if t.starts_with("thread_local!") {
            in_thread_local = true;
        }
        if in_thread_local {
            if line.starts_with('}') {
                in_thread_local = false;
            }
            continue;
        }
        let t = t
            .strip_prefix("pub(crate) ")
            .or_else(|| t.strip_prefix("pub(super) "))
            .or_else(|| t.strip_prefix("pub "))
            .unwrap_or(t);
        if let Some(rest) = t.strip_prefix("static ") {
            let rest = rest.strip_prefix("mut ").unwrap_or(rest);
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            out.push(name);
        }
    }
    out
}

#[test]
fn the_static_finder_skips_thread_locals_and_reads_visibility() {
    let code = "static A: u8 = 0;\npub(crate) static B: u8 = 0;\nthread_local! {\n    static C: u8 = 0;\n}\nconst D: &str = \"static E\";\n";
    assert_eq!(statics(code), ["A", "B"]);
}

#[test]
fn src_declares_no_static_but_the_listed_ones() {
    let mut found = Vec::new();
    for (rel, code) in &crate::source_tree::src_code() {
        for name in statics(code) {
            found.push((rel.clone(), name));
        }
    }
    let listed = |rel: &str, name: &str| ALLOWED.iter().any(|(f, n, _)| *f == rel && *n == name);
    let stray: Vec<String> = (found.iter())
        .filter(|(rel, name)| !listed(rel, name))
        .map(|(rel, name)| format!("src/{rel}: static {name}"))
        .collect();
    assert!(
        stray.is_empty(),
        "statics are side channels: pass the value to what needs it:\n{}",
        stray.join("\n")
    );
    // A list entry whose static is gone is removed with it.
    let gone: Vec<String> = (ALLOWED.iter().map(|(f, n, _)| (*f, *n)))
        .filter(|(f, n)| !found.iter().any(|(rel, name)| rel == f && name == n))
        .map(|(f, n)| format!("src/{f}: static {n}"))
        .collect();
    assert!(gone.is_empty(), "listed but gone:\n{}", gone.join("\n"));
}

#[test]
fn target_is_the_io_contract_alone() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("src/device/mod.rs")).unwrap();
    let start = text.find("pub trait Target").expect("the Target trait");
    let body = &text[start..];
    let end = body.find("\n}\n").expect("the trait's end");
    let methods: Vec<&str> = body[..end]
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("fn "))
        .map(|l| l.split(['(', '<']).next().unwrap_or(""))
        .collect();
    assert!(methods.contains(&"read_at"), "{methods:?}");
    for simulated_only in [
        "queue_model",
        "smart_source",
        "sim_controller",
        "set_together",
        "watch_pass",
    ] {
        assert!(
            !methods.contains(&simulated_only),
            "Target::{simulated_only}: what only a simulated drive offers is Simulated's; a pass's watch is an argument"
        );
    }
}
