//! The only code that touches the cache directory: authenticated entries, the key, and
//! every file-system check (what git and ssh do for their own files).
//!
//! - The directory is created 0700. It is used only if it is a directory owned by the
//!   effective user that group and others cannot write; otherwise a message naming it
//!   goes to stderr (once per process) and the process runs without a disk cache.
//! - The key is 32 random bytes (from /dev/urandom) in `mac.key`, created on first use
//!   exclusively (written to a private temporary file and hard-linked into place, so no
//!   process ever reads half a key) with mode 0600. A key file that is not a regular file
//!   owned by the user with no group/other permission bits turns the disk cache off.
//! - An entry is `# tangent-ad v2 KIND MAC\n` followed by its contents, where MAC is
//!   blake3 in keyed mode over the kind, the file name and the contents: whoever cannot
//!   read the key cannot make an entry, and an authentic entry under another name or of
//!   another kind is a miss.
//! - Files are opened with O_NOFOLLOW|O_NONBLOCK and checked with fstat (a regular file,
//!   owned by the user, not writable by group/others) before a byte is read; a symbolic
//!   link, FIFO, device or directory at an entry's name is skipped with a message.
//! - Writes go to a temporary file with a random name created O_CREAT|O_EXCL|O_NOFOLLOW
//!   with mode 0600, renamed into place (rename replaces a name, never writes through it).
//!
//! What is not defended: the path leading to the directory (a symbolic link to a
//! directory the user owns is accepted, as ssh and git do), and anyone who can already
//! act as the user or as root.

use std::collections::HashSet;
use std::fs::{File, Metadata, OpenOptions};
use std::io::{ErrorKind, Read, Write};
use std::os::unix::fs::{DirBuilderExt, FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The file holding the MAC key, in the cache directory.
pub const KEY_FILE: &str = "mac.key";

/// Temporary files start with this (followed by 32 random hex digits).
pub const TMP_PREFIX: &str = ".tmp-";

const FORMAT: &str = "tangent-ad v2";

/// What an entry holds; part of its MAC and of its file name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Generated source of a derivative: `<name>.py`.
    Derivative,
    /// Marshalled code of a shim: `shim-<name>.pyc`.
    Bytecode,
    /// A CPython interpreter's answers to the sysconfig query: `python-<name>.txt`.
    Interpreter,
}

impl Kind {
    pub const ALL: [Kind; 3] = [Kind::Derivative, Kind::Bytecode, Kind::Interpreter];

    fn tag(self) -> &'static str {
        match self {
            Kind::Derivative => "derivative",
            Kind::Bytecode => "bytecode",
            Kind::Interpreter => "interpreter",
        }
    }

    fn affixes(self) -> (&'static str, &'static str) {
        match self {
            Kind::Derivative => ("", ".py"),
            Kind::Bytecode => ("shim-", ".pyc"),
            Kind::Interpreter => ("python-", ".txt"),
        }
    }

    /// The file name of entry `name` (letters, digits, `-` and `_` only), or None for
    /// any other name.
    pub fn file_name(self, name: &str) -> Option<String> {
        let plain = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
        if name.is_empty() || name.len() > 128 || !name.chars().all(plain) {
            return None;
        }
        let (prefix, suffix) = self.affixes();
        Some(format!("{prefix}{name}{suffix}"))
    }

    /// Whether `file` is the file name of some entry of this kind.
    pub fn owns(self, file: &str) -> bool {
        let (prefix, suffix) = self.affixes();
        let stem = file
            .strip_prefix(prefix)
            .and_then(|f| f.strip_suffix(suffix));
        // A derivative's name has no prefix: `shim-x.py` is not `shim-x.pyc`, and no
        // kind's stem contains a dot.
        stem.is_some_and(|s| self.file_name(s).as_deref() == Some(file))
    }
}

/// Why a file (or the directory) cannot be used.
enum Refusal {
    /// Nothing there: a miss, not worth a message.
    Missing,
    /// Something there that must not be used: the message names it.
    Bad(String),
}

