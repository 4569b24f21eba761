//! The plan's command (zpool create or mdadm --create: its words, shell-quoted,
//! continued with backslashes) and the plan as text: the command, then what was
//! left out (a drive a line, with its reason), why, and the warnings.

use super::PoolPlan;
use super::args::{PlanArgs, PoolTool, VdevKind};

/// The vdevs' names: zpool status's (`raidz2-0`, `mirror-1`; a stripe's drives
/// by their place), or the md arrays' devices (`/dev/md/tank`, or
/// `/dev/md/tank-0`... when the arrays are striped into one).
pub fn vdev_names(a: &PlanArgs, n: usize) -> Vec<String> {
    (0..n)
        .map(|k| match (a.target, a.layout.kind) {
            (PoolTool::Mdadm, _) if n == 1 => format!("/dev/md/{}", a.name),
            (PoolTool::Mdadm, _) => format!("/dev/md/{}-{k}", a.name),
            (PoolTool::Zfs, VdevKind::Stripe) => format!("drive {k}"),
            (PoolTool::Zfs, _) => format!("{}-{k}", a.layout.word()),
        })
        .collect()
}

/// The commands' words, unquoted: one command for zpool; for mdadm one an
/// array, and one that stripes them when there are several.
pub fn argv(p: &PoolPlan, a: &PlanArgs) -> Vec<Vec<String>> {
    let w = |s: &str| s.to_string();
    match a.target {
        PoolTool::Zfs => {
            let mut c = vec![w("zpool"), w("create")];
            if let Some(shift) = p.ashift {
                c.extend([w("-o"), format!("ashift={shift}")]);
            }
            c.push(a.name.clone());
            for v in &p.vdevs {
                if a.layout.kind != VdevKind::Stripe {
                    c.push(a.layout.word());
                }
                c.extend(v.drives.iter().cloned());
            }
            if !p.spares.is_empty() {
                c.push(w("spare"));
                c.extend(p.spares.iter().cloned());
            }
            vec![c]
        }
        PoolTool::Mdadm => {
            let level = match a.layout.kind {
                VdevKind::Mirror => "1",
                _ => "6",
            };
            let mut out = Vec::new();
            for (k, v) in p.vdevs.iter().enumerate() {
                let mut c = vec![w("mdadm"), w("--create"), v.name.clone()];
                c.push(format!("--level={level}"));
                c.push(format!("--raid-devices={}", v.drives.len()));
                // The spares join the first array; mdadm --monitor moves them
                // to another array of their spare-group (mdadm.conf).
                if k == 0 && !p.spares.is_empty() {
                    c.push(format!("--spare-devices={}", p.spares.len()));
                }
                c.extend(v.drives.iter().cloned());
                if k == 0 {
                    c.extend(p.spares.iter().cloned());
                }
                out.push(c);
            }
            if p.vdevs.len() > 1 {
                let mut c = vec![w("mdadm"), w("--create"), format!("/dev/md/{}", a.name)];
                c.push(w("--level=0"));
                c.push(format!("--raid-devices={}", p.vdevs.len()));
                c.extend(p.vdevs.iter().map(|v| v.name.clone()));
                out.push(c);
            }
            out
        }
    }
}

/// The commands as a person reads and pastes them: shell-quoted, a vdev (zpool)
/// or the drive list (mdadm) a continued line.
pub fn text(argv: &[Vec<String>], a: &PlanArgs) -> String {
    let mut out = String::new();
    for c in argv {
        let mut lines: Vec<Vec<String>> = vec![Vec::new()];
        for word in c {
            let starts = match a.target {
                PoolTool::Zfs => {
                    word == "spare"
                        || (a.layout.kind != VdevKind::Stripe && *word == a.layout.word())
                        || (a.layout.kind == VdevKind::Stripe
                            && lines.len() == 1
                            && lines[0].last() == Some(&a.name))
                }
                PoolTool::Mdadm => {
                    lines.len() == 1
                        && (word.starts_with('/') || word.starts_with("sim:"))
                        && lines[0].len() > 3
                }
            };
            if starts && !lines.last().is_some_and(Vec::is_empty) {
                lines.push(Vec::new());
            }
            lines.last_mut().unwrap().push(quote(word));
        }
        let joined: Vec<String> = lines.iter().map(|l| l.join(" ")).collect();
        out.push_str(&joined.join(" \\\n  "));
        out.push('\n');
    }
    out
}

/// `word` as the shell reads it back: as it is when it holds only characters
/// no shell treats specially, else in single quotes.
pub fn quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "@%+=:,./-_".contains(c));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// The plan as text: the command (or why there is none), then the drives left
/// out, a line each with its reason, why, and the warnings.
pub fn render(p: &PoolPlan) -> String {
    let mut s = String::new();
    match (&p.command, &p.no_pool) {
        (Some(c), _) => s.push_str(c),
        (None, Some(why)) => s.push_str(&format!("No pool: {why}.\n")),
        (None, None) => {}
    }
    let used = p.vdevs.iter().map(|v| v.drives.len()).sum::<usize>();
    let target = match p.target {
        PoolTool::Zfs => "zpool",
        PoolTool::Mdadm => "mdadm",
    };
    let runs = p.runs.join(", ");
    if p.command.is_some() {
        s.push_str(&format!(
            "\nPlan: {} for {target}, {} of the {} drives in {runs} ({used} in {}, {}); nothing was run\n",
            p.layout,
            used + p.spares.len(),
            p.drives.len(),
            super::count(p.vdevs.len(), "vdev"),
            super::count(p.spares.len(), "spare"),
        ));
    } else {
        s.push_str(&format!(
            "\nPlan: {} for {target}: no pool from the {} drives in {runs}; nothing was run\n",
            p.layout,
            p.drives.len()
        ));
    }
    let many_runs = p.runs.len() > 1;
    if !p.left_out.is_empty() {
        s.push_str("Left out:\n");
        for l in &p.left_out {
            let from = if many_runs {
                format!(" ({})", l.run)
            } else {
                String::new()
            };
            s.push_str(&format!("  {}{from}: {}\n", l.drive, l.reason));
        }
    }
    if !p.why.is_empty() {
        s.push_str("Why:\n");
        for w in &p.why {
            s.push_str(&format!("  {w}\n"));
        }
    }
    for w in &p.warnings {
        s.push_str(&format!("warning: {w}\n"));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_quoted_only_when_the_shell_would_read_them_otherwise() {
        assert_eq!(
            quote("/dev/disk/by-id/wwn-0x5000c500a1b2c3d4"),
            "/dev/disk/by-id/wwn-0x5000c500a1b2c3d4"
        );
        assert_eq!(quote("ashift=12"), "ashift=12");
        assert_eq!(quote("sim:hdd?size=2G&seed=1"), "'sim:hdd?size=2G&seed=1'");
        assert_eq!(quote("it's"), r"'it'\''s'");
    }
}
