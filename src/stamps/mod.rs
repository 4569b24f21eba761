//! The pure core of the write-and-verify pass (`--verify`) and of the capacity
//! check (`--capacity-check`): what each logical sector is stamped with and how a
//! read-back is judged ([`stamp`], its fill's word loops in `fill`), and badblocks' list format for `--bad-blocks`
//! ([`badblocks`]). No I/O and no clock: the executor writes the stamped buffers,
//! reads them back and hands them to [`stamp::Stamper::check`].
//!
//! The capacity check's plan and conclusion are in [`crate::test_plans::capacity`].
//! docs/methods.md ("Write and verify", "Capacity check") describes the layout.

pub mod badblocks;
pub mod checkpoint;
mod fill;
pub mod stamp;