/// A cache directory that passed the checks, and its key.
struct Cache {
    dir: PathBuf,
    key: [u8; 32],
}

fn euid() -> u32 {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

/// Prints `message` on stderr, once per process.
fn warn(message: String) {
    static SEEN: Mutex<Option<HashSet<String>>> = Mutex::new(None);
    let mut seen = SEEN.lock().unwrap_or_else(|e| e.into_inner());
    if seen
        .get_or_insert_with(HashSet::new)
        .insert(message.clone())
    {
        eprintln!("tangent: {message}");
    }
}

fn describe(kind: std::fs::FileType) -> &'static str {
    if kind.is_symlink() {
        "a symbolic link (not followed)"
    } else if kind.is_dir() {
        "a directory"
    } else if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_char_device() || kind.is_block_device() {
        "a device"
    } else {
        "not a regular file"
    }
}

/// Owned by the user, and no permission bit of `forbidden` set.
fn check_owner_mode(path: &Path, meta: &Metadata, forbidden: u32) -> Result<(), Refusal> {
    let me = euid();
    if meta.uid() != me {
        return Err(Refusal::Bad(format!(
            "`{}` is owned by uid {}, not by you (uid {me})",
            path.display(),
            meta.uid()
        )));
    }
    if meta.mode() & forbidden != 0 {
        let what = if forbidden & 0o044 != 0 {
            "accessible to group or others"
        } else {
            "writable by group or others"
        };
        return Err(Refusal::Bad(format!(
            "`{}` is {what} (mode {:04o})",
            path.display(),
            meta.mode() & 0o7777
        )));
    }
    Ok(())
}

/// The cache directory, if it is one the user owns and only the user can write.
fn check_dir(dir: &Path) -> Result<(), Refusal> {
    let meta = match std::fs::metadata(dir) {
        Ok(m) => m,
        Err(e) if e.kind() == ErrorKind::NotFound => return Err(Refusal::Missing),
        Err(e) => return Err(Refusal::Bad(format!("`{}`: {e}", dir.display()))),
    };
    if !meta.is_dir() {
        return Err(Refusal::Bad(format!(
            "`{}` is not a directory",
            dir.display()
        )));
    }
    check_owner_mode(dir, &meta, 0o022)
}

/// Opens `path` for reading without following a symbolic link or blocking on a FIFO,
/// if it is a regular file owned by the user with none of the `forbidden` mode bits.
fn open_checked(path: &Path, forbidden: u32) -> Result<File, Refusal> {
    // A look first, so that nothing but a regular file is ever opened (opening a device
    // can have effects of its own); the fstat below decides.
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_file() => {}
        Ok(m) => {
            return Err(Refusal::Bad(format!(
                "`{}` is {}",
                path.display(),
                describe(m.file_type())
            )))
        }
        Err(e) if e.kind() == ErrorKind::NotFound => return Err(Refusal::Missing),
        Err(e) => return Err(Refusal::Bad(format!("`{}`: {e}", path.display()))),
    }
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)
        .map_err(|e| match e.raw_os_error() {
            _ if e.kind() == ErrorKind::NotFound => Refusal::Missing,
            Some(libc::ELOOP) => Refusal::Bad(format!(
                "`{}` is a symbolic link (not followed)",
                path.display()
            )),
            _ => Refusal::Bad(format!("`{}`: {e}", path.display())),
        })?;
    let meta = file
        .metadata()
        .map_err(|e| Refusal::Bad(format!("`{}`: {e}", path.display())))?;
    if !meta.file_type().is_file() {
        return Err(Refusal::Bad(format!(
            "`{}` is {}",
            path.display(),
            describe(meta.file_type())
        )));
    }
    check_owner_mode(path, &meta, forbidden)?;
    Ok(file)
}

