//! The disk cache: written on a miss, read by a new process, never trusted when an entry
//! is damaged or its globals no longer resolve, off with TANGENT_DISK_CACHE=0, safe with
//! several processes at once, and cleared by `tangent cache clear`; and never running what
//! it did not write: forged, swapped, linked, FIFO or badly owned entries and directories
//! are misses (issue 13).

mod common;

use common::entries;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

fn cache_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tangent-disk-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn run(dir: &Path, extra_env: &[(&str, &str)], args: &[&str]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_tangent"));
    c.args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("TANGENT_CACHE_DIR", dir)
        .env_remove("TANGENT_DISK_CACHE");
    for (k, v) in extra_env {
        c.env(k, v);
    }
    c.output().expect("run tangent")
}

fn script(dir: &Path, extra_env: &[(&str, &str)]) -> String {
    script_output(run(dir, extra_env, &["run", "tests/scripts/disk_cache.py"])).0
}

/// Stdout and stderr of a run of tests/scripts/disk_cache.py, checked: it succeeded and
/// printed the right gradient.
fn script_output(out: Output) -> (String, String) {
    let so = String::from_utf8_lossy(&out.stdout).into_owned();
    let se = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{so}\n{se}");
    // d/dx sin(x) x^2 at 0.7
    assert!(so.contains("value: 1.276677433902"), "{so}\n{se}");
    (so, se)
}

/// The output of `c`, or a failure when it has not ended after `secs` seconds (it is
/// killed then).
fn output_within(mut c: Command, secs: u64) -> Output {
    let child = c
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn tangent");
    let pid = child.id() as libc::pid_t;
    let (send, receive) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = send.send(child.wait_with_output());
    });
    match receive.recv_timeout(Duration::from_secs(secs)) {
        Ok(out) => out.expect("wait for tangent"),
        Err(_) => {
            // SAFETY: signals our own child, which has not been reaped (the waiting
            // thread is still blocked on it).
            unsafe { libc::kill(pid, libc::SIGKILL) };
            panic!("tangent still running after {secs} s: it hangs");
        }
    }
}

