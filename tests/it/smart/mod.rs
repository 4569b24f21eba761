//! SMART health from smartctl's JSON: every real report in tests/data/smartctl/
//! parses to the values it holds, `seekprobe smart` judges them, and the real
//! smartctl on a loop device gives the "no SMART" note.

mod blind_spots;
mod command;
mod drivedb;
mod parsing;
mod verdicts;

use crate::helpers::smartctl_loop_tests;
use crate::helpers::{LoopDev, refused, run_file, seekprobe};
use predicates::prelude::*;
use seekprobe::results::health::{Health, NvmeWarning, Protocol};
use seekprobe::smart::{Report, SmartRead, smartctl};
use std::path::{Path, PathBuf};

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/smartctl")
}

fn health(file: &str) -> Health {
    let text = std::fs::read_to_string(data_dir().join(file)).unwrap();
    let report = Report::from_json(&text).unwrap_or_else(|e| panic!("{file}: {e}"));
    match smartctl::classify(report).unwrap() {
        SmartRead::Health { health, .. } => *health,
        SmartRead::NoSmart { note } => panic!("{file}: no SMART: {note}"),
    }
}
