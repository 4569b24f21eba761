//! Every failure mode of the faulty block device (examples/faultdisk under a loop
//! device: the kernel returns real EIO), each against the test that must find it,
//! asserting the exact sectors, the verdict, and the device's own request counts.

mod hung;
mod sectors;
mod slow;
mod vanishing;

use crate::faultdisk::{FaultDisk, HUNG_IO_TIMEOUT_S, waited_the_hung_limit};
use crate::helpers::fuse_tests;
use crate::helpers::{LoopDev, Spawned, run, stand_in_smartctl, verify_ranges};
use std::time::{Duration, Instant};

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

fn r(kind: &str, start: u64, sectors: u64) -> (String, u64, u64) {
    (kind.to_string(), start, sectors)
}

/// seekprobe started with `args` in the background.
fn start(args: &[&str]) -> Spawned {
    Spawned::start(args, &[])
}