fn tangent_in(dir: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_tangent"));
    c.args(["run", "tests/scripts/disk_cache.py"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("TANGENT_CACHE_DIR", dir)
        .env_remove("TANGENT_DISK_CACHE");
    c
}

fn mode(p: &Path) -> u32 {
    std::fs::symlink_metadata(p).unwrap().mode() & 0o7777
}

fn chmod(p: &Path, mode: u32) {
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
}

fn file_name(p: &Path) -> String {
    p.file_name().unwrap().to_string_lossy().into_owned()
}

fn euid() -> u32 {
    // SAFETY: no preconditions.
    unsafe { libc::geteuid() }
}

fn entries(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .map(|r| {
            r.flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "py"))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn a_new_process_reads_what_an_earlier_one_wrote() {
    let dir = cache_dir("warm");
    assert!(script(&dir, &[]).contains("hits: 0"));
    assert_eq!(entries(&dir).len(), 1);
    let text = std::fs::read_to_string(&entries(&dir)[0]).unwrap();
    assert!(text.starts_with("# tangent-ad v2 derivative "), "{text}");
    assert!(text.contains("\n# tangent-ad cache v2\n# entry: dfdx\n"), "{text}");
    assert!(entries::authentic(&entries(&dir)[0], "derivative"));
    assert!(
        text.contains("def dfdx(x, bresult=1.0):"),
        "generated source only: {text}"
    );
    assert!(script(&dir, &[]).contains("hits: 1 rejected: 0"));
}

#[test]
fn damaged_entries_fall_back_to_a_full_transform() {
    let dir = cache_dir("damaged");
    script(&dir, &[]);
    let entry = entries(&dir).remove(0);
    let text = std::fs::read_to_string(&entry).unwrap();
    // Truncated, edited body (MAC mismatch), empty: all misses.
    for damaged in [
        text[..text.len() / 2].to_owned(),
        text.replace("bresult=1.0", "bresult=2.0"),
        String::new(),
    ] {
        std::fs::write(&entry, damaged).unwrap();
        assert!(script(&dir, &[]).contains("hits: 0"));
    }
    // Authentic but of another format version: a miss too.
    let contents = String::from_utf8(entries::contents(&entry)).unwrap();
    let older = contents.replace("cache v2", "cache v1");
    let sealed = entries::seal(&dir, "derivative", &file_name(&entry), older.as_bytes());
    std::fs::write(&entry, sealed).unwrap();
    assert!(script(&dir, &[]).contains("hits: 0"));
}

#[test]
fn an_entry_whose_globals_do_not_resolve_is_rejected() {
    let dir = cache_dir("globals");
    script(&dir, &[]);
    let entry = entries(&dir).remove(0);
    // An authentic entry (written with the cache's key) that reads a global the module
    // lacks.
    let contents = String::from_utf8(entries::contents(&entry)).unwrap();
    let forged = contents.replace("math.cos(x)", "missing_helper(x)");
    assert!(forged.contains("missing_helper"), "{forged}");
    let sealed = entries::seal(&dir, "derivative", &file_name(&entry), forged.as_bytes());
    std::fs::write(&entry, sealed).unwrap();
    assert!(script(&dir, &[]).contains("hits: 1 rejected: 1"));
}

#[test]
fn disabled_cache_writes_nothing() {
    let dir = cache_dir("off");
    script(&dir, &[("TANGENT_DISK_CACHE", "0")]);
    assert!(entries(&dir).is_empty());
}

#[test]
fn concurrent_processes_and_clear() {
    let dir = cache_dir("concurrent");
    let children: Vec<_> = (0..4)
        .map(|_| {
            Command::new(env!("CARGO_BIN_EXE_tangent"))
                .args(["run", "tests/scripts/disk_cache.py"])
                .current_dir(env!("CARGO_MANIFEST_DIR"))
                .env("TANGENT_CACHE_DIR", &dir)
                .env_remove("TANGENT_DISK_CACHE")
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .expect("spawn")
        })
        .collect();
    for c in children {
        let c = c.wait_with_output().expect("wait");
        assert!(c.status.success(), "{}", String::from_utf8_lossy(&c.stderr));
    }
    assert_eq!(entries(&dir).len(), 1);
    assert!(script(&dir, &[]).contains("hits: 1"));
    let doctor = run(&dir, &[], &["doctor"]);
    let so = String::from_utf8_lossy(&doctor.stdout);
    assert!(
        so.contains(&format!("cache: {} (1 entries", dir.display())),
        "{so}"
    );
    let clear = run(&dir, &[], &["cache", "clear"]);
    assert!(String::from_utf8_lossy(&clear.stdout).contains("removed 1 entries"));
    assert!(entries(&dir).is_empty());
    // The key goes too (the next write makes a new one); nothing of ours is left.
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().map(|e| e.path()).collect();
    assert!(left.is_empty(), "{left:?}");
}

/// The embedded host keeps the shims' bytecode next to the entries (start-up ~60 -> ~30 ms
/// in a release build); a damaged file is recompiled, never executed, and
/// TANGENT_DISK_CACHE=0 writes none.
#[test]
fn shim_bytecode_is_cached_checked_and_optional() {
    let dir = cache_dir("bytecode");
    script(&dir, &[("TANGENT_DISK_CACHE", "0")]);
    assert!(
        common::bytecode::files(&dir).is_empty(),
        "bytecode written with the disk cache off"
    );
    script(&dir, &[]);
    let files = common::bytecode::files(&dir);
    assert_eq!(
        files.len(),
        tangent::host::SHIMS.len() + tangent::numpy::SHIMS.len()
    );
    common::bytecode::damage(&files);
    script(&dir, &[]);
    common::bytecode::assert_intact(&files);
    // `tangent cache clear` removes the bytecode too.
    let out = run(&dir, &[], &["cache", "clear"]);
    assert!(out.status.success());
    assert!(common::bytecode::files(&dir).is_empty());
}
