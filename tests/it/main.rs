//! seekprobe's integration tests: one binary, a module per area.

mod architecture;
mod badblocks;
mod beyond;
mod burnin;
mod capacity;
mod cli;
mod faultdisk;
mod faulty;
mod files;
mod fleet;
mod golden;
mod helpers;
mod history;
mod imports;
mod live;
mod loopdev;
mod report;
mod results;
mod signatures;
mod sim;
mod smart;
mod smartwire;
mod smr;
mod verdict;
mod verify;
mod writes;
