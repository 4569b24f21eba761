//! What a simulated drive stores, and its data faults (fake=, keeps=, corrupt=, unwritable=).
use super::open;
use crate::clock::Clock;
use crate::device::{AlignedBuf, IoData, QueueModel, Target};
use crate::results::failures::ReadBack;
use crate::stamps::stamp::{StampSize, Stamper};
use crate::test_plans::{Op, OpKind};
use std::io;

const MIB: u64 = 1 << 20;

/// Write `sectors` stamped sectors at sector `lba` (one write), then read them
/// back (one read): the write's outcome and the verdicts.
fn round_trip(
    t: &mut super::SimTarget,
    st: &Stamper,
    lba: u64,
    sectors: u64,
) -> (io::Result<()>, Vec<ReadBack>) {
    let ss = u64::from(st.sector_size());
    let mut buf = AlignedBuf::new((sectors * ss) as usize);
    st.stamp(&mut buf, lba);
    let w = t.write_at(buf.for_write(..), lba * ss);
    let mut back = AlignedBuf::new(buf.len());
    back.fill(0xee);
    t.read_at(back.for_read(..), lba * ss).unwrap();
    (w, st.check(&back, lba).collect())
}

#[test]
fn a_clean_drive_reads_back_what_was_written_and_zeros_elsewhere() {
    for spec in ["sim:ssd?size=1G", "sim:hdd?size=1G&sector=4096"] {
        let mut t = open(spec);
        let ss = u64::from(t.info().sector_size);
        let st = Stamper::new(1, 0, StampSize::new(ss as u32).unwrap());
        for lba in [0, 1, 77, 1000, (1 << 30) / ss - 8] {
            let (w, v) = round_trip(&mut t, &st, lba, 8);
            w.unwrap();
            assert!(v.iter().all(|v| v.is_ok()), "{spec} lba {lba}: {v:?}");
        }
        // Overwritten in part by another pass: both show.
        let st1 = Stamper::new(1, 1, StampSize::new(ss as u32).unwrap());
        let mut b = AlignedBuf::new((2 * ss) as usize);
        st1.stamp(&mut b, 78);
        t.write_at(b.for_write(..), 78 * ss).unwrap();
        let mut back = AlignedBuf::new((8 * ss) as usize);
        t.read_at(back.for_read(..), 77 * ss).unwrap();
        let v: Vec<ReadBack> = st.check(&back, 77).collect();
        assert!(v[0].is_ok() && v[3..].iter().all(|v| v.is_ok()));
        assert!(!v[1].is_ok() && !v[2].is_ok(), "{v:?}");
        assert!(
            st1.check(&back[ss as usize..3 * ss as usize], 78)
                .all(|v| v.is_ok())
        );
        // Never written: zeros.
        let mut z = AlignedBuf::new(4096);
        z.fill(0xff);
        t.read_at(z.for_read(..), 500 * MIB).unwrap();
        assert!(z.iter().all(|&b| b == 0));
    }
}

#[test]
fn past_a_fake_capacity_addresses_wrap_and_read_back_misdirected() {
    let mut t = open("sim:ssd?size=256M&fake=64M");
    assert_eq!(t.info().media_size_bytes, 256 * MIB);
    let st = Stamper::new(9, 0, StampSize::new(512).unwrap());
    let real = 64 * MIB / 512;
    // Below the real size: fine.
    let (w, v) = round_trip(&mut t, &st, 1000, 16);
    w.unwrap();
    assert!(v.iter().all(|v| v.is_ok()));
    // Written above, then its alias below: the one above reads the lower stamp.
    let (w, _) = round_trip(&mut t, &st, 2 * real + 1000, 16);
    w.unwrap();
    let (_, v) = round_trip(&mut t, &st, 1000, 16);
    assert!(v.iter().all(|v| v.is_ok()));
    let mut back = AlignedBuf::new(16 * 512);
    t.read_at(back.for_read(..), (2 * real + 1000) * 512)
        .unwrap();
    let v: Vec<ReadBack> = st.check(&back, 2 * real + 1000).collect();
    for (i, v) in v.iter().enumerate() {
        assert_eq!(
            *v,
            ReadBack::Misdirected {
                found_lba: 1000 + i as u64,
                found_pass: 0
            }
        );
    }
    // A write across the wrap is split: its tail lands at the start.
    let (w, v) = round_trip(&mut t, &st, real - 4, 8);
    w.unwrap();
    assert!(v.iter().all(|v| v.is_ok()));
    let mut head = AlignedBuf::new(4 * 512);
    t.read_at(head.for_read(..), 0).unwrap();
    assert!(
        st.check(&head, real).all(|v| v.is_ok()),
        "the tail wrapped to 0"
    );
}

#[test]
fn corrupt_ranges_read_back_altered_without_an_error() {
    let mut t = open("sim:nvme?size=64M&corrupt=100-104");
    let st = Stamper::new(3, 0, StampSize::new(512).unwrap());
    let (w, v) = round_trip(&mut t, &st, 96, 16);
    w.unwrap();
    let bad: Vec<usize> = (0..16).filter(|&i| !v[i].is_ok()).collect();
    assert_eq!(bad, [4, 5, 6, 7]);
    assert!(bad.iter().all(|&i| v[i] == ReadBack::Corrupt));
    // The same alteration on every read, one bit a sector.
    let mut a = AlignedBuf::new(512);
    let mut b = AlignedBuf::new(512);
    t.read_at(a.for_read(..), 101 * 512).unwrap();
    t.read_at(b.for_read(..), 101 * 512).unwrap();
    assert_eq!(a[..], b[..]);
    let mut want = vec![0u8; 512];
    st.stamp(&mut want, 101);
    let flipped: u32 = a.iter().zip(&want).map(|(x, y)| (x ^ y).count_ones()).sum();
    assert_eq!(flipped, 1);
}

