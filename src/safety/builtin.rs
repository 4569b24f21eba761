//! The built-in signature check: a documented set of magic numbers at the offsets
//! their formats define (see docs/safety.md). It is the floor: all there is on
//! FreeBSD and wherever libblkid cannot be loaded, and on Linux what it finds counts
//! alongside libblkid's findings.

/// A signature the built-in check recognised: what it is and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    /// What the signature means, e.g. "an ext2/3/4 file system".
    pub what: &'static str,
    /// The byte offset of the signature on the target.
    pub offset: u64,
}

/// How much of the start of a target [`detect`] needs.
pub const HEAD_BYTES: usize = 256 << 10;
/// How much of the end of a target [`detect`] needs.
pub const TAIL_BYTES: usize = 1 << 20;

fn at(buf: &[u8], off: usize, magic: &[u8]) -> bool {
    buf.get(off..off + magic.len()) == Some(magic)
}

fn u32_le(buf: &[u8], off: usize) -> Option<u32> {
    Some(u32::from_le_bytes(buf.get(off..off + 4)?.try_into().ok()?))
}

fn u64_at(buf: &[u8], off: usize) -> Option<(u64, u64)> {
    let b: [u8; 8] = buf.get(off..off + 8)?.try_into().ok()?;
    Some((u64::from_le_bytes(b), u64::from_be_bytes(b)))
}

const MD_MAGIC: u32 = 0xa92b_4efc;
const ZFS_UB_MAGIC: u64 = 0x00ba_b10c;

/// Whether a ZFS vdev label starting at `label` in `buf` holds an uberblock (magic
/// 0x00bab10c, either byte order, in the uberblock ring 128 KiB into the label).
fn zfs_label(buf: &[u8], label: usize) -> bool {
    (0..128usize).any(|i| {
        u64_at(buf, label + (128 << 10) + i * 1024)
            .is_some_and(|(le, be)| le == ZFS_UB_MAGIC || be == ZFS_UB_MAGIC)
    })
}

