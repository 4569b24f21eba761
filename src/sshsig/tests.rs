//! Unit tests of the record's signature: a key file signs, its signature holds over
//! the very bytes and nothing else, in its namespace only, and an allowed_signers
//! file names the signer or refuses the key. (tests/it/record_sig.rs checks the same
//! against OpenSSH's own ssh-keygen and ssh-agent.)

use super::allowed::AllowedSigners;
use super::signer::Signer;
use super::*;
use ssh_key::private::Ed25519Keypair;
use ssh_key::{LineEnding, PrivateKey};

fn key(seed: u8) -> PrivateKey {
    PrivateKey::from(Ed25519Keypair::from_seed(&[seed; 32]))
}

/// A key file of `key` in a scratch folder, and the signer it opens as (no agent).
fn signer(dir: &Path, key: &PrivateKey) -> Signer {
    let path = dir.join("id_ed25519");
    std::fs::write(&path, key.to_openssh(LineEnding::LF).unwrap().as_bytes()).unwrap();
    Signer::open_with(&path, None).unwrap()
}

fn allowed_line(who: &str, key: &PrivateKey) -> String {
    format!("{who} {}\n", key.public_key().to_openssh().unwrap())
}

#[test]
fn a_signature_holds_over_its_record_alone() {
    let dir = tempfile::tempdir().unwrap();
    let (k, other) = (key(1), key(2));
    let s = signer(dir.path(), &k);
    assert_eq!(s.fingerprint(), fingerprint(k.public_key()));
    let record = br#"{"schema_version":1,"disks":[{"verdict":{"state":"pass"}}]}"#;
    let pem = s.sign(record).unwrap();
    assert!(pem.starts_with("-----BEGIN SSH SIGNATURE-----\n"), "{pem}");
    let key = fingerprint(k.public_key());
    assert_eq!(
        check(record, Some(&pem), None),
        Seal::Holds {
            key: key.clone(),
            signers: None
        }
    );
    // One byte changed.
    let mut changed = record.to_vec();
    changed[48] = b'f';
    let seal = check(&changed, Some(&pem), None);
    assert!(
        matches!(&seal, Seal::Broken { key: Some(k), why } if *k == key && why.starts_with("the record was changed after it was signed")),
        "{seal:?}"
    );
    assert_eq!(check(record, None, None), Seal::Unsigned);
    // The allowed signers name the signer, or refuse its key by its fingerprint.
    let both = allowed_line("alice@example.com,ops@example.com", &k);
    let a = AllowedSigners::parse("allowed", &both).unwrap();
    assert_eq!(
        check(record, Some(&pem), Some(&a)),
        Seal::Holds {
            key: key.clone(),
            signers: Some(vec!["alice@example.com".into(), "ops@example.com".into()])
        }
    );
    let only_other = AllowedSigners::parse("allowed", &allowed_line("bob@x", &other)).unwrap();
    let seal = check(record, Some(&pem), Some(&only_other));
    assert_eq!(
        seal,
        Seal::NotAllowed {
            key: key.clone(),
            file: "allowed".into(),
            why: Vec::new()
        }
    );
    assert!(seal.describe().contains(&key), "{}", seal.describe());
    // A line that allows the key only for git's signatures does not allow it here.
    let git = format!(
        "alice@x namespaces=\"git\" {}\n",
        k.public_key().to_openssh().unwrap()
    );
    let a = AllowedSigners::parse("allowed", &git).unwrap();
    assert!(matches!(
        check(record, Some(&pem), Some(&a)),
        Seal::NotAllowed { .. }
    ));
}

#[test]
fn a_signature_of_another_namespace_or_no_signature_at_all_is_named() {
    let k = key(3);
    let record = b"{}";
    let git = k.sign("git", HASH, record).unwrap();
    let seal = check(record, Some(&git.to_pem(LineEnding::LF).unwrap()), None);
    assert!(
        matches!(&seal, Seal::Broken { why, .. } if why.contains("namespace \"git\"")),
        "{seal:?}"
    );
    let seal = check(record, Some("-----BEGIN SSH SIGNATURE-----\nAAAA\n"), None);
    assert!(
        matches!(&seal, Seal::Broken { key: None, why } if why.starts_with("it is not an SSH signature")),
        "{seal:?}"
    );
    assert_eq!(
        beside(Path::new("/r/run.json")),
        Path::new("/r/run.json.sig")
    );
}

