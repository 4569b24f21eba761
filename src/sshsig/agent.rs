//! The two requests of the ssh-agent protocol that signing needs
//! (draft-miller-ssh-agent, sections 3.5 and 3.6): the keys the agent holds, and a
//! signature of some bytes with one of them, over the Unix socket that
//! `SSH_AUTH_SOCK` names. Framing only: the agent signs, `ssh-key` encodes the
//! keys and decodes the signature. (The `ssh-agent-client-rs` crate does the same
//! but builds every key type's cryptography, RSA and the NIST curves among them.)

use ssh_key::encoding::{Decode, Encode};
use ssh_key::{Signature, public::KeyData};
use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::time::Duration;

const FAILURE: u8 = 5;
const REQUEST_IDENTITIES: u8 = 11;
const IDENTITIES_ANSWER: u8 = 12;
const SIGN_REQUEST: u8 = 13;
const SIGN_RESPONSE: u8 = 14;

/// The longest answer read (an agent's list of keys is a few KiB).
const MAX_MESSAGE: usize = 256 * 1024;

/// How long an answer may take: an agent that asks its user to confirm each use
/// of a key (`ssh-add -c`) waits for them.
const ANSWER_WITHIN: Duration = Duration::from_secs(120);

/// An ssh-agent, by its socket.
#[derive(Debug, Clone)]
pub struct Agent {
    /// The socket (`SSH_AUTH_SOCK`).
    pub socket: PathBuf,
}

impl Agent {
    /// The agent `SSH_AUTH_SOCK` names, if it names one.
    pub fn from_env() -> Option<Agent> {
        let socket = std::env::var_os("SSH_AUTH_SOCK").filter(|s| !s.is_empty())?;
        Some(Agent {
            socket: socket.into(),
        })
    }

    /// Whether the agent holds `key` (its private half).
    pub fn holds(&self, key: &KeyData) -> Result<bool, String> {
        let blob = key.encode_vec().map_err(|e| e.to_string())?;
        let answer = self.ask(&[REQUEST_IDENTITIES])?;
        let mut r = match answer.split_first() {
            Some((&IDENTITIES_ANSWER, rest)) => rest,
            _ => return Err(self.unexpected(&answer)),
        };
        let count = u32::decode(&mut r).map_err(|e| self.garbled(e))?;
        for _ in 0..count {
            let held = Vec::<u8>::decode(&mut r).map_err(|e| self.garbled(e))?;
            let _comment = Vec::<u8>::decode(&mut r).map_err(|e| self.garbled(e))?;
            if held == blob {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// The agent's signature of `data` with `key`.
    pub fn sign(&self, key: &KeyData, data: &[u8]) -> Result<Signature, String> {
        let mut request = vec![SIGN_REQUEST];
        let encoded = (|| {
            key.encode_vec()?.encode(&mut request)?;
            data.encode(&mut request)?;
            0u32.encode(&mut request)
        })();
        encoded.map_err(|e| e.to_string())?;
        let answer = self.ask(&request)?;
        match answer.split_first() {
            Some((&SIGN_RESPONSE, mut rest)) => {
                let blob = Vec::<u8>::decode(&mut rest).map_err(|e| self.garbled(e))?;
                Signature::decode(&mut &blob[..]).map_err(|e| {
                    format!(
                        "the ssh-agent at {} answered with a signature that cannot be read ({e})",
                        self.socket.display()
                    )
                })
            }
            Some((&FAILURE, _)) => Err(format!(
                "the ssh-agent at {} refused to sign (a key added with `ssh-add -c` needs its use confirmed)",
                self.socket.display()
            )),
            _ => Err(self.unexpected(&answer)),
        }
    }

    /// Send one message, read its answer (length-prefixed both ways).
    fn ask(&self, message: &[u8]) -> Result<Vec<u8>, String> {
        let io = |e: std::io::Error| {
            format!(
                "the ssh-agent at {} (SSH_AUTH_SOCK) cannot be used: {}",
                self.socket.display(),
                crate::error::describe_io(&e)
            )
        };
        let mut s = UnixStream::connect(&self.socket).map_err(io)?;
        s.set_read_timeout(Some(ANSWER_WITHIN)).map_err(io)?;
        s.set_write_timeout(Some(ANSWER_WITHIN)).map_err(io)?;
        let len = u32::try_from(message.len()).map_err(|_| "a message too long".to_string())?;
        let mut framed = len.to_be_bytes().to_vec();
        framed.extend_from_slice(message);
        s.write_all(&framed).map_err(io)?;
        let mut len = [0u8; 4];
        s.read_exact(&mut len).map_err(io)?;
        let len = u32::from_be_bytes(len) as usize;
        if len == 0 || len > MAX_MESSAGE {
            return Err(format!(
                "the ssh-agent at {} answered with a message of {len} bytes: not an ssh-agent",
                self.socket.display()
            ));
        }
        let mut answer = vec![0u8; len];
        s.read_exact(&mut answer).map_err(io)?;
        Ok(answer)
    }

    fn garbled(&self, e: impl std::fmt::Display) -> String {
        format!(
            "the ssh-agent at {} answered with a message that cannot be read ({e})",
            self.socket.display()
        )
    }

    fn unexpected(&self, answer: &[u8]) -> String {
        format!(
            "the ssh-agent at {} answered with message type {}, not the one asked for",
            self.socket.display(),
            answer.first().copied().unwrap_or(0)
        )
    }
}