#[test]
fn writes_in_unwritable_ranges_fail_with_eio_and_store_nothing() {
    let mut t = open("sim:ssd?size=64M&unwritable=2048-2056");
    let st = Stamper::new(5, 0, StampSize::new(512).unwrap());
    let t0 = t.virtual_clock().now_ns();
    let (w, v) = round_trip(&mut t, &st, 2040, 16);
    assert_eq!(w.unwrap_err().raw_os_error(), Some(libc_eio()));
    assert!(t.virtual_clock().now_ns() > t0);
    assert!(v.iter().all(|v| *v == ReadBack::Corrupt), "{v:?}");
    // Beside the range, writes succeed; reads there never fail.
    let (w, v) = round_trip(&mut t, &st, 2056, 8);
    w.unwrap();
    assert!(v.iter().all(|v| v.is_ok()));
    assert_eq!(t.stored().1, 1);
}

fn libc_eio() -> i32 {
    rustix::io::Errno::IO.raw_os_error()
}

#[test]
fn a_rewritten_bad_sector_is_remapped_and_reads_back() {
    let mut t = open("sim:ssd?size=64M&bad=10-12");
    let mut buf = AlignedBuf::new(4096);
    assert!(t.read_at(buf.for_read(..), 8 * 512).is_err());
    let st = Stamper::new(5, 0, StampSize::new(512).unwrap());
    let (w, v) = round_trip(&mut t, &st, 8, 8);
    w.unwrap();
    assert!(v.iter().all(|v| v.is_ok()));
}

#[test]
fn the_queue_model_moves_the_same_data() {
    let mut t = open("sim:ssd?size=256M&fake=64M");
    let st = Stamper::new(2, 0, StampSize::new(512).unwrap());
    let mut buf = AlignedBuf::new(4096);
    st.stamp(&mut buf, 8);
    let op = |offset, kind| Op {
        offset,
        len: 4096,
        kind,
    };
    let q: &mut dyn QueueModel = &mut t;
    q.service_data(&op(4096, OpKind::Write), 0, IoData::Write(&buf))
        .unwrap();
    let mut back = AlignedBuf::new(4096);
    q.service_data(
        &op(4096 + 64 * MIB, OpKind::Read),
        0,
        IoData::Read(&mut back),
    )
    .unwrap();
    assert!(
        st.check(&back, 8).all(|v| v.is_ok()),
        "wrapped, through the queue"
    );
    // And through the Target the same.
    let mut back2 = AlignedBuf::new(4096);
    t.read_at(back2.for_read(..), 4096).unwrap();
    assert_eq!(back[..], back2[..]);
    // A buffer of the wrong length is refused.
    let q: &mut dyn QueueModel = &mut t;
    assert!(
        q.service_data(&op(0, OpKind::Read), 0, IoData::Read(&mut [0u8; 512]))
            .is_err()
    );
}

#[test]
fn fault_keys_are_checked() {
    for (spec, want) in [
        ("sim:ssd?size=64M&fake=64M", "fewer than"),
        ("sim:ssd?size=64M&fake=1000", "whole 512-byte sectors"),
        ("sim:ssd?fake=x", "fake=x"),
        ("sim:ssd?corrupt=5-5", "START must be below END"),
        ("sim:ssd?unwritable=a", "not a sector range"),
    ] {
        let msg = super::bad_sim_msg(spec);
        assert!(msg.contains(want), "{spec}: {msg}");
    }
    let t = open("sim:ssd?size=64M&fake=16M&corrupt=1-2&unwritable=3-4");
    let d = t.info().simulated.clone().unwrap();
    assert!(
        d.contains("fake capacity: stores only 16777216 bytes"),
        "{d}"
    );
    assert!(
        d.contains("corrupting sectors 512-1023, unwritable sectors 1536-2047"),
        "{d}"
    );
}

#[test]
fn a_drive_that_remaps_keeps_the_first_bytes_written_wherever_and_drops_the_rest() {
    let mut t = open("sim:ssd?size=256M&keeps=1M");
    assert_eq!(t.info().media_size_bytes, 256 * MIB);
    let st = Stamper::new(9, 0, StampSize::new(512).unwrap());
    // 512 KiB high up, then 1 MiB at the start: only its first 512 KiB is kept.
    let high = 200 * MIB / 512;
    let (w, v) = round_trip(&mut t, &st, high, 1024);
    w.unwrap();
    assert!(v.iter().all(|v| v.is_ok()));
    let (w, v) = round_trip(&mut t, &st, 0, 2048);
    w.unwrap();
    assert!(v[..1024].iter().all(|v| v.is_ok()));
    // The dropped half reads back as zeros: corrupt, without an error.
    assert!(v[1024..].iter().all(|&v| v == ReadBack::Corrupt));
    // What was kept is kept on rewrite, with another pass's stamps.
    let st2 = Stamper::new(9, 1, StampSize::new(512).unwrap());
    let (w, v) = round_trip(&mut t, &st2, high, 1024);
    w.unwrap();
    assert!(v.iter().all(|v| v.is_ok()));
    assert!(
        t.info()
            .simulated
            .as_deref()
            .unwrap()
            .contains("keeps only the first 1048576 bytes written")
    );
    // keeps= is whole sectors below the size, and not with fake=.
    for bad in [
        "sim:ssd?size=256M&keeps=256M",
        "sim:ssd?size=256M&keeps=1000",
        "sim:ssd?size=256M&keeps=1M&fake=64M",
    ] {
        assert!(super::SimTarget::open(bad).is_err(), "{bad}");
    }
}
