//! The `seekprobe` binary: a thin wrapper around [`seekprobe::app`].

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

fn main() {
    let stop = Arc::new(AtomicBool::new(false));
    // Ctrl-C raises the flag, and the engine stops within one I/O; a second Ctrl-C
    // ends the program at once.
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        let _ = signal_hook::flag::register_conditional_shutdown(sig, 130, Arc::clone(&stop));
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
