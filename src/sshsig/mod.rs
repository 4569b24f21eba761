//! The run record's SSH signature (docs/record.md): a saved run signed with the
//! operator's ed25519 key in OpenSSH's SSHSIG format (PROTOCOL.sshsig, the format
//! of `ssh-keygen -Y sign`), in the namespace [`NAMESPACE`], kept beside the run as
//! `RUN.json.sig` ([`beside`]), so `ssh-keygen -Y verify` checks it without
//! seekprobe. The format and the cryptography are RustCrypto's `ssh-key` crate;
//! this room reads the key ([`signer`], through an ssh-agent where one holds it,
//! [`agent`]), reads an allowed_signers file ([`allowed`]) and says what a
//! signature proves of a record's bytes ([`check`], a [`Seal`]). It imports
//! nothing of seekprobe: it signs and checks bytes.

pub mod agent;
pub mod allowed;
pub mod signer;

use ssh_key::{Algorithm, HashAlg, PublicKey, SshSig};
use std::path::{Path, PathBuf};

/// The SSHSIG namespace of a seekprobe record: a signature made for anything else
/// (`git`, `file`, an e-mail) never passes for one over a record, and `ssh-keygen
/// -Y verify -n seekprobe-record` checks it.
pub const NAMESPACE: &str = "seekprobe-record";

/// The hash SSHSIG signs the record's bytes with: SHA-512, as `ssh-keygen -Y sign`.
pub const HASH: HashAlg = HashAlg::Sha512;

/// Where the signature of the run file `run` is kept: `RUN.json.sig`, the name
/// `ssh-keygen -Y sign -f KEY RUN.json` gives it.
pub fn beside(run: &Path) -> PathBuf {
    let mut name = run.as_os_str().to_owned();
    name.push(".sig");
    PathBuf::from(name)
}

/// A key's SHA-256 fingerprint as `ssh-keygen -l` prints it (`SHA256:` and
/// unpadded base64).
pub fn fingerprint(key: &PublicKey) -> String {
    key.fingerprint(HashAlg::Sha256).to_string()
}

/// What a record's signature says of its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Seal {
    /// No signature beside the record.
    Unsigned,
    /// The signature holds: this key signed these very bytes as a seekprobe record.
    Holds {
        /// The key's fingerprint ([`fingerprint`]).
        key: String,
        /// The identities an allowed_signers file gives the key (None when no file
        /// was given: the reader compares the fingerprint with the signer's own).
        signers: Option<Vec<String>>,
    },
    /// The signature holds, but its key is not among the allowed signers given.
    NotAllowed {
        /// The key's fingerprint.
        key: String,
        /// The allowed_signers file, as named.
        file: String,
        /// Why each line of the file that lists the key does not allow it here
        /// (another namespace, expired, ...); empty when no line lists it.
        why: Vec<String>,
    },
    /// The signature does not hold for this record: why, in words (changed after it
    /// was signed, another namespace, not a signature).
    Broken {
        /// The key that signed, when the signature could be read.
        key: Option<String>,
        /// Why it does not hold.
        why: String,
    },
    /// seekprobe cannot tell: a key type it does not verify (ed25519 only).
    Unchecked {
        /// The key's fingerprint.
        key: String,
        /// Why, with what checks it instead.
        why: String,
    },
}

impl Seal {
    /// Whether the signature holds (and, with an allowed_signers file, its key is
    /// allowed): the only state `verify-record` accepts.
    pub fn holds(&self) -> bool {
        matches!(self, Seal::Holds { .. })
    }

    /// The state in a few words: "signed", "unsigned", "not an allowed signer",
    /// "signature does not hold", "signature not checked".
    pub fn state(&self) -> &'static str {
        match self {
            Seal::Unsigned => "unsigned",
            Seal::Holds { .. } => "signed",
            Seal::NotAllowed { .. } => "not an allowed signer",
            Seal::Broken { .. } => "signature does not hold",
            Seal::Unchecked { .. } => "signature not checked",
        }
    }

    /// The key that signed, when the signature names one.
    pub fn key(&self) -> Option<&str> {
        match self {
            Seal::Unsigned | Seal::Broken { key: None, .. } => None,
            Seal::Holds { key, .. }
            | Seal::NotAllowed { key, .. }
            | Seal::Unchecked { key, .. }
            | Seal::Broken { key: Some(key), .. } => Some(key),
        }
    }

    /// The whole state in one sentence, for a line of text or the page (the
    /// signature file named as [`Seal::describe_for`] names it, where the run's
    /// file is known).
    pub fn describe(&self) -> String {
        match self {
            Seal::Unsigned => "unsigned: no signature file beside it".into(),
            Seal::Holds { key, signers: None } => format!(
                "signed by {key}: the signature holds (no allowed_signers file given: compare the key with the signer's)"
            ),
            Seal::Holds {
                key,
                signers: Some(who),
            } => format!(
                "signed by {} ({key}), an allowed signer: the signature holds",
                who.join(", ")
            ),
            Seal::NotAllowed { key, file, why } => {
                let mut s = format!(
                    "signed by {key}, a key that is not among the allowed signers of {file}"
                );
                for w in why {
                    s.push_str(&format!(": its line there {w}"));
                }
                s
            }
            Seal::Broken {
                key: Some(key),
                why,
            } => {
                format!("the signature by {key} does not hold: {why}")
            }
            Seal::Broken { key: None, why } => format!("the signature does not hold: {why}"),
            Seal::Unchecked { key, why } => format!("signed by {key}, not checked: {why}"),
        }
    }

    /// [`Seal::describe`] of the run file `run`: an unsigned one names the
    /// signature file it lacks ([`beside`]: `batch.json.sig`).
    pub fn describe_for(&self, run: &Path) -> String {
        match self {
            Seal::Unsigned => format!(
                "unsigned: no signature file {} beside it",
                beside(run).display()
            ),
            other => other.describe(),
        }
    }
}

