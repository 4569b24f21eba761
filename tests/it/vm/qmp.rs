//! A client of QEMU's machine protocol (QMP: JSON messages, one a line, over the
//! unix socket QEMU was started with `-qmp unix:PATH,server=on,wait=off`): the
//! greeting read, `qmp_capabilities` sent, then commands, each answered by a
//! `return` or an `error`, with the events QEMU sends meanwhile kept
//! (docs/interop/qmp-spec.rst in QEMU's sources).

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;

/// A QMP connection, past its capabilities negotiation.
pub struct Qmp {
    reader: BufReader<UnixStream>,
    writer: UnixStream,
    /// The events QEMU sent while a command was answered (`DEVICE_DELETED`, ...).
    pub events: Vec<Value>,
}

impl Qmp {
    /// Connect to the socket at `path` and leave the negotiation mode.
    pub fn connect(path: &Path) -> Result<Qmp, String> {
        let writer =
            UnixStream::connect(path).map_err(|e| format!("QMP {}: {e}", path.display()))?;
        let reader = BufReader::new(writer.try_clone().map_err(|e| format!("QMP: {e}"))?);
        let mut qmp = Qmp {
            reader,
            writer,
            events: Vec::new(),
        };
        let greeting = qmp.message()?;
        if greeting.get("QMP").is_none() {
            return Err(format!("QMP: not a greeting: {greeting}"));
        }
        qmp.execute("qmp_capabilities", json!({}))?;
        Ok(qmp)
    }

    /// The next message QEMU sends.
    fn message(&mut self) -> Result<Value, String> {
        let mut line = String::new();
        match self.reader.read_line(&mut line) {
            Ok(0) => Err("QMP: QEMU closed the socket".into()),
            Ok(_) => serde_json::from_str(&line).map_err(|e| format!("QMP: {e}: {line}")),
            Err(e) => Err(format!("QMP: {e}")),
        }
    }

    /// Run `command` with `arguments`: its `return` value, or its error's words.
    pub fn execute(&mut self, command: &str, arguments: Value) -> Result<Value, String> {
        let msg = json!({"execute": command, "arguments": arguments});
        writeln!(self.writer, "{msg}").map_err(|e| format!("QMP {command}: {e}"))?;
        loop {
            let m = self.message()?;
            if let Some(r) = m.get("return") {
                return Ok(r.clone());
            }
            if let Some(e) = m.get("error") {
                return Err(format!("QMP {command}: {e}"));
            }
            self.events.push(m);
        }
    }
}
