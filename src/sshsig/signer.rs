//! The key a record is signed with, as `ssh-keygen -Y sign -f KEY` finds it: the
//! key file names the key (an OpenSSH private key, or its `.pub` when the private
//! half is in an agent); an ssh-agent that `SSH_AUTH_SOCK` names signs when it
//! holds that key, else the key file itself does, unless a passphrase protects it
//! (seekprobe asks for none: `ssh-add KEY` once, and the agent signs). ed25519 keys
//! only, the key OpenSSH makes by default.

use super::agent::Agent;
use super::{HASH, NAMESPACE, fingerprint};
use ssh_key::{Algorithm, LineEnding, PrivateKey, PublicKey, SshSig};
use std::path::{Path, PathBuf};

/// Who signs with the key.
#[derive(Debug, Clone)]
enum Hand {
    /// The agent holds it.
    Agent(Agent),
    /// The key file, read without a passphrase.
    File(Box<PrivateKey>),
}

/// A key ready to sign records, checked before any work (a burn-in that signs at
/// its end finds out at its start that the key cannot sign).
#[derive(Debug, Clone)]
pub struct Signer {
    /// The key file, as named.
    pub path: PathBuf,
    public: PublicKey,
    hand: Hand,
}

impl Signer {
    /// The key `path` names, with the agent that holds it or its private half
    /// read; Err says what is wrong and what to do.
    pub fn open(path: &Path) -> Result<Signer, String> {
        Self::open_with(path, Agent::from_env())
    }

    /// [`Signer::open`] with this agent (None: no agent).
    pub fn open_with(path: &Path, agent: Option<Agent>) -> Result<Signer, String> {
        let shown = path.display();
        let meta = std::fs::metadata(path)
            .map_err(|e| format!("{shown}: {}", crate::error::describe_io(&e)))?;
        if !meta.is_file() || meta.len() > 64 * 1024 {
            return Err(format!(
                "{shown}: not a key file; give an OpenSSH private key (ssh-keygen -t ed25519 makes one)"
            ));
        }
        let text = std::fs::read_to_string(path).map_err(|e| {
            format!(
                "{shown}: not a key file ({}); give an OpenSSH private key",
                crate::error::describe_io(&e)
            )
        })?;
        let (public, private) = match PrivateKey::from_openssh(&text) {
            Ok(k) => (k.public_key().clone(), Some(k)),
            Err(_) => match PublicKey::from_openssh(text.trim()) {
                Ok(k) => (k, None),
                Err(e) => {
                    return Err(format!(
                        "{shown}: neither an OpenSSH private key nor a public key ({e}); give the key file ssh-keygen wrote (not a PEM or PuTTY key)"
                    ));
                }
            },
        };
        if public.algorithm() != Algorithm::Ed25519 {
            return Err(format!(
                "{shown}: an {} key; seekprobe signs with ed25519 keys (`ssh-keygen -t ed25519` makes one; `ssh-keygen -Y sign -n {NAMESPACE}` signs with this one)",
                public.algorithm()
            ));
        }
        let mut agent_said = None;
        if let Some(agent) = agent {
            match agent.holds(public.key_data()) {
                Ok(true) => {
                    return Ok(Signer {
                        path: path.to_path_buf(),
                        public,
                        hand: Hand::Agent(agent),
                    });
                }
                Ok(false) => {
                    agent_said = Some(format!(
                        "the ssh-agent at {} does not hold it",
                        agent.socket.display()
                    ))
                }
                Err(e) => agent_said = Some(e),
            }
        }
        let agent_said = agent_said.unwrap_or_else(|| "no ssh-agent is set (SSH_AUTH_SOCK)".into());
        match private {
            Some(k) if !k.is_encrypted() => Ok(Signer {
                path: path.to_path_buf(),
                public,
                hand: Hand::File(Box::new(k)),
            }),
            Some(_) => Err(format!(
                "{shown}: protected by a passphrase, and {agent_said}; add it to an agent (`eval $(ssh-agent)`, `ssh-add {shown}`) and sign again"
            )),
            None => Err(format!(
                "{shown}: a public key, and {agent_said}; give the private key, or add it to an agent (`ssh-add`)"
            )),
        }
    }

    /// The key's fingerprint (`SHA256:...`).
    pub fn fingerprint(&self) -> String {
        fingerprint(&self.public)
    }

    /// Where the signing happens, in words: "the ssh-agent at SOCKET" or "the key file".
    pub fn by(&self) -> String {
        match &self.hand {
            Hand::Agent(a) => format!("the ssh-agent at {}", a.socket.display()),
            Hand::File(_) => "the key file".into(),
        }
    }

    /// The SSHSIG signature of `record` (a run file's bytes) in [`NAMESPACE`], as
    /// PEM text (`-----BEGIN SSH SIGNATURE-----`), checked against the key before it
    /// is handed out.
    pub fn sign(&self, record: &[u8]) -> Result<String, String> {
        let sig = match &self.hand {
            Hand::File(k) => k.sign(NAMESPACE, HASH, record).map_err(|e| e.to_string())?,
            Hand::Agent(agent) => {
                let data =
                    SshSig::signed_data(NAMESPACE, HASH, record).map_err(|e| e.to_string())?;
                let signature = agent.sign(self.public.key_data(), &data)?;
                SshSig::new(self.public.key_data().clone(), NAMESPACE, HASH, signature)
                    .map_err(|e| e.to_string())?
            }
        };
        self.public
            .verify(NAMESPACE, record, &sig)
            .map_err(|e| format!("{} made a signature that does not hold ({e})", self.by()))?;
        sig.to_pem(LineEnding::LF).map_err(|e| e.to_string())
    }
}
