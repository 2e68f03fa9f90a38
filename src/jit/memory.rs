//! Executable memory for compiled functions (mmap, copy, then read + execute only).

pub struct ExecMem {
    ptr: *mut libc::c_void,
    len: usize,
}

// SAFETY: the memory is immutable after `new` and only ever executed.
unsafe impl Send for ExecMem {}
// SAFETY: as above.
unsafe impl Sync for ExecMem {}

impl ExecMem {
    pub fn new(code: &[u8]) -> Result<ExecMem, String> {
        // SAFETY: sysconf has no preconditions.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) }.max(4096) as usize;
        let len = code.len().div_ceil(page).max(1) * page;
        // SAFETY: an anonymous private mapping of `len` bytes; checked below.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            return Err(std::io::Error::last_os_error().to_string());
        }
        // SAFETY: `ptr` is a fresh writable mapping of at least code.len() bytes.
        unsafe { std::ptr::copy_nonoverlapping(code.as_ptr(), ptr as *mut u8, code.len()) };
        // SAFETY: the mapping above; from now on it is read + execute only.
        if unsafe { libc::mprotect(ptr, len, libc::PROT_READ | libc::PROT_EXEC) } != 0 {
            let err = std::io::Error::last_os_error().to_string();
            // SAFETY: unmapping the mapping made above.
            unsafe { libc::munmap(ptr, len) };
            return Err(err);
        }
        Ok(ExecMem { ptr, len })
    }

    pub fn ptr(&self) -> *const u8 {
        self.ptr as *const u8
    }
}

impl Drop for ExecMem {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `new`, not used after drop.
        unsafe { libc::munmap(self.ptr, self.len) };
    }
}
