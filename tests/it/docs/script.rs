//! Running one block: its steps (setup, the doc's commands, checks) as one `sh`
//! script in the block's temporary directory, each step's output and exit status
//! kept apart, each step held to its time limit, and the steps that need a
//! terminal run on a pseudo-terminal whose prompts are answered `yes` as a
//! reader would. Whatever happens, the script's processes are ended and the loop
//! devices it attached are detached.

use crate::helpers::temp_dir;
use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{FromRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The pseudo-terminal's size: 120 columns, as the issue's terminal.
const COLUMNS: u16 = 120;
const ROWS: u16 = 40;

/// How long the screen must stay still before a prompt is answered.
const QUIET: Duration = Duration::from_millis(300);

/// How long a command on the terminal (a write test without `--yes`) may run
/// before its screen asks for `yes`: it must ask before it writes.
const PROMPT_WAIT: Duration = Duration::from_secs(30);

/// One step of a block's script.
#[derive(Debug, Clone)]
pub struct Step {
    /// The shell text (substitutions done).
    pub text: String,
    /// Whether it runs on the terminal (a write test without `--yes`).
    pub terminal: bool,
    /// The longest it may run.
    pub limit: Duration,
}

/// What a step did.
#[derive(Debug, Clone, Default)]
pub struct Outcome {
    /// Its exit status; None when it never ended (killed at its limit, or not
    /// reached because an earlier step was).
    pub status: Option<i32>,
    /// Its standard output (on the terminal: what the screen received, escape
    /// sequences dropped and each line as last redrawn).
    pub out: String,
    /// Its standard error (empty on the terminal: it is in `out`).
    pub err: String,
    /// Wall time, seconds.
    pub secs: f64,
    /// It ran past its limit and was killed.
    pub timed_out: bool,
    /// Why it was killed, when not for its limit.
    pub note: String,
}

/// How a block's processes run.
pub struct Env {
    /// The block's temporary directory (its working directory).
    pub dir: PathBuf,
    /// Environment variables set for the script.
    pub vars: Vec<(String, String)>,
    /// Run in a mount namespace of its own whose /var/lib is an empty tmpfs (root).
    pub private_var_lib: bool,
}

/// Run `steps` in order in one shell; one outcome per step.
pub fn run(env: &Env, steps: &[Step]) -> Vec<Outcome> {
    let work = temp_dir();
    let script = work.path().join("script.sh");
    let status = work.path().join("status");
    std::fs::write(&script, script_text(steps, work.path(), &status)).unwrap();
    File::create(&status).unwrap();
    let terminal = steps.iter().any(|s| s.terminal);
    let mut cmd = if env.private_var_lib {
        let mut c = Command::new(crate::helpers::tool("unshare"));
        c.args(["--mount", "--propagation", "private", "--", "sh", "-c"])
            .arg("mount -t tmpfs -o mode=0755 seekprobe-docs /var/lib && exec sh \"$1\"")
            .arg("sh");
        c
    } else {
        Command::new("sh")
    };
    cmd.arg(&script)
        .current_dir(&env.dir)
        .envs(env.vars.iter().map(|(k, v)| (k, v)));
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    let mut guard = Guard {
        child: None,
        dir: env.dir.clone(),
    };
    let screen = if terminal {
        let (master, slave) = openpty();
        cmd.stdin(Stdio::from(slave.try_clone().unwrap()))
            .stdout(Stdio::from(slave.try_clone().unwrap()))
            .stderr(Stdio::from(slave));
        guard.child = Some(cmd.spawn().expect("sh starts"));
        drop(cmd);
        Some(Screen::new(master))
    } else {
        cmd.stdin(Stdio::null())
            .stdout(File::create(work.path().join("script.out")).unwrap())
            .stderr(File::create(work.path().join("script.err")).unwrap());
        guard.child = Some(cmd.spawn().expect("sh starts"));
        None
    };
    let mut outcomes = watch(&mut guard, steps, &status, screen.as_ref());
    guard.end();
    for (i, o) in outcomes.iter_mut().enumerate() {
        if steps[i].terminal {
            o.out = screen.as_ref().map(|s| s.between(i)).unwrap_or_default();
        } else {
            let read = |ext: &str| {
                std::fs::read(work.path().join(format!("{i}.{ext}")))
                    .map(|b| String::from_utf8_lossy(&b).into_owned())
                    .unwrap_or_default()
            };
            o.out = read("out");
            o.err = read("err");
        }
    }
    if outcomes.iter().all(|o| o.status.is_none()) {
        // The script itself failed (a syntax error): say why on the first step.
        let err = std::fs::read_to_string(work.path().join("script.err")).unwrap_or_default();
        outcomes[0].err.push_str(&err);
    }
    outcomes
}

/// The script: each step in a brace group (so that variables and `cd` carry over
/// to the next), its status written to descriptor 3; off the terminal its output
/// to files and standard input from /dev/null, on it between markers.
fn script_text(steps: &[Step], work: &Path, status: &Path) -> String {
    let mut s = format!("exec 3>>'{}'\n", status.display());
    for (i, step) in steps.iter().enumerate() {
        if step.terminal {
            s += &format!(
                "printf '\\n@@docs begin {i}@@\\n'\n{{ {}\n}}\necho \"{i} $?\" >&3\nprintf '\\n@@docs end {i}@@\\n'\n",
                step.text
            );
        } else {
            let w = work.display();
            s += &format!(
                "{{ {}\n}} >'{w}/{i}.out' 2>'{w}/{i}.err' </dev/null\necho \"{i} $?\" >&3\n",
                step.text
            );
        }
    }
    s
}

/// Follow the script to its end: the steps' statuses as they are written, each
/// running step held to its limit (the whole script killed past it), the
/// terminal's prompts answered.
fn watch(
    guard: &mut Guard,
    steps: &[Step],
    status: &Path,
    screen: Option<&Screen>,
) -> Vec<Outcome> {
    let mut outcomes = vec![Outcome::default(); steps.len()];
    let mut started = Instant::now();
    let mut done = 0;
    let answers = || screen.map_or(0, |s| s.keys.lock().unwrap().2);
    let mut asked_before = answers();
    loop {
        let ended = guard.child.as_mut().unwrap().try_wait().unwrap().is_some();
        let text = std::fs::read_to_string(status).unwrap_or_default();
        for line in text.lines().skip(done) {
            let Some((i, code)) = line.split_once(' ') else {
                break;
            };
            let i: usize = i.parse().unwrap();
            outcomes[i].status = code.trim().parse().ok();
            outcomes[i].secs = started.elapsed().as_secs_f64();
            started = Instant::now();
            asked_before = answers();
            done = i + 1;
        }
        if ended || done == steps.len() {
            return outcomes;
        }
        let unasked = steps[done].terminal && answers() == asked_before;
        if unasked && started.elapsed() > PROMPT_WAIT {
            outcomes[done].note = format!(
                "its screen asked for no `yes` within {} s, though it writes without --yes",
                PROMPT_WAIT.as_secs()
            );
        }
        if started.elapsed() > steps[done].limit || !outcomes[done].note.is_empty() {
            outcomes[done].timed_out = true;
            outcomes[done].secs = started.elapsed().as_secs_f64();
            guard.kill();
            return outcomes;
        }
        if let Some(s) = screen {
            s.answer_prompt();
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A pseudo-terminal pair of `COLUMNS` x `ROWS`.
fn openpty() -> (OwnedFd, OwnedFd) {
    let (mut master, mut slave) = (-1, -1);
    let size = libc::winsize {
        ws_row: ROWS,
        ws_col: COLUMNS,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: openpty writes the two descriptors it opens into `master` and
    // `slave`; the name and termios pointers may be null, and `size` outlives the
    // call.
    let r = unsafe {
        libc::openpty(
            &mut master,
            &mut slave,
            std::ptr::null_mut(),
            std::ptr::null(),
            &size,
        )
    };
    assert_eq!(r, 0, "openpty: {}", std::io::Error::last_os_error());
    // SAFETY: both descriptors were just opened by openpty and nothing else owns them.
    let (master, slave) = unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
    nix::fcntl::fcntl(
        &master,
        nix::fcntl::FcntlArg::F_SETFD(nix::fcntl::FdFlag::FD_CLOEXEC),
    )
    .unwrap();
    (master, slave)
}

/// What the terminal received (read by a thread of its own), and the prompts
/// answered so far.
struct Screen {
    received: Arc<Mutex<(Vec<u8>, Instant)>>,
    /// The keyboard, the bytes of the screen read so far for prompts, the answers.
    keys: Mutex<(File, usize, usize)>,
}

impl Screen {
    fn new(master: OwnedFd) -> Screen {
        let received = Arc::new(Mutex::new((Vec::new(), Instant::now())));
        let mut reader = File::from(master.try_clone().unwrap());
        let sink = Arc::clone(&received);
        std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            // EIO once every process holding the terminal has ended.
            while let Ok(n @ 1..) = reader.read(&mut buf) {
                let mut r = sink.lock().unwrap();
                r.0.extend_from_slice(&buf[..n]);
                r.1 = Instant::now();
            }
        });
        Screen {
            received,
            keys: Mutex::new((File::from(master), 0, 0)),
        }
    }

    /// Type `yes` and Enter when the screen's last line (since the last answer)
    /// asks for it and the screen has been still for a moment, as a reader would.
    fn answer_prompt(&self) {
        let (bytes, last) = {
            let r = self.received.lock().unwrap();
            (r.0.clone(), r.1)
        };
        let mut keys = self.keys.lock().unwrap();
        let seen = keys.1.min(bytes.len());
        let text = screen_text(&bytes[seen..]);
        let asks = !text.ends_with('\n')
            && text.lines().last().is_some_and(|l| {
                l.to_lowercase()
                    .split(|c: char| !c.is_alphanumeric())
                    .any(|w| w == "yes")
            });
        if asks && last.elapsed() >= QUIET {
            keys.0.write_all(b"yes\r").unwrap();
            // The echo of the answer is not another question.
            keys.1 = bytes.len() + "yes\r\n".len();
            keys.2 += 1;
        }
    }

    /// What step `i` showed: the screen's lines between its markers.
    fn between(&self, i: usize) -> String {
        let deadline = Instant::now() + Duration::from_secs(2);
        let (begin, end) = (format!("@@docs begin {i}@@"), format!("@@docs end {i}@@"));
        loop {
            let text = screen_text(&self.received.lock().unwrap().0);
            let from = text.find(&begin).map(|p| p + begin.len() + 1);
            let to = text.find(&end);
            match (from, to) {
                (Some(a), Some(b)) if b >= a => return text[a..b].to_string(),
                (Some(a), _) if Instant::now() > deadline => return text[a..].to_string(),
                (None, _) if Instant::now() > deadline => return String::new(),
                _ => std::thread::sleep(Duration::from_millis(20)),
            }
        }
    }
}

/// Terminal output as a reader sees it: escape sequences dropped, each line as it
/// was last redrawn (the text after its last carriage return).
pub fn screen_text(bytes: &[u8]) -> String {
    let s = String::from_utf8_lossy(bytes);
    let mut plain = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\u{1b}' {
            plain.push(c);
            continue;
        }
        match chars.next() {
            // CSI: parameters, then one final byte in @..~.
            Some('[') => {
                for c in chars.by_ref() {
                    if ('@'..='~').contains(&c) {
                        break;
                    }
                }
            }
            // OSC: up to BEL or ESC \.
            Some(']') => {
                while let Some(c) = chars.next() {
                    if c == '\u{7}' || (c == '\u{1b}' && chars.next_if_eq(&'\\').is_some()) {
                        break;
                    }
                }
            }
            _ => {}
        }
    }
    let mut out = String::with_capacity(plain.len());
    let mut lines = plain.split('\n').peekable();
    while let Some(line) = lines.next() {
        let line = line.trim_end_matches('\r');
        out.push_str(line.rsplit('\r').next().unwrap_or(""));
        if lines.peek().is_some() {
            out.push('\n');
        }
    }
    out
}

/// Ends the script's processes and detaches the loop devices attached over files
/// of the block's directory, even when the test fails.
struct Guard {
    child: Option<Child>,
    dir: PathBuf,
}

impl Guard {
    fn kill(&mut self) {
        if let Some(c) = self.child.as_mut() {
            let group = nix::unistd::Pid::from_raw(c.id() as i32);
            let _ = nix::sys::signal::killpg(group, nix::sys::signal::Signal::SIGKILL);
            let _ = c.wait();
        }
    }

    /// The script has ended (or was killed): what it left behind is ended too.
    fn end(&mut self) {
        self.kill();
        self.child = None;
        detach_loops_under(&self.dir);
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        self.end();
    }
}

/// Detach every loop device whose backing file lies under `dir` (the doc's own
/// `losetup` lines, when the block stopped before its `losetup -d`).
fn detach_loops_under(dir: &Path) {
    let Ok(entries) = std::fs::read_dir("/sys/block") else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Ok(backing) = std::fs::read_to_string(e.path().join("loop/backing_file")) else {
            continue;
        };
        if Path::new(backing.trim()).starts_with(dir) {
            let _ = Command::new(crate::helpers::tool("losetup"))
                .args(["-d", &format!("/dev/{name}")])
                .status();
        }
    }
}

#[test]
fn screen_text_keeps_each_line_as_last_drawn() {
    let raw = b"\x1b[2Kspin 1\rspin 2\r\x1b[1A\x1b]0;title\x07Type yes to go on: yes\r\nok\r\n";
    assert_eq!(screen_text(raw), "Type yes to go on: yes\nok\n");
}
