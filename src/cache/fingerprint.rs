//! What the disk cache's derivative keys hold of the transformer itself: a rebuilt
//! transformer never reads what an older one wrote.

/// A fingerprint of the transformer (part of every disk-cache key): the built-in rule
/// files, and the size and modification time of the file holding this code (the
/// `tangent` executable, or the CPython bridge library), so that a rebuilt transformer
/// never reads what an older one wrote.
pub fn transformer_fingerprint() -> &'static str {
    static FP: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    FP.get_or_init(|| {
        let mut h = blake3::Hasher::new();
        for (name, text) in crate::rules::RULE_FILES {
            h.update(name.as_bytes());
            h.update(text.as_bytes());
        }
        if let Some(meta) = code_file().and_then(|p| p.metadata().ok()) {
            h.update(&meta.len().to_le_bytes());
            if let Ok(t) = meta.modified() {
                if let Ok(d) = t.duration_since(std::time::UNIX_EPOCH) {
                    h.update(&d.as_nanos().to_le_bytes());
                }
            }
        }
        h.finalize().to_hex().to_string()
    })
}

/// The executable or shared library this code was loaded from. In the bridge the
/// running executable is python, which does not change when tangent does.
pub fn code_file() -> Option<std::path::PathBuf> {
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    // SAFETY: dladdr only reads the address and fills `info`; the function is in this
    // object, so the name it returns lives as long as the object (the process).
    let found = unsafe { libc::dladdr(code_file as *const libc::c_void, &mut info) } != 0;
    if found && !info.dli_fname.is_null() {
        // SAFETY: a NUL-terminated string owned by the dynamic loader.
        let name = unsafe { std::ffi::CStr::from_ptr(info.dli_fname) };
        let path = std::path::PathBuf::from(name.to_string_lossy().into_owned());
        if path.is_file() {
            return Some(path);
        }
    }
    std::env::current_exe().ok()
}
