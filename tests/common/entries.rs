//! The disk cache's entry format, written out independently of `src/cache` so that the
//! tests check it: `# tangent-ad v2 KIND MAC\n` + contents, MAC = blake3 keyed with the
//! 32 bytes of `mac.key` over "tangent-ad v2\0KIND\0FILE NAME\0" + contents.

#![allow(dead_code)] // each test file uses a part

use std::path::Path;

/// The entry file `contents` would be as `file` (a name in `dir`) of `kind`
/// ("derivative", "bytecode", "interpreter"), under `dir`'s key.
pub fn seal(dir: &Path, kind: &str, file: &str, contents: &[u8]) -> Vec<u8> {
    let key: [u8; 32] = std::fs::read(dir.join("mac.key"))
        .expect("the cache's key")
        .try_into()
        .expect("a 32-byte key");
    let mut mac = blake3::Hasher::new_keyed(&key);
    for part in ["tangent-ad v2", kind, file] {
        mac.update(part.as_bytes());
        mac.update(b"\0");
    }
    mac.update(contents);
    let mut out = format!("# tangent-ad v2 {kind} {}\n", mac.finalize().to_hex()).into_bytes();
    out.extend_from_slice(contents);
    out
}

/// The contents of the entry at `path`, without its first line.
pub fn contents(path: &Path) -> Vec<u8> {
    let bytes = std::fs::read(path).unwrap();
    let end = bytes
        .iter()
        .position(|&b| b == b'\n')
        .expect("a header line")
        + 1;
    bytes[end..].to_vec()
}

/// Whether the entry at `path` is authentic for its name and `kind`.
pub fn authentic(path: &Path, kind: &str) -> bool {
    let dir = path.parent().unwrap();
    let file = path.file_name().unwrap().to_str().unwrap();
    std::fs::read(path)
        .is_ok_and(|b| b.contains(&b'\n') && b == seal(dir, kind, file, &contents(path)))
}