/// Recognise signatures in `head` (the first bytes of the target, up to
/// [`HEAD_BYTES`]) and `tail` (the last bytes, up to [`TAIL_BYTES`]) of a target of
/// `size` bytes.
pub fn detect(head: &[u8], tail: &[u8], size: u64) -> Vec<Hit> {
    let mut found = Vec::new();
    let mut add = |what, offset: u64| found.push(Hit { what, offset });
    // Partition tables and boot sectors.
    if at(head, 510, &[0x55, 0xAA]) {
        add("an MBR partition table or boot sector (0x55AA)", 510);
    }
    for lba in [512usize, 4096] {
        if at(head, lba, b"EFI PART") {
            add("a GPT partition table", lba as u64);
        }
    }
    // File systems.
    if at(head, 1080, &[0x53, 0xEF]) {
        add("an ext2/3/4 file system", 1080);
    }
    if at(head, 0, b"XFSB") {
        add("an XFS file system", 0);
    }
    if at(head, 65600, b"_BHRfS_M") {
        add("a btrfs file system", 65600);
    }
    if at(head, 3, b"NTFS    ") {
        add("an NTFS file system", 3);
    }
    if at(head, 82, b"FAT32   ") || at(head, 54, b"FAT12   ") || at(head, 54, b"FAT16   ") {
        add("a FAT file system", 54);
    }
    if at(head, 1024, b"H+") || at(head, 1024, b"HX") {
        add("an HFS+ file system", 1024);
    }
    if at(head, 32769, b"CD001") {
        add("an ISO 9660 image", 32769);
    }
    if at(head, 65536 + 1372, &[0x19, 0x01, 0x54, 0x19]) {
        add("a UFS2 file system", 65536 + 1372);
    }
    if at(head, 0, b"ZBSF") || at(head, 4096, b"ZBSF") {
        add("a BSD disklabel or F2FS superblock", 0);
    }
    // Swap, encryption, volume managers, RAID.
    for page in [4096usize, 8192, 16384, 65536] {
        for magic in [&b"SWAPSPACE2"[..], b"SWAP-SPACE"] {
            if at(head, page - 10, magic) {
                add("a Linux swap area", (page - 10) as u64);
            }
        }
    }
    if at(head, 0, b"LUKS\xba\xbe") || at(head, 0, b"SKUL\xba\xbe") {
        add("a LUKS encrypted volume", 0);
    }
    for sector in 0..4usize {
        if at(head, sector * 512, b"LABELONE") && at(head, sector * 512 + 24, b"LVM2 001") {
            add("an LVM2 physical volume", (sector * 512) as u64);
        }
    }
    for off in [0usize, 4096] {
        if u32_le(head, off) == Some(MD_MAGIC) {
            add("a Linux md RAID member (superblock 1.1/1.2)", off as u64);
        }
    }
    if at(
        head,
        4096 + 24,
        &[0xc6, 0x85, 0x73, 0xf6, 0x4e, 0x1a, 0x45, 0xca],
    ) {
        add("a bcache device", 4096 + 24);
    }
    if zfs_label(head, 0) {
        add("a ZFS pool member (vdev label 0)", 128 << 10);
    }
    // The end of the target: backup GPT, md 0.90/1.0, ZFS labels 2 and 3.
    let tail_start = size.saturating_sub(tail.len() as u64);
    let in_tail = |abs: u64| abs.checked_sub(tail_start).map(|o| o as usize);
    if size >= 512
        && let Some(o) = in_tail(size / 512 * 512 - 512)
        && at(tail, o, b"EFI PART")
    {
        add(
            "a GPT partition table (backup header)",
            size / 512 * 512 - 512,
        );
    }
    let md090 = (size & !0xFFFF).saturating_sub(0x10000);
    if let Some(o) = in_tail(md090)
        && u32_le(tail, o) == Some(MD_MAGIC)
    {
        add("a Linux md RAID member (superblock 0.90)", md090);
    }
    let md10 = (size.saturating_sub(8192)) & !0xFFF;
    if let Some(o) = in_tail(md10)
        && u32_le(tail, o) == Some(MD_MAGIC)
    {
        add("a Linux md RAID member (superblock 1.0)", md10);
    }
    let zfs_end = size & !((256 << 10) - 1);
    for (n, back) in [(2, 512u64 << 10), (3, 256 << 10)] {
        if let Some(o) = zfs_end.checked_sub(back).and_then(in_tail)
            && zfs_label(tail, o)
        {
            let what = if n == 2 {
                "a ZFS pool member (vdev label 2)"
            } else {
                "a ZFS pool member (vdev label 3)"
            };
            add(what, zfs_end - back);
        }
    }
    found.dedup_by(|a, b| a.what == b.what);
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blank() -> (Vec<u8>, Vec<u8>) {
        (vec![0u8; HEAD_BYTES], vec![0u8; TAIL_BYTES])
    }

    fn whats(head: &[u8], tail: &[u8], size: u64) -> Vec<&'static str> {
        detect(head, tail, size)
            .into_iter()
            .map(|f| f.what)
            .collect()
    }

    #[test]
    fn a_blank_device_has_no_signature() {
        let (h, t) = blank();
        assert!(detect(&h, &t, 1 << 30).is_empty());
    }

    #[test]
    fn each_signature_is_recognised_at_its_offset() {
        let cases: Vec<(usize, &[u8], &str)> = vec![
            (510, &[0x55, 0xAA], "MBR"),
            (512, b"EFI PART", "GPT"),
            (1080, &[0x53, 0xEF], "ext2/3/4"),
            (0, b"XFSB", "XFS"),
            (65600, b"_BHRfS_M", "btrfs"),
            (4086, b"SWAPSPACE2", "swap"),
            (0, b"LUKS\xba\xbe", "LUKS"),
            (4096, &[0xfc, 0x4e, 0x2b, 0xa9], "md RAID"),
            (3, b"NTFS    ", "NTFS"),
        ];
        for (off, magic, name) in cases {
            let (mut h, t) = blank();
            h[off..off + magic.len()].copy_from_slice(magic);
            let w = whats(&h, &t, 1 << 30);
            assert!(w.iter().any(|x| x.contains(name)), "{name}: {w:?}");
        }
    }

    #[test]
    fn lvm_and_zfs_and_end_of_device_signatures() {
        let (mut h, mut t) = blank();
        h[512..520].copy_from_slice(b"LABELONE");
        h[536..544].copy_from_slice(b"LVM2 001");
        h[(128 << 10) + 3 * 1024..(128 << 10) + 3 * 1024 + 8]
            .copy_from_slice(&ZFS_UB_MAGIC.to_le_bytes());
        let size = 1u64 << 30;
        t[TAIL_BYTES - 512..TAIL_BYTES - 504].copy_from_slice(b"EFI PART");
        let w = whats(&h, &t, size);
        assert!(w.iter().any(|x| x.contains("LVM2")), "{w:?}");
        assert!(w.iter().any(|x| x.contains("ZFS")), "{w:?}");
        assert!(w.iter().any(|x| x.contains("backup header")), "{w:?}");
    }

    #[test]
    fn short_buffers_do_not_panic() {
        for n in [0usize, 1, 100, 511, 4000] {
            let b = vec![0x55u8; n];
            let _ = detect(&b, &b, n as u64);
        }
    }
}