/// What `signature` (the text of `RUN.json.sig`, None when there is none) says of
/// `record` (the run file's exact bytes), with the allowed signers when given
/// (their file's name, and what they hold).
pub fn check(
    record: &[u8],
    signature: Option<&str>,
    allowed: Option<&allowed::AllowedSigners>,
) -> Seal {
    let Some(text) = signature else {
        return Seal::Unsigned;
    };
    let sig = match SshSig::from_pem(text.trim_start()) {
        Ok(s) => s,
        Err(e) => {
            return Seal::Broken {
                key: None,
                why: format!("it is not an SSH signature (SSHSIG) that can be read ({e})"),
            };
        }
    };
    let public = PublicKey::from(sig.public_key().clone());
    let key = fingerprint(&public);
    if sig.namespace() != NAMESPACE {
        return Seal::Broken {
            key: Some(key),
            why: format!(
                "it was made in the namespace \"{}\", not \"{NAMESPACE}\": a signature for another purpose",
                sig.namespace()
            ),
        };
    }
    if sig.algorithm() != Algorithm::Ed25519 {
        return Seal::Unchecked {
            key,
            why: format!(
                "seekprobe checks ed25519 signatures, this one is {}; `ssh-keygen -Y verify -n {NAMESPACE}` checks it",
                sig.algorithm()
            ),
        };
    }
    if public.verify(NAMESPACE, record, &sig).is_err() {
        return Seal::Broken {
            key: Some(key),
            why: "the record was changed after it was signed (its bytes are not those the key signed)"
                .into(),
        };
    }
    match allowed {
        None => Seal::Holds { key, signers: None },
        Some(a) => match a.principals(&public, NAMESPACE) {
            Ok(who) => Seal::Holds {
                key,
                signers: Some(who),
            },
            Err(why) => Seal::NotAllowed {
                key,
                file: a.file.clone(),
                why,
            },
        },
    }
}

/// The largest signature file read: an SSHSIG of an ed25519 key is about 300
/// bytes, of a 16384-bit RSA key under 6 KiB.
const MAX_SIGNATURE: u64 = 64 * 1024;

/// [`check`] of the run file at `run` (its bytes as they are now) with the
/// signature beside it ([`beside`]); None for standard input (`-`), which has no
/// place beside it. A signature file that cannot be read, or is not a regular
/// file of at most [`MAX_SIGNATURE`] bytes, does not hold.
pub fn check_file(
    run: &Path,
    record: &[u8],
    allowed: Option<&allowed::AllowedSigners>,
) -> Option<Seal> {
    if run == Path::new("-") {
        return None;
    }
    let sig_path = beside(run);
    let broken = |why: String| {
        Some(Seal::Broken {
            key: None,
            why: format!("{} {why}", sig_path.display()),
        })
    };
    // Looked at before it is opened: a FIFO would block, a device never end.
    match std::fs::metadata(&sig_path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Some(Seal::Unsigned),
        Err(e) => return broken(format!("cannot be read: {e}")),
        Ok(m) if !m.is_file() => return broken("is not a regular file: not a signature".into()),
        Ok(m) if m.len() > MAX_SIGNATURE => {
            return broken(format!(
                "holds {} bytes: not a signature (a few hundred bytes)",
                m.len()
            ));
        }
        Ok(_) => {}
    }
    let text = match std::fs::read(&sig_path) {
        Ok(bytes) => bytes,
        Err(e) => return broken(format!("cannot be read: {e}")),
    };
    let text = String::from_utf8_lossy(&text);
    Some(check(record, Some(&text), allowed))
}

#[cfg(test)]
mod tests;