/// `n` bytes from /dev/urandom (checked to be the character device, not a planted file).
fn random_bytes<const N: usize>() -> Result<[u8; N], String> {
    let path = "/dev/urandom";
    let mut file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)
        .map_err(|e| format!("cannot open {path}: {e}"))?;
    let is_device = file
        .metadata()
        .is_ok_and(|m| m.file_type().is_char_device());
    if !is_device {
        return Err(format!("{path} is not a character device"));
    }
    let mut bytes = [0u8; N];
    file.read_exact(&mut bytes)
        .map_err(|e| format!("cannot read {path}: {e}"))?;
    Ok(bytes)
}

/// Writes `bytes` to a new file with a random name in `dir`. Returns its path.
fn write_new(dir: &Path, bytes: &[u8]) -> Result<PathBuf, String> {
    let name: [u8; 16] = random_bytes()?;
    let hex: String = name.iter().map(|b| format!("{b:02x}")).collect();
    let path = dir.join(format!("{TMP_PREFIX}{hex}"));
    create_exclusive(&path, bytes)?;
    Ok(path)
}

/// Creates `path` with `bytes`, mode 0600: exclusively (never through a symbolic link,
/// never into an existing file).
fn create_exclusive(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)
        .map_err(|e| format!("cannot create `{}`: {e}", path.display()))?;
    if let Err(e) = file.write_all(bytes) {
        let _ = std::fs::remove_file(path);
        return Err(format!("cannot write `{}`: {e}", path.display()));
    }
    Ok(())
}

/// Reads the key file: exactly 32 bytes, a regular file only the user can access.
fn read_key(path: &Path) -> Result<[u8; 32], Refusal> {
    let mut file = open_checked(path, 0o077)?;
    let mut key = [0u8; 32];
    let mut rest = Vec::new();
    let n = (&mut file)
        .take(33)
        .read_to_end(&mut rest)
        .map_err(|e| Refusal::Bad(format!("`{}`: {e}", path.display())))?;
    if n != 32 {
        return Err(Refusal::Bad(format!(
            "`{}` is not a key (expected 32 bytes)",
            path.display()
        )));
    }
    key.copy_from_slice(&rest);
    Ok(key)
}

/// The directory's key; created when missing and `create`. None: no key yet (and not
/// `create`). Err: the key exists and must not be used, or cannot be made.
fn key(dir: &Path, create: bool) -> Result<Option<[u8; 32]>, String> {
    let path = dir.join(KEY_FILE);
    let bad = |r: Refusal| match r {
        Refusal::Missing => format!("`{}` disappeared", path.display()),
        Refusal::Bad(why) => why,
    };
    match read_key(&path) {
        Ok(k) => return Ok(Some(k)),
        Err(Refusal::Missing) if create => {}
        Err(Refusal::Missing) => return Ok(None),
        Err(r) => return Err(bad(r)),
    }
    let key: [u8; 32] = random_bytes()?;
    let tmp = write_new(dir, &key)?;
    // A hard link publishes the complete file under its name, and fails if the name is
    // taken (by a concurrent process's key, or by anything else, which is then checked).
    let linked = std::fs::hard_link(&tmp, &path);
    let _ = std::fs::remove_file(&tmp);
    match linked {
        Ok(()) => Ok(Some(key)),
        Err(e) if e.kind() == ErrorKind::AlreadyExists => read_key(&path).map(Some).map_err(bad),
        // A file system without hard links: create the key file itself exclusively (a
        // process racing this one may then find it short, and runs without the cache).
        Err(_) => match create_exclusive(&path, &key) {
            Ok(()) => Ok(Some(key)),
            Err(_) => read_key(&path).map(Some).map_err(bad),
        },
    }
}

