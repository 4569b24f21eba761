//! The SATA and SAS disks the scenarios put behind QEMU's AHCI controller and its
//! LSI SAS1068, as QEMU is told of them: a test asserts exactly these.

/// A SATA disk on the AHCI controller `sata` (QEMU's `ahci,id=sata`).
pub struct Sata {
    /// Its AHCI port.
    pub port: u8,
    pub serial: &'static str,
    /// The ATA model (up to 40 characters).
    pub model: &'static str,
    pub wwn: u64,
    /// QEMU's `rotation_rate`: the rpm, or [`FLASH`].
    pub rpm: u16,
}

/// A SAS disk behind the LSI SAS1068 `sas` (QEMU's `mptsas1068,id=sas`).
pub struct Sas {
    pub vendor: &'static str,
    pub product: &'static str,
    pub serial: &'static str,
    pub wwn: u64,
    /// QEMU's `rotation_rate`: the rpm, or [`FLASH`].
    pub rpm: u16,
}

/// QEMU's `rotation_rate` of a disk that does not rotate (the B1 VPD page's and
/// ATA's code 1).
pub const FLASH: u16 = 1;

impl Sata {
    /// Its QEMU `-device` properties: 4 KiB physical sectors, no TRIM.
    pub fn props(&self) -> String {
        format!(
            "ide-hd,bus=sata.{},serial={},model={},wwn={:#x},rotation_rate={},physical_block_size=4096,discard_granularity=0",
            self.port, self.serial, self.model, self.wwn, self.rpm
        )
    }
}

impl Sas {
    /// Its QEMU `-device` properties: 4 KiB physical sectors, no UNMAP.
    pub fn props(&self) -> String {
        format!(
            "scsi-hd,bus=sas.0,vendor={},product={},serial={},wwn={:#x},rotation_rate={},physical_block_size=4096,discard_granularity=0",
            self.vendor, self.product, self.serial, self.wwn, self.rpm
        )
    }
}

/// The by-id name udev makes from a WWN.
pub fn by_wwn(wwn: u64) -> String {
    format!("/dev/disk/by-id/wwn-{wwn:#018x}")
}
