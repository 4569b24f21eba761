//! badblocks' list format, for `--bad-blocks FILE`: the failed blocks, one decimal
//! block number a line, ascending, each once, in blocks of `--bad-blocks-size`
//! bytes counted from the start of the probed device (badblocks' `-b` and its
//! `-o` output; e2fsprogs misc/badblocks.c writes each with `"%lu\n"`).
//!
//! `mke2fs -l FILE` and `e2fsck -l FILE` read such a list with
//! `ext2fs_read_bb_FILE2` (e2fsprogs lib/ext2fs/read_bb_file.c): one number a
//! line, in the file system's own block size, relative to the start of the device
//! or partition that holds the file system; a number of 2^32 or more fails the
//! whole list (EOVERFLOW, "Badblocks isn't going to be updated for 64bit"), one
//! outside the file system is skipped with a message. So the list must be made
//! with the block size of the file system it feeds, on the partition's own device.

use std::io::{self, Write};

/// The block size unless `--bad-blocks-size` says otherwise: ext4's usual block.
pub const DEFAULT_BLOCK_SIZE: u32 = 4096;
/// The smallest block size accepted: ext2/3/4's smallest block.
pub const MIN_BLOCK_SIZE: u32 = 1024;
/// The largest block size accepted: ext2/3/4's largest block.
pub const MAX_BLOCK_SIZE: u32 = 65536;

/// Why a bad-block list cannot be written.
#[derive(Debug, thiserror::Error)]
pub enum BadBlocksError {
    /// The block size is not one a file system of the ext family has.
    #[error(
        "--bad-blocks-size {0} is not a power of two from {MIN_BLOCK_SIZE} to {MAX_BLOCK_SIZE} bytes (the file system's block size, e.g. 4096)"
    )]
    BlockSize(u32),
    /// A block number does not fit badblocks' 32-bit block numbers.
    #[error(
        "failed block {block} (of {block_size} bytes) does not fit a 32-bit block number, which mke2fs and e2fsck require; use a larger --bad-blocks-size"
    )]
    TooLarge {
        /// The first block number past `u32::MAX`, counted in `block_size` blocks.
        block: u64,
        /// The list's block size in bytes (`--bad-blocks-size`).
        block_size: u32,
    },
    /// Writing the list failed.
    #[error("cannot write the bad-block list: {0}")]
    Io(#[from] io::Error),
}

/// Check a `--bad-blocks-size`.
pub fn check_block_size(block_size: u32) -> Result<(), BadBlocksError> {
    if block_size.is_power_of_two() && (MIN_BLOCK_SIZE..=MAX_BLOCK_SIZE).contains(&block_size) {
        Ok(())
    } else {
        Err(BadBlocksError::BlockSize(block_size))
    }
}

/// The blocks of `block_size` bytes that hold any of the failed sectors, given as
/// (first LBA, sectors) spans of `sector_size`-byte sectors in any order (as
/// [`crate::results::failures::Failures::covered`] gives them): ascending, each once.
/// A block is bad when any byte of it failed.
pub fn blocks(
    spans: impl IntoIterator<Item = (u64, u64)>,
    sector_size: u32,
    block_size: u32,
) -> impl Iterator<Item = u64> {
    let (ss, bs) = (u128::from(sector_size), u128::from(block_size));
    let mut spans: Vec<(u64, u64)> = spans.into_iter().filter(|&(_, n)| n > 0).collect();
    spans.sort_unstable();
    let mut next = 0u64; // the first block not yet given
    spans.into_iter().flat_map(move |(start, n)| {
        let first = (u128::from(start) * ss / bs) as u64;
        let last = ((u128::from(start) + u128::from(n)) * ss - 1) / bs;
        let last = last.min(u128::from(u64::MAX - 1)) as u64;
        let from = first.max(next);
        next = next.max(last + 1);
        from..=last
    })
}

/// Write the list of [`blocks`] to `out`, one number a line; returns how many.
/// Nothing past the first block number that does not fit 32 bits is written.
pub fn write(
    out: &mut impl Write,
    spans: impl IntoIterator<Item = (u64, u64)>,
    sector_size: u32,
    block_size: u32,
) -> Result<u64, BadBlocksError> {
    check_block_size(block_size)?;
    let mut out = io::BufWriter::new(out);
    let mut n = 0u64;
    for block in blocks(spans, sector_size, block_size) {
        if block > u64::from(u32::MAX) {
            return Err(BadBlocksError::TooLarge { block, block_size });
        }
        writeln!(out, "{block}")?;
        n += 1;
    }
    out.flush()?;
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(spans: &[(u64, u64)], ss: u32, bs: u32) -> String {
        let mut v = Vec::new();
        write(&mut v, spans.iter().copied(), ss, bs).unwrap();
        String::from_utf8(v).unwrap()
    }

    #[test]
    fn sectors_become_the_blocks_that_hold_them() {
        // 512-byte sectors, 4 KiB blocks: sectors 0..8 are block 0.
        assert_eq!(list(&[(3, 1)], 512, 4096), "0\n");
        assert_eq!(list(&[(7, 2)], 512, 4096), "0\n1\n");
        assert_eq!(list(&[(8, 8), (16, 1), (40, 1)], 512, 4096), "1\n2\n5\n");
        // Overlapping or repeated spans give each block once.
        assert_eq!(
            list(&[(0, 20), (4, 4), (17, 30)], 512, 4096),
            "0\n1\n2\n3\n4\n5\n"
        );
        // A 4096-byte sector is four 1 KiB blocks.
        assert_eq!(list(&[(2, 1)], 4096, 1024), "8\n9\n10\n11\n");
        assert_eq!(list(&[], 512, 4096), "");
        assert_eq!(list(&[(5, 0)], 512, 4096), "");
    }

    #[test]
    fn block_sizes_and_32_bit_numbers_are_checked() {
        for bs in [1024u32, 4096, 65536] {
            assert!(check_block_size(bs).is_ok());
        }
        for bs in [0u32, 512, 3000, 131072] {
            assert!(matches!(check_block_size(bs), Err(BadBlocksError::BlockSize(b)) if b == bs));
        }
        // The last 4 KiB block that fits: 16 TiB - 4 KiB.
        let last = u64::from(u32::MAX);
        assert_eq!(list(&[(last * 8, 8)], 512, 4096), format!("{last}\n"));
        let err = write(&mut Vec::new(), [(last * 8 + 8, 1)], 512, 4096).unwrap_err();
        assert!(
            err.to_string().contains("larger --bad-blocks-size"),
            "{err}"
        );
        assert!(matches!(err, BadBlocksError::TooLarge { block, .. } if block == last + 1));
    }
}
