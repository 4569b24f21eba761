//! The `seekprobe` binary: a thin wrapper around [`seekprobe::app`].

use seekprobe::device::Stop;
use std::io::Write;
use std::sync::Arc;

fn main() {
    // The child that runs libblkid on a copy of a drive's signature areas.
    #[cfg(target_os = "linux")]
    if std::env::var_os(seekprobe::safety::CHILD_ENV).is_some() {
        std::process::exit(seekprobe::safety::child_main());
    }
    // Ctrl-C (and SIGTERM, SIGHUP) raise the stop's flag; the engines stop within
    // one I/O (a pause within 50 ms), a request a drive leaves unanswered is given
    // up within a second (device::watched), what was measured is printed and
    // saved. A second signal does not kill the program: with --preserve a block
    // may be waiting to be written back. The stop records which signal it was:
    // the exit status is 128 plus its number (app::status::exit_status decides it).
    let stop = Stop::default();
    for sig in [
        signal_hook::consts::SIGINT,
        signal_hook::consts::SIGTERM,
        signal_hook::consts::SIGHUP,
    ] {
        let _ =
            signal_hook::flag::register_usize(sig, Arc::clone(stop.signal_slot()), sig as usize);
        let _ = signal_hook::flag::register(sig, Arc::clone(stop.flag()));
    }
    let code = seekprobe::app::main_with(
        std::env::args_os(),
        stop.clone(),
        &mut std::io::stdout().lock(),
        &mut std::io::stderr(),
    );
    let left = stop.left_behind();
    if left > 0 {
        let _ = std::io::stdout().flush();
        let _ = writeln!(
            std::io::stderr(),
            "seekprobe: {left} request{} to a drive went unanswered and {} given up; the \
             results are saved; the process ends when the kernel gives {} back (if it does \
             not, the drive or its path is stuck: reset or unplug it)",
            if left == 1 { "" } else { "s" },
            if left == 1 { "was" } else { "were" },
            if left == 1 { "it" } else { "them" },
        );
    }
    std::process::exit(code);
}
