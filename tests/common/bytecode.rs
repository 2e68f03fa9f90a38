//! The shims' bytecode cache files (`shim-*.pyc`), for the tests of both hosts.

#![allow(dead_code)] // each test file uses a part

use std::path::{Path, PathBuf};

/// The bytecode files in a cache directory, sorted.
pub fn files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    v.retain(|p| p.to_string_lossy().ends_with(".pyc"));
    v.sort();
    v
}

/// Damages two files: a flipped byte in the first one's body, the second truncated.
pub fn damage(files: &[PathBuf]) {
    let mut bytes = std::fs::read(&files[0]).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0xff;
    std::fs::write(&files[0], &bytes).unwrap();
    std::fs::write(&files[1], b"short").unwrap();
}

/// Every file is an authentic bytecode entry (a damaged one was rewritten).
pub fn assert_intact(files: &[PathBuf]) {
    for f in files {
        assert!(
            super::entries::authentic(f, "bytecode"),
            "{} not rewritten",
            f.display()
        );
    }
}
