//! The disk cache of generated source: `$TANGENT_CACHE_DIR`, else
//! `$XDG_CACHE_HOME/tangent-ad`, else `~/.cache/tangent-ad`; `TANGENT_DISK_CACHE=0`
//! disables it. An entry is plain Python source with a header (never a pickle). Its key
//! covers the version, the rule set, the options, the function's name and the whole text
//! of its file (so callees in the file are covered too). Writes go to a temporary file
//! renamed into place, so concurrent processes never see half an entry; a load checks the
//! header and a checksum of the body, and anything unexpected is a miss.

use crate::ad::Generated;
use std::path::PathBuf;

const MAGIC: &str = "# tangent-ad cache v1";

/// Where entries live, or None when the disk cache is disabled.
pub fn dir() -> Option<PathBuf> {
    if std::env::var("TANGENT_DISK_CACHE").is_ok_and(|v| v == "0") {
        return None;
    }
    if let Some(d) = std::env::var_os("TANGENT_CACHE_DIR") {
        return Some(PathBuf::from(d));
    }
    if let Some(d) = std::env::var_os("XDG_CACHE_HOME") {
        return Some(PathBuf::from(d).join("tangent-ad"));
    }
    std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache").join("tangent-ad"))
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

fn checksum(body: &str) -> String {
    blake3::hash(body.as_bytes()).to_hex().to_string()
}

/// The entry for `key`, if present and intact.
pub fn load(key: &str) -> Option<Generated> {
    let path = dir()?.join(format!("{key}.py"));
    let text = std::fs::read_to_string(path).ok()?;
    let mut lines = text.splitn(6, '\n');
    if lines.next()? != MAGIC {
        return None;
    }
    let stored_key = lines.next()?.strip_prefix("# key: ")?;
    let entry = lines.next()?.strip_prefix("# entry: ")?.to_owned();
    let params = lines.next()?.strip_prefix("# params: ")?;
    let sum = lines.next()?.strip_prefix("# checksum: ")?;
    let body = lines.next()?;
    if stored_key != key || sum != checksum(body) || entry.is_empty() {
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
    let Some(dir) = dir() else { return };
    if std::fs::create_dir_all(&dir).is_err() {
        return;
    }
    let text = format!(
        "{MAGIC}\n# key: {key}\n# entry: {}\n# params: {}\n# checksum: {}\n{}",
        g.entry,
        g.params.join(","),
        checksum(&g.source),
        g.source
    );
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let tmp = dir.join(format!(".{key}.{}.{nanos}.tmp", std::process::id()));
    if std::fs::write(&tmp, text).is_ok()
        && std::fs::rename(&tmp, dir.join(format!("{key}.py"))).is_err()
    {
        let _ = std::fs::remove_file(&tmp);
    }
}

/// (entries, bytes) in the cache directory.
pub fn size() -> (usize, u64) {
    let Some(dir) = dir() else { return (0, 0) };
    let mut n = 0;
    let mut bytes = 0;
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        if e.path().extension().is_some_and(|x| x == "py") {
            n += 1;
            bytes += e.metadata().map(|m| m.len()).unwrap_or(0);
        }
    }
    (n, bytes)
}

/// Removes every entry (and the CPython host's cached interpreter answers,
/// `python-*.txt`, and shim bytecode, `shim-*.pyc`); returns how many derivative entries
/// were removed.
pub fn clear() -> usize {
    let Some(dir) = dir() else { return 0 };
    let mut n = 0;
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        let interpreter = name.starts_with("python-") && name.ends_with(".txt");
        let bytecode = name.starts_with("shim-") && name.ends_with(".pyc");
        if interpreter || bytecode {
            let _ = std::fs::remove_file(&p);
            continue;
        }
        let ours = p.extension().is_some_and(|x| x == "py" || x == "tmp");
        if ours && std::fs::remove_file(&p).is_ok() {
            n += 1;
        }
    }
    n
}

/// Where the compiled bytecode of a shim lives (None when the disk cache is off). The
/// key covers the interpreter's bytecode `tag`, the transformer that embeds the shim,
/// the shim's name and its source.
pub fn bytecode_path(tag: &[u8], name: &str, source: &str) -> Option<PathBuf> {
    let mut key = blake3::Hasher::new();
    key.update(tag);
    key.update(crate::api::transformer_fingerprint().as_bytes());
    key.update(name.as_bytes());
    key.update(source.as_bytes());
    Some(dir()?.join(format!("shim-{}.pyc", &key.finalize().to_hex()[..24])))
}

/// The marshal data stored at `path`, if its checksum holds.
pub fn load_bytecode(path: &std::path::Path) -> Option<Vec<u8>> {
    let bytes = std::fs::read(path).ok()?;
    let (sum, body) = bytes.split_at_checked(32)?;
    (blake3::hash(body).as_bytes() == sum).then(|| body.to_vec())
}

/// Stores marshal data behind its checksum; written aside and renamed, so a concurrent
/// process never reads half a file.
pub fn store_bytecode(path: &std::path::Path, body: &[u8]) {
    let mut bytes = blake3::hash(body).as_bytes().to_vec();
    bytes.extend_from_slice(body);
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    if std::fs::write(&tmp, bytes).is_ok() && std::fs::rename(&tmp, path).is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
}
