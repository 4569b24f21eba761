//! Simulated drives on a virtual clock (`sim:PRESET[?key=value&...]`).

use super::{DeviceInfo, IoMode, Target, TargetKind};
use crate::clock::{Clock, VirtualClock};
use crate::error::ProbeError;
use std::io;

/// A simulated drive: a physical model that advances a virtual clock.
pub struct SimTarget {
    info: DeviceInfo,
    clock: VirtualClock,
}

impl SimTarget {
    /// Open a simulated drive from its spec, e.g. `sim:hdd?rpm=5400`.
    pub fn open(spec: &str) -> Result<Self, ProbeError> {
        let mut info = DeviceInfo::new(spec, spec, TargetKind::Simulated);
        info.media_size_bytes = 2_000_398_934_016;
        info.io_mode = IoMode::Simulated;
        info.simulated = Some("placeholder".into());
        Ok(SimTarget {
            info,
            clock: VirtualClock::new(),
        })
    }
}

impl Target for SimTarget {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }
    fn clock(&self) -> &dyn Clock {
        &self.clock
    }
    fn read_at(&mut self, buf: &mut [u8], _offset: u64) -> io::Result<()> {
        self.clock.advance(100_000);
        buf.fill(0);
        Ok(())
    }
    fn quiesce(&mut self) -> io::Result<()> {
        Ok(())
    }
}
