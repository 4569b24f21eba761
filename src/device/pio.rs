//! Positioned I/O, with one error convention for every engine and target.
//!
//! [`read_exact_at`] and [`write_all_at`] move the whole buffer at an offset with
//! `pread`/`pwrite` (through rustix), retrying when a signal interrupts the call and
//! continuing after a partial transfer. The result is `io::Result<()>`: the errno of
//! the system call as an [`io::Error`], or, when the file ends before the buffer is
//! full, an [`io::ErrorKind::UnexpectedEof`] error made by [`short_read`] (for a
//! read) or an [`io::ErrorKind::WriteZero`] one (for a write). A queued engine whose
//! kernel reports a transfer count itself (io_uring) uses [`short_read`] for the
//! same message.

use std::io;
use std::os::fd::AsFd;

/// The error for a read that returned fewer bytes than asked (the end of the file
/// or device).
pub fn short_read(got: usize, len: usize) -> io::Error {
    io::Error::new(
        io::ErrorKind::UnexpectedEof,
        format!("short read: {got} of {len} bytes"),
    )
}

/// Read exactly `buf.len()` bytes at `offset` of `fd`.
#[inline]
pub fn read_exact_at(fd: impl AsFd, buf: &mut [u8], offset: u64) -> io::Result<()> {
    let fd = fd.as_fd();
    let len = buf.len();
    let mut done = 0;
    while done < len {
        match rustix::io::pread(fd, &mut buf[done..], offset + done as u64) {
            Ok(0) => return Err(short_read(done, len)),
            Ok(n) => done += n,
            Err(rustix::io::Errno::INTR) => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(())
}

/// Write all of `buf` at `offset` of `fd`.
#[inline]
pub fn write_all_at(fd: impl AsFd, buf: &[u8], offset: u64) -> io::Result<()> {
    let fd = fd.as_fd();
    let len = buf.len();
    let mut done = 0;
    while done < len {
        match rustix::io::pwrite(fd, &buf[done..], offset + done as u64) {
            Ok(0) => {
                return Err(io::Error::new(
                    io::ErrorKind::WriteZero,
                    format!("short write: {done} of {len} bytes"),
                ));
            }
            Ok(n) => done += n,
            Err(rustix::io::Errno::INTR) => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn whole_buffers_move_and_the_end_of_the_file_is_a_short_read() {
        let mut f = tempfile::tempfile().unwrap();
        f.write_all(&[1u8; 4096]).unwrap();
        write_all_at(&f, &[9u8; 512], 1024).unwrap();
        let mut b = [0u8; 1024];
        read_exact_at(&f, &mut b, 512).unwrap();
        assert_eq!(&b[..512], &[1u8; 512]);
        assert_eq!(&b[512..], &[9u8; 512]);
        let e = read_exact_at(&f, &mut b, 3584).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof);
        assert_eq!(e.to_string(), "short read: 512 of 1024 bytes");
    }

    #[test]
    fn a_system_error_keeps_its_errno() {
        let ro = std::fs::File::open("/dev/null").unwrap();
        let e = write_all_at(&ro, &[0u8; 8], 0).unwrap_err();
        assert_eq!(
            e.raw_os_error(),
            Some(rustix::io::Errno::BADF.raw_os_error())
        );
    }
}