/// The cache directory (created 0700 when missing and `create`) and its key, if the
/// disk cache is on and both pass the checks; otherwise a message (once) and None.
fn open(create: bool) -> Option<Cache> {
    let dir = super::dir()?;
    let off = |why: String| {
        warn(format!(
            "not using the disk cache: {why}; running without it (fix the permissions, \
             point TANGENT_CACHE_DIR elsewhere, or set TANGENT_DISK_CACHE=0)"
        ));
    };
    match check_dir(&dir) {
        Ok(()) => {}
        Err(Refusal::Missing) if create => {
            if let Err(e) = std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(&dir)
            {
                off(format!("cannot create `{}`: {e}", dir.display()));
                return None;
            }
            if let Err(r) = check_dir(&dir) {
                if let Refusal::Bad(why) = r {
                    off(why);
                }
                return None;
            }
        }
        Err(Refusal::Missing) => return None,
        Err(Refusal::Bad(why)) => {
            off(why);
            return None;
        }
    }
    match key(&dir, create) {
        Ok(Some(key)) => Some(Cache { dir, key }),
        Ok(None) => None,
        Err(why) => {
            off(why);
            None
        }
    }
}

/// The first line of an entry: format, kind and the MAC of (kind, file name, contents).
fn header(key: &[u8; 32], kind: Kind, file: &str, contents: &[u8]) -> String {
    let mut mac = blake3::Hasher::new_keyed(key);
    for part in [FORMAT.as_bytes(), kind.tag().as_bytes(), file.as_bytes()] {
        mac.update(part);
        mac.update(b"\0");
    }
    mac.update(contents);
    format!("# {FORMAT} {} {}\n", kind.tag(), mac.finalize().to_hex())
}

/// The contents of entry `name` of `kind`, if the disk cache is usable and the entry is
/// present, a regular file the user owns that only the user can write, and authentic
/// (its MAC holds for this kind and this name). Anything else is a miss; a file that
/// must not be used at all (wrong owner or mode, a link, a FIFO, ...) is also reported.
pub fn read(kind: Kind, name: &str) -> Option<Vec<u8>> {
    let file = kind.file_name(name)?;
    let cache = open(false)?;
    let path = cache.dir.join(&file);
    let mut bytes = Vec::new();
    match open_checked(&path, 0o022) {
        Ok(mut f) => f.read_to_end(&mut bytes).ok()?,
        Err(Refusal::Missing) => return None,
        Err(Refusal::Bad(why)) => {
            warn(format!("cache entry ignored: {why}"));
            return None;
        }
    };
    let end = bytes.iter().position(|&b| b == b'\n')? + 1;
    let contents = &bytes[end..];
    let expected = header(&cache.key, kind, &file, contents);
    // Compared as MACs (constant time), after the layout of the line.
    let (line, mac) = std::str::from_utf8(&bytes[..end - 1])
        .ok()?
        .rsplit_once(' ')?;
    let (want_line, want_mac) = expected.trim_end().rsplit_once(' ')?;
    let mac = blake3::Hash::from_hex(mac).ok()?;
    let want_mac = blake3::Hash::from_hex(want_mac).ok()?;
    (line == want_line && mac == want_mac).then(|| contents.to_vec())
}

/// Stores `contents` as entry `name` of `kind` (best effort: a cache that cannot be
/// written is only slower). Concurrent processes never see half an entry.
pub fn write(kind: Kind, name: &str, contents: &[u8]) {
    let Some(file) = kind.file_name(name) else {
        return;
    };
    let Some(cache) = open(true) else { return };
    let mut bytes = header(&cache.key, kind, &file, contents).into_bytes();
    bytes.extend_from_slice(contents);
    let Ok(tmp) = write_new(&cache.dir, &bytes) else {
        return;
    };
    if std::fs::rename(&tmp, cache.dir.join(&file)).is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
}

/// Whether `file` (a name in the cache directory) is one of ours: an entry, the key, or
/// a temporary file (also the temporary names of earlier versions).
fn ours(file: &str) -> bool {
    let legacy_tmp = file.rsplit_once(".tmp").is_some_and(|(stem, pid)| {
        (stem.starts_with("shim-") || stem.starts_with("python-") || stem.starts_with('.'))
            && pid.chars().all(|c| c.is_ascii_digit())
    });
    file == KEY_FILE
        || file.starts_with(TMP_PREFIX)
        || legacy_tmp
        || Kind::ALL.iter().any(|k| k.owns(file))
}

