//! Reporters: pure functions of results. They never measure.

pub mod diskinfo;
pub mod humanize;
