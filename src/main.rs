//! The `seekprobe` binary: a thin wrapper around [`seekprobe::app`].

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

fn main() {
    let stop = Arc::new(AtomicBool::new(false));
    // Ctrl-C (and SIGTERM, SIGHUP) raise the flag; the engines stop within one I/O
    // (a pause within 50 ms), print what was measured and exit 130. A second signal
    // does not kill the program: with --preserve a block may be waiting to be
    // written back.
    for sig in [
        signal_hook::consts::SIGINT,
        signal_hook::consts::SIGTERM,
        signal_hook::consts::SIGHUP,
    ] {
        let _ = signal_hook::flag::register(sig, Arc::clone(&stop));
    }
    let code = seekprobe::app::main_with(
        std::env::args_os(),
        stop,
        &mut std::io::stdout().lock(),
        &mut std::io::stderr(),
    );
    std::process::exit(code);
}