#[test]
fn a_key_that_cannot_sign_says_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let k = key(4);
    let public = dir.path().join("id.pub");
    std::fs::write(&public, k.public_key().to_openssh().unwrap()).unwrap();
    let e = Signer::open_with(&public, None).unwrap_err();
    assert!(
        e.contains("a public key, and no ssh-agent is set (SSH_AUTH_SOCK)"),
        "{e}"
    );
    let junk = dir.path().join("junk");
    std::fs::write(&junk, "hello").unwrap();
    let e = Signer::open_with(&junk, None).unwrap_err();
    assert!(
        e.contains("neither an OpenSSH private key nor a public key"),
        "{e}"
    );
    let e = Signer::open_with(&dir.path().join("none"), None).unwrap_err();
    assert!(e.contains("no such file"), "{e}");
}

#[test]
fn a_line_whose_principals_admit_no_identity_allows_no_key() {
    // ssh-keygen -Y verify -I ID takes a line's key only for an identity that
    // matches one of its principals patterns and none of its `!` patterns.
    let k = key(5);
    let record = b"{}";
    let pem = k
        .sign(NAMESPACE, HASH, record)
        .unwrap()
        .to_pem(LineEnding::LF);
    let seal = |principals: &str| {
        let a = AllowedSigners::parse("allowed", &allowed_line(principals, &k)).unwrap();
        check(record, Some(pem.as_ref().unwrap()), Some(&a))
    };
    for none in ["!alice@x", "alice@x,!alice@x", "*@x,!*"] {
        assert!(
            matches!(seal(none), Seal::NotAllowed { .. }),
            "{none}: {:?}",
            seal(none)
        );
    }
    // The patterns that admit an identity are named, never a `!` one.
    assert_eq!(
        seal("!mallory@x,*@x"),
        Seal::Holds {
            key: fingerprint(k.public_key()),
            signers: Some(vec!["*@x".into()])
        }
    );
}

#[test]
fn a_key_listed_but_not_allowed_here_is_told_why() {
    // ssh-keygen says "key is not permitted for use in signature namespace" or "key
    // has expired"; "not among the allowed signers" alone sends the reader to look
    // for a key that is there.
    let k = key(6);
    let record = b"{}";
    let pem = k
        .sign(NAMESPACE, HASH, record)
        .unwrap()
        .to_pem(LineEnding::LF);
    let said = |line: &str| {
        let line = format!("{line} {}", k.public_key().to_openssh().unwrap());
        let a = AllowedSigners::parse("allowed", &line).unwrap();
        check(record, Some(pem.as_ref().unwrap()), Some(&a)).describe()
    };
    let cases = [
        (
            "alice@x namespaces=\"git\"",
            "its line there allows it only in the namespaces \"git\"",
        ),
        (
            "alice@x valid-before=\"20200101Z\"",
            "its line there allows it only until 20200101Z (valid-before)",
        ),
        (
            "alice@x namespaces=git",
            "its line there has namespaces=git, a value outside double quotes",
        ),
        ("!alice@x", "its line there admits no identity (!alice@x)"),
    ];
    for (line, why) in cases {
        let d = said(line);
        assert!(
            d.contains("a key that is not among the allowed signers of allowed: ")
                && d.ends_with(why),
            "{line}: {d}"
        );
    }
    // Another line of the key that allows it here still names its signer.
    let two = format!(
        "alice@x namespaces=\"git\" {0}\nbob@x {0}\n",
        k.public_key().to_openssh().unwrap()
    );
    let a = AllowedSigners::parse("allowed", &two).unwrap();
    let seal = check(record, Some(pem.as_ref().unwrap()), Some(&a));
    assert!(
        matches!(&seal, Seal::Holds { signers: Some(w), .. } if *w == ["bob@x"]),
        "{seal:?}"
    );
}

#[test]
fn a_signature_file_that_is_not_a_small_regular_file_is_not_read() {
    // A FIFO or a device in its place would hang `verify-record` or fill memory:
    // a record's signature is a few hundred bytes in a file.
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run.json");
    std::fs::write(&run, "{}").unwrap();
    std::os::unix::fs::symlink("/dev/null", beside(&run)).unwrap();
    let seal = check_file(&run, b"{}", None);
    assert!(
        matches!(&seal, Some(Seal::Broken { key: None, why }) if why.contains("not a regular file")),
        "{seal:?}"
    );
    std::fs::remove_file(beside(&run)).unwrap();
    std::fs::write(beside(&run), vec![b'A'; 1 << 20]).unwrap();
    let seal = check_file(&run, b"{}", None);
    assert!(
        matches!(&seal, Some(Seal::Broken { key: None, why }) if why.contains("1048576 bytes")),
        "{seal:?}"
    );
}
