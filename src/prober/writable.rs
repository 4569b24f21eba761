//! Before the first write: the signature check (refused unless --force, and on a
//! failing drive naming its first unreadable byte), then the confirmation.

use super::Sink;
use crate::config::Config;
use crate::device::{AlignedBuf, Target};
use crate::error::ProbeError;
use crate::results::device::TargetKind;
use crate::results::{Warning, WarningCode};
use crate::safety;
use std::io;
use std::path::Path;

/// Why writing was not allowed.
pub enum CheckError {
    /// The sink (standard output) failed.
    Output(io::Error),
    /// Refused: signatures, unreadable signature areas, or not confirmed.
    Refused(ProbeError),
}

/// Before the first write: signatures (refused unless --force), then confirmation.
/// Simulated drives hold no data and need neither. When libblkid could not take
/// part, the warning saying so is given to the sink at once (before any prompt)
/// and returned, for the results, with the byte offsets of sectors that read fine
/// (the head and the tail, when they did): a drive's tests re-read them to tell a
/// drive that stopped answering from a failed region (`engine::liveness`).
pub fn check_writable(
    target: &mut dyn Target,
    cfg: &Config,
    sink: &mut dyn Sink,
) -> Result<(Option<Warning>, Vec<u64>), CheckError> {
    let info = target.info().clone();
    if info.kind == TargetKind::Simulated {
        return Ok((None, Vec::new()));
    }
    // `untested`: refused by seekprobe's rule (a signature, what libblkid could
    // not read), not for what the drive did (unreadable or unanswered).
    let refused = |why: String, hint: &str, untested: bool| {
        CheckError::Refused(ProbeError::Refused {
            path: info.path.clone(),
            why,
            hint: hint.to_string(),
            untested,
        })
    };
    // A request given up (--io-timeout) or left after Ctrl-C: nothing more is
    // asked of the drive, and it is not written, even with --force.
    let (found, unreadable) = read_signatures(target).map_err(|e| {
        refused(
            format!("{e} while looking for signatures; a drive whose signature areas do not answer is not written"),
            "check the drive's cabling and health (dmesg, smartctl); a drive that stopped answering cannot be tested",
            false,
        )
    })?;
    let whole = info.sectors() * u64::from(info.sector_size);
    let good: Vec<u64> = [0, whole.saturating_sub(u64::from(info.sector_size))]
        .into_iter()
        .filter(|_| unreadable.is_none())
        .collect();
    if let Some((offset, e)) = unreadable {
        if !cfg.force {
            return Err(refused(
                format!(
                    "the signature check cannot read the device: byte {offset} is unreadable \
                     ({e}); the drive has unreadable sectors where signatures are kept, so \
                     nothing can be known of what it holds"
                ),
                "if its data may be destroyed, pass --force to run the write tests anyway",
                false,
            ));
        }
        sink.warning(&Warning {
            code: WarningCode::SignaturesUnreadable,
            message: format!(
                "the signature check could not read byte {offset} ({e}): only what read \
                 was checked, and --force overrides the rest"
            ),
            advice: "the drive has unreadable sectors; its write tests say where".into(),
        })
        .map_err(CheckError::Output)?;
    }
    let warning = found.libblkid_unavailable.map(|why| Warning {
        code: WarningCode::SignaturesBuiltinOnly,
        message: format!("libblkid unavailable ({why}): only the built-in list was checked"),
        advice: "install libblkid (util-linux) so that every signature it knows is checked".into(),
    });
    if let Some(w) = &warning {
        sink.warning(w).map_err(CheckError::Output)?;
    }
    if let Some(why) = &found.libblkid_outside {
        if !cfg.force {
            return Err(refused(
                format!("{why}: what the drive holds there was not read, so it cannot be known"),
                "if its data may be destroyed, wipe it (wipefs -a) or pass --force",
                true,
            ));
        }
        sink.warning(&Warning {
            code: WarningCode::SignaturesUnreadable,
            message: format!(
                "{why}: libblkid's findings were not used, and --force overrides the rest"
            ),
            advice: "wipe the drive (wipefs -a) before testing it".into(),
        })
        .map_err(CheckError::Output)?;
    }
    let found = found.found;
    if !found.is_empty() && !cfg.force {
        return Err(refused(
            safety::describe(&found),
            "if its data may be destroyed, wipe it (wipefs -a) or pass --force",
            true,
        ));
    }
    match sink.confirm_write(&info, &found) {
        Ok(true) => Ok((warning, good)),
        Ok(false) => Err(refused(
            "not confirmed".into(),
            "answer yes at the prompt, or pass --yes (required without a terminal)",
            false,
        )),
        Err(e) => Err(CheckError::Output(e)),
    }
}

/// Read the start and the end of the target and look for signatures (libblkid on
/// the path where it loads, and the built-in check on what was read). A read that
/// fails is located to its first unreadable sector (`engine::locate`), returned
/// with its error; what did not read is checked as zeros.
///
/// `Err` when a request went unanswered (the watchdog gave it up, or Ctrl-C
/// left it): then neither libblkid nor anything else reads the drive.
pub fn read_signatures(
    target: &mut dyn Target,
) -> io::Result<(safety::Detection, Option<(u64, io::Error)>)> {
    let info = target.info();
    let path = info.path.clone();
    let ss = u64::from(info.sector_size);
    let whole = info.sectors() * ss;
    let head_len = (safety::COPY_HEAD as u64).min(whole) / ss * ss;
    let tail_len = (safety::COPY_TAIL as u64).min(whole) / ss * ss;
    let mut head = AlignedBuf::new(head_len as usize);
    let mut tail = AlignedBuf::new(tail_len as usize);
    let mut unreadable = None;
    for (buf, at) in [(&mut head, 0), (&mut tail, whole - tail_len)] {
        let Err(e) = target.read_at(buf.for_read(..), at) else {
            continue;
        };
        if unanswered(&e) {
            return Err(e);
        }
        buf.fill(0);
        let mut piece = AlignedBuf::new(buf.len());
        let mut hung = None;
        let first = crate::engine::locate::first_failed(at, buf.len() as u64, ss, &mut |o, n| {
            use crate::engine::locate::LocateRead;
            let n = n as usize;
            match target.read_at(piece.for_read(..n), o) {
                Ok(()) => {
                    buf[(o - at) as usize..][..n].copy_from_slice(&piece[..n]);
                    LocateRead::Ok
                }
                Err(e) if unanswered(&e) => {
                    hung.get_or_insert(e);
                    LocateRead::Failed
                }
                Err(_) => LocateRead::Failed,
            }
        });
        if let Some(e) = hung.take() {
            return Err(e);
        }
        if unreadable.is_none() {
            unreadable = Some((first.unwrap_or(at), e));
        }
    }
    Ok((
        safety::detect(Path::new(&path), &head, &tail, whole),
        unreadable,
    ))
}

/// Whether `e` says the request was given up unanswered (the watchdog, or Ctrl-C).
fn unanswered(e: &io::Error) -> bool {
    crate::device::watched::NoAnswer::of(e).is_some() || crate::device::watched::interrupted(e)
}