/// Removes every entry, temporary file and the key (the next write makes a new key, so
/// `cache clear` also retires a key that may have leaked). Returns how many derivative
/// entries were removed, or why nothing was (a directory that fails the checks is left
/// alone).
pub fn clear() -> Result<usize, String> {
    let Some(dir) = super::dir() else {
        return Ok(0);
    };
    match check_dir(&dir) {
        Ok(()) => {}
        Err(Refusal::Missing) => return Ok(0),
        Err(Refusal::Bad(why)) => return Err(why),
    }
    let listing =
        std::fs::read_dir(&dir).map_err(|e| format!("cannot list `{}`: {e}", dir.display()))?;
    let mut n = 0;
    for e in listing.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        // `remove_file` unlinks a name; it never follows a link.
        if ours(&name) && std::fs::remove_file(e.path()).is_ok() && Kind::Derivative.owns(&name) {
            n += 1;
        }
    }
    Ok(n)
}

/// (derivative entries, their bytes) in the cache directory; nothing is opened.
pub fn size() -> (usize, u64) {
    let Some(dir) = super::dir() else {
        return (0, 0);
    };
    let mut n = 0;
    let mut bytes = 0;
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        if Kind::Derivative.owns(&e.file_name().to_string_lossy()) {
            n += 1;
            bytes += e.metadata().map(|m| m.len()).unwrap_or(0);
        }
    }
    (n, bytes)
}

/// Why the disk cache is not used, if it is on but refused (for `tangent doctor`).
pub fn problem() -> Option<String> {
    let dir = super::dir()?;
    if let Err(Refusal::Bad(why)) = check_dir(&dir) {
        return Some(why);
    }
    key(&dir, false).err()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_and_kinds() {
        assert_eq!(
            Kind::Derivative.file_name("ab12").as_deref(),
            Some("ab12.py")
        );
        assert_eq!(
            Kind::Bytecode.file_name("ab12").as_deref(),
            Some("shim-ab12.pyc")
        );
        for bad in ["", "../x", "a.b", "a/b", "a\0b"] {
            assert!(Kind::Interpreter.file_name(bad).is_none(), "{bad:?}");
        }
        assert!(Kind::Derivative.owns("ab12.py"));
        assert!(!Kind::Derivative.owns("shim-ab12.pyc"));
        assert!(!Kind::Derivative.owns("notes.txt.py"));
        assert!(Kind::Interpreter.owns("python-ab.txt"));
        assert!(ours("shim-ab.tmp123") && ours(".tmp-00ff") && ours(KEY_FILE));
        assert!(!ours("notes.txt") && !ours("shim-ab.tmpx"));
    }

    #[test]
    fn a_new_file_is_never_written_through_a_link() {
        let dir = std::env::temp_dir().join(format!("tangent-store-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let target = dir.join("target");
        std::fs::write(&target, b"keep").unwrap();
        let tmp = write_new(&dir, b"new").unwrap();
        assert!(tmp.file_name().unwrap().len() == TMP_PREFIX.len() + 32);
        assert_eq!(std::fs::metadata(&tmp).unwrap().mode() & 0o777, 0o600);
        std::fs::remove_file(&tmp).unwrap();
        // The same name again, now a link (and a dangling one): refused, target kept.
        std::os::unix::fs::symlink(&target, &tmp).unwrap();
        assert!(create_exclusive(&tmp, b"new").is_err());
        let dangling = dir.join("dangling");
        std::os::unix::fs::symlink(dir.join("nowhere"), &dangling).unwrap();
        assert!(create_exclusive(&dangling, b"new").is_err());
        assert!(!dir.join("nowhere").exists());
        assert!(matches!(open_checked(&tmp, 0o022), Err(Refusal::Bad(_))));
        assert_eq!(std::fs::read(&target).unwrap(), b"keep");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
