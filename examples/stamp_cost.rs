//! The CPU work of a write-and-verify pass over a simulated drive, without the
//! engine around it, for counting instructions (`valgrind --tool=callgrind`, exact
//! and repeatable on a loaded machine, where wall time is not):
//!
//! ```sh
//! cargo build --release --example stamp_cost
//! valgrind --tool=callgrind target/release/examples/stamp_cost halves 256
//! valgrind --tool=callgrind target/release/examples/stamp_cost interleaved 256
//! ```
//!
//! Each 1 MiB block of a `sim:hdd` of MIB MiB is stamped and written, read back
//! and checked (`Stamper::all_ok`) as `--verify` does: `halves` writes every block,
//! then reads every block back (the pass as it runs today); `interleaved` reads
//! each block back 4 blocks after writing it (a pass that reads back as it
//! writes). It prints the blocks that failed the check (0 expected).

use seekprobe::device::sim::SimTarget;
use seekprobe::device::{AlignedBuf, Target};
use seekprobe::stamps::stamp::{StampSize, Stamper};

const BLOCK: usize = 1 << 20;
/// Blocks between a block's write and its read-back in `interleaved`.
const LAG: usize = 4;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (mode, mib) = match args.as_slice() {
        [_, mode, mib] => (mode.as_str(), mib.parse::<usize>().expect("MIB: a number")),
        _ => {
            eprintln!("usage: stamp_cost halves|interleaved MIB");
            std::process::exit(2)
        }
    };
    let mut t = SimTarget::open(&format!("sim:hdd?size={mib}M")).expect("the simulated drive");
    let s = Stamper::new(0x5EED, 0, StampSize::new(512).expect("512-byte sectors"));
    let mut w = AlignedBuf::new(BLOCK);
    let mut r = AlignedBuf::new(BLOCK);
    let mut bad = 0;
    let mut read_back = |t: &mut SimTarget, i: usize, r: &mut AlignedBuf| {
        let at = (i * BLOCK) as u64;
        t.read_at(r.for_read(..), at).expect("read");
        if !s.all_ok(r, at / 512) {
            bad += 1;
        }
    };
    let write = |t: &mut SimTarget, i: usize, w: &mut AlignedBuf| {
        let at = (i * BLOCK) as u64;
        s.stamp(w, at / 512);
        t.write_at(w.for_write(..), at).expect("write");
    };
    match mode {
        "halves" => {
            for i in 0..mib {
                write(&mut t, i, &mut w);
            }
            for i in 0..mib {
                read_back(&mut t, i, &mut r);
            }
        }
        "interleaved" => {
            for i in 0..mib + LAG {
                if i < mib {
                    write(&mut t, i, &mut w);
                }
                if i >= LAG {
                    read_back(&mut t, i - LAG, &mut r);
                }
            }
        }
        _ => {
            eprintln!("stamp_cost: halves or interleaved, not {mode}");
            std::process::exit(2)
        }
    }
    println!("{mode}: {mib} blocks of 1 MiB, {bad} failed the check");
}
