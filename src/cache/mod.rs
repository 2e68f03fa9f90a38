//! The disk cache of generated source: `$TANGENT_CACHE_DIR`, else
//! `$XDG_CACHE_HOME/tangent-ad`, else `~/.cache/tangent-ad` (an empty or, for the XDG
//! variable, relative value counts as unset); `TANGENT_DISK_CACHE=0` disables it. A
//! derivative entry is plain Python source with a header (never a pickle). Its key covers
//! the version, the rule set, the options, the function's name and the whole text of its
//! file (so callees in the file are covered too). The same directory holds the shims'
//! bytecode and the CPython host's interpreter answers.
//!
//! Every entry of every kind is read and written through [`read`]/[`write`] (`files.rs`):
//! authenticated by a keyed MAC bound to its kind and name, and checked for owner, mode
//! and file type, so the cache never hands back what this user's tangent did not write.

mod files;
pub mod fingerprint;

use crate::pipeline::Generated;
use std::path::PathBuf;

pub use files::{clear, problem, read, size, write, Kind, KEY_FILE};

const MAGIC: &str = "# tangent-ad cache v2";

/// Where entries live, or None when the disk cache is disabled.
pub fn dir() -> Option<PathBuf> {
    if std::env::var("TANGENT_DISK_CACHE").is_ok_and(|v| v == "0") {
        return None;
    }
    let set = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(d) = set("TANGENT_CACHE_DIR") {
        return Some(PathBuf::from(d));
    }
    // The XDG base-directory specification: a relative path is invalid and ignored.
    if let Some(d) = set("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .filter(|d| d.is_absolute())
    {
        return Some(d.join("tangent-ad"));
    }
    set("HOME").map(|h| PathBuf::from(h).join(".cache").join("tangent-ad"))
}

/// Whether entries may be written at all (spares callers the work of making one).
pub fn enabled() -> bool {
    dir().is_some()
}

/// The key of a derivative: a hash of everything its source depends on.
pub fn key(file_text: &str, func: &str, options: &str, rules: &str) -> String {
    let mut h = blake3::Hasher::new();
    for part in [env!("CARGO_PKG_VERSION"), rules, options, func, file_text] {
        h.update(part.as_bytes());
        h.update(b"\0");
    }
    h.finalize().to_hex().to_string()
}

/// The entry for `key`, if present, authentic and well formed.
pub fn load(key: &str) -> Option<Generated> {
    let bytes = read(Kind::Derivative, key)?;
    let text = String::from_utf8(bytes).ok()?;
    let mut lines = text.splitn(4, '\n');
    if lines.next()? != MAGIC {
        return None;
    }
    let entry = lines.next()?.strip_prefix("# entry: ")?.to_owned();
    let params = lines.next()?.strip_prefix("# params: ")?;
    let body = lines.next()?;
    if entry.is_empty() {
        return None;
    }
    Some(Generated {
        source: body.to_owned(),
        entry,
        params: params
            .split(',')
            .filter(|p| !p.is_empty())
            .map(str::to_owned)
            .collect(),
    })
}

/// Stores an entry (best effort: a cache that cannot be written is only slower).
pub fn store(key: &str, g: &Generated) {
    let text = format!(
        "{MAGIC}\n# entry: {}\n# params: {}\n{}",
        g.entry,
        g.params.join(","),
        g.source
    );
    write(Kind::Derivative, key, text.as_bytes());
}

/// The name of the entry holding a shim's compiled bytecode ([`Kind::Bytecode`]). It
/// covers the interpreter's bytecode `tag`, the transformer that embeds the shim, the
/// shim's name and its source.
pub fn bytecode_name(tag: &[u8], name: &str, source: &str) -> String {
    let mut key = blake3::Hasher::new();
    key.update(tag);
    key.update(fingerprint::transformer_fingerprint().as_bytes());
    key.update(name.as_bytes());
    key.update(source.as_bytes());
    key.finalize().to_hex()[..24].to_owned()
}
