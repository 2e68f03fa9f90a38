//! The disk cache: written on a miss, read by a new process, never trusted when an entry
//! is damaged or its globals no longer resolve, off with TANGENT_DISK_CACHE=0, safe with
//! several processes at once, and cleared by `tangent cache clear`; and never running what
//! it did not write: forged, swapped, linked, FIFO or badly owned entries and directories
//! are misses (issue 13).

use crate::common;

use crate::common::entries;
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
    assert!(
        text.contains("\n# tangent-ad cache v2\n# entry: dfdx\n"),
        "{text}"
    );
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
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
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
        tangent::host::rustpython::COMPAT.len()
            + tangent::host::SHIMS.len()
            + tangent::numpy::SHIMS.len()
    );
    common::bytecode::damage(&files);
    script(&dir, &[]);
    common::bytecode::assert_intact(&files);
    // `tangent cache clear` removes the bytecode too.
    let out = run(&dir, &[], &["cache", "clear"]);
    assert!(out.status.success());
    assert!(common::bytecode::files(&dir).is_empty());
}

/// Issue 13: whoever can write the cache directory but not read the key cannot make an
/// entry: a derivative forged with a checksum anyone can recompute (the old format's, or
/// a MAC without the key, or under a guessable key) is a miss, and the right gradient is
/// printed.
#[test]
fn forged_derivative_entries_are_misses() {
    let dir = cache_dir("forged");
    script(&dir, &[]);
    let entry = entries(&dir).remove(0);
    let file = file_name(&entry);
    let contents = String::from_utf8(entries::contents(&entry)).unwrap();
    let (head, body) = contents.split_at(contents.find("def ").unwrap());
    let params = head
        .lines()
        .find_map(|l| l.strip_prefix("# params: "))
        .unwrap();
    // The derivative returns 42.0 whatever its argument.
    let (signature, _) = body.split_once('\n').unwrap();
    let body = format!("{signature}\n    return 42.0\n");
    let forged = format!("{head}{body}");
    let old_format = format!(
        "# tangent-ad cache v1\n# key: {}\n# entry: dfdx\n# params: {params}\n# checksum: {}\n{body}",
        file.trim_end_matches(".py"),
        blake3::hash(body.as_bytes()).to_hex()
    );
    let unkeyed = forge(None, "derivative", &file, forged.as_bytes());
    let zero_key = forge(Some(&[0; 32]), "derivative", &file, forged.as_bytes());
    for forgery in [old_format.into_bytes(), unkeyed, zero_key] {
        std::fs::write(&entry, &forgery).unwrap();
        let so = script(&dir, &[]);
        let forgery = String::from_utf8_lossy(&forgery);
        assert!(so.contains("hits: 0"), "{so}\nforgery accepted:\n{forgery}");
    }
    // The test's own forgery is what the cache would accept with the key.
    let sealed = entries::seal(&dir, "derivative", &file, forged.as_bytes());
    std::fs::write(&entry, sealed).unwrap();
    let out = run(&dir, &[], &["run", "tests/scripts/disk_cache.py"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("value: 42.0"));
}

/// An entry in the new layout whose MAC an attacker without the key can make: unkeyed
/// blake3, or keyed with a guess.
fn forge(key: Option<&[u8; 32]>, kind: &str, file: &str, contents: &[u8]) -> Vec<u8> {
    let mut mac = match key {
        Some(k) => blake3::Hasher::new_keyed(k),
        None => blake3::Hasher::new(),
    };
    for part in ["tangent-ad v2", kind, file] {
        mac.update(part.as_bytes());
        mac.update(b"\0");
    }
    mac.update(contents);
    let header = format!("# tangent-ad v2 {kind} {}\n", mac.finalize().to_hex());
    [header.as_bytes(), contents].concat()
}

/// The marshal data of a module that prints PWNED, made by the embedded interpreter.
fn pwned_marshal(dir: &Path) -> Vec<u8> {
    let work = cache_dir("pwned-script");
    std::fs::create_dir_all(&work).unwrap();
    let maker = work.join("make.py");
    std::fs::write(
        &maker,
        "import marshal\nprint(marshal.dumps(compile(\"print('PWNED')\\n\", 'x', 'exec')).hex())\n",
    )
    .unwrap();
    let out = run(
        dir,
        &[("TANGENT_DISK_CACHE", "0")],
        &["run", "--embedded", maker.to_str().unwrap()],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let hex = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    let _ = std::fs::remove_dir_all(&work);
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
        .collect()
}

/// A forged `shim-*.pyc` (code that prints PWNED, behind the old format's checksum or a
/// MAC made without the key) is never executed: the shims are compiled again.
#[test]
fn forged_shim_bytecode_is_not_executed() {
    let dir = cache_dir("forged-pyc");
    script(&dir, &[]);
    let files = common::bytecode::files(&dir);
    assert!(files.len() >= 2);
    let pwned = pwned_marshal(&dir);
    for old_format in [true, false] {
        for f in &files {
            let forged = if old_format {
                [blake3::hash(&pwned).as_bytes(), &pwned[..]].concat()
            } else {
                forge(None, "bytecode", &file_name(f), &pwned)
            };
            std::fs::write(f, forged).unwrap();
        }
        let (so, se) = script_output(run(&dir, &[], &["run", "tests/scripts/disk_cache.py"]));
        assert!(!so.contains("PWNED") && !se.contains("PWNED"), "{so}\n{se}");
        common::bytecode::assert_intact(&files);
    }
}

/// An authentic bytecode entry under another entry's name is a miss (the MAC covers the
/// name): moving every file to the next one's name costs a recompilation, never a failed
/// run (it used to fail with exit 70 until `tangent cache clear`).
#[test]
fn swapped_shim_files_are_misses() {
    let dir = cache_dir("swapped");
    script(&dir, &[]);
    let files = common::bytecode::files(&dir);
    let original: Vec<Vec<u8>> = files.iter().map(|f| std::fs::read(f).unwrap()).collect();
    for (i, f) in files.iter().enumerate() {
        std::fs::write(f, &original[(i + 1) % files.len()]).unwrap();
    }
    script(&dir, &[]);
    common::bytecode::assert_intact(&files);
    for (f, bytes) in files.iter().zip(&original) {
        assert_eq!(
            &std::fs::read(f).unwrap(),
            bytes,
            "{} recompiled",
            f.display()
        );
    }
}

/// A forged `python-*.txt` (the CPython host's cached interpreter answer) naming another
/// libpython is ignored: the interpreter is asked again. The "interpreter" is a shell
/// script answering the sysconfig query with a library that is not one, so the run stops
/// at loading it and names the library it tried.
#[test]
fn forged_interpreter_answers_are_ignored() {
    let dir = cache_dir("python");
    let work = cache_dir("python-work");
    std::fs::create_dir_all(&work).unwrap();
    let (lib_a, lib_b) = (work.join("libpython-a.so"), work.join("libpython-b.so"));
    std::fs::write(&lib_a, "not a library").unwrap();
    std::fs::write(&lib_b, "not a library either").unwrap();
    let py = work.join("python3");
    std::fs::write(
        &py,
        format!(
            "#!/bin/sh\nprintf '%s\\n' /fake/python3 '{}' 3.11.0 /fake/lib\n",
            lib_a.display()
        ),
    )
    .unwrap();
    chmod(&py, 0o755);
    let py_s = py.to_str().unwrap();
    let tried = || {
        let out = run(
            &dir,
            &[("TANGENT_BRIDGE", py_s)],
            &["run", "--python", py_s, "tests/scripts/disk_cache.py"],
        );
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let se = tried();
    assert!(
        se.contains(&format!("cannot load libpython `{}`", lib_a.display())),
        "{se}"
    );
    let answers: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| file_name(p).starts_with("python-"))
        .collect();
    assert_eq!(answers.len(), 1, "{answers:?}");
    let answer = &answers[0];
    let text = std::fs::read_to_string(answer).unwrap();
    let (header, contents) = text.split_once('\n').unwrap();
    let swap = |t: &str| t.replace(lib_a.to_str().unwrap(), lib_b.to_str().unwrap());
    // The old format (no check at all), and the new one with the body edited.
    for forgery in [swap(contents), format!("{header}\n{}", swap(contents))] {
        std::fs::write(answer, &forgery).unwrap();
        let se = tried();
        assert!(se.contains(&format!("`{}`", lib_a.display())), "{se}");
        assert!(!se.contains(&format!("`{}`", lib_b.display())), "{se}");
    }
    assert!(entries::authentic(answer, "interpreter"), "not rewritten");
    let _ = std::fs::remove_dir_all(&work);
}

/// A cache directory writable by group or others, an entry writable by them or not
/// owned by the user, and a key file others can read are refused with a message naming
/// them; the run still succeeds, without that part of the disk cache.
#[test]
fn badly_owned_or_writable_files_are_refused() {
    let dir = cache_dir("modes");
    script(&dir, &[]);
    let entry = entries(&dir).remove(0);
    let (so, se) = script_output(run(&dir, &[], &["run", "tests/scripts/disk_cache.py"]));
    assert!(so.contains("hits: 1") && se.is_empty(), "{so}\n{se}");

    // The directory: refused whole, nothing read or written.
    for bad in [0o777, 0o720, 0o702] {
        std::fs::remove_file(&entry).unwrap();
        chmod(&dir, bad);
        let (so, se) = script_output(tangent_in(&dir).output().unwrap());
        chmod(&dir, 0o700);
        assert!(so.contains("hits: 0"), "{so}");
        assert!(
            se.contains(&format!(
                "`{}` is writable by group or others",
                dir.display()
            )),
            "{se}"
        );
        assert!(entries(&dir).is_empty(), "written into a {bad:o} directory");
        script(&dir, &[]);
    }

    // An entry: a miss with a message, then replaced by a private one.
    let shim = common::bytecode::files(&dir).remove(0);
    for (path, bad) in [(&entry, 0o666), (&entry, 0o620), (&shim, 0o602)] {
        chmod(path, bad);
        let (so, se) = script_output(tangent_in(&dir).output().unwrap());
        assert!(
            se.contains(&format!(
                "`{}` is writable by group or others",
                path.display()
            )),
            "{se}"
        );
        if path == &entry {
            assert!(so.contains("hits: 0"), "{so}");
        }
        assert_eq!(mode(path), 0o600, "{} not replaced", path.display());
    }
    if euid() == 0 {
        // Root can give an entry away: one owned by someone else is refused too.
        std::os::unix::fs::chown(&entry, Some(65534), None).unwrap();
        let (so, se) = script_output(tangent_in(&dir).output().unwrap());
        assert!(so.contains("hits: 0"), "{so}");
        assert!(
            se.contains(&format!("`{}` is owned by uid 65534", entry.display())),
            "{se}"
        );
        assert_eq!(std::fs::metadata(&entry).unwrap().uid(), 0, "not replaced");
    }

    // The key: readable by others means anyone may have it; the cache is off.
    let key = dir.join("mac.key");
    chmod(&key, 0o644);
    std::fs::remove_file(&entry).unwrap();
    let (so, se) = script_output(tangent_in(&dir).output().unwrap());
    assert!(so.contains("hits: 0"), "{so}");
    assert!(
        se.contains(&format!(
            "`{}` is accessible to group or others",
            key.display()
        )),
        "{se}"
    );
    assert!(entries(&dir).is_empty(), "written under a refused key");
    let doctor = run(&dir, &[], &["doctor"]);
    let so = String::from_utf8_lossy(&doctor.stdout);
    assert!(
        so.contains(&format!("cache: {} not used: ", dir.display())),
        "{so}"
    );
    // `cache clear` removes the refused key; the next run makes a new one.
    assert!(run(&dir, &[], &["cache", "clear"]).status.success());
    assert!(!key.exists());
    script(&dir, &[]);
    assert_eq!(mode(&key), 0o600);
    assert_eq!(entries(&dir).len(), 1);
}

/// A symbolic link at an entry's name is not followed, a FIFO there does not hang the
/// run (it used to block in open forever); both are skipped with a message and replaced.
#[test]
fn links_and_fifos_at_entry_names_are_skipped() {
    let dir = cache_dir("links");
    script(&dir, &[]);
    let entry = entries(&dir).remove(0);
    // A link to an authentic copy of the entry, kept elsewhere.
    let elsewhere = cache_dir("links-target");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let target = elsewhere.join("entry");
    std::fs::rename(&entry, &target).unwrap();
    std::os::unix::fs::symlink(&target, &entry).unwrap();
    let kept = std::fs::read(&target).unwrap();
    let (so, se) = script_output(tangent_in(&dir).output().unwrap());
    assert!(so.contains("hits: 0"), "link followed: {so}");
    assert!(
        se.contains(&format!("`{}` is a symbolic link", entry.display())),
        "{se}"
    );
    assert!(std::fs::symlink_metadata(&entry).unwrap().is_file());
    assert_eq!(std::fs::read(&target).unwrap(), kept);

    // FIFOs at a derivative's and at a shim's name.
    let shim = common::bytecode::files(&dir).remove(0);
    for path in [&entry, &shim] {
        std::fs::remove_file(path).unwrap();
        let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
        // SAFETY: a NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    }
    let (so, se) = script_output(output_within(tangent_in(&dir), 120));
    assert!(so.contains("hits: 0"), "{so}");
    for path in [&entry, &shim] {
        assert!(
            se.contains(&format!("`{}` is a FIFO", path.display())),
            "{se}"
        );
        assert!(std::fs::symlink_metadata(path).unwrap().is_file());
    }
    let _ = std::fs::remove_dir_all(&elsewhere);
}

/// Temporary files have random names and are created exclusively: links placed at the
/// names earlier versions used (`shim-*.tmp<pid>`, for the pids the next process may
/// get) do not make a store write into their target.
#[test]
fn links_at_temporary_names_are_not_written_through() {
    let dir = cache_dir("tmp-links");
    script(&dir, &[]);
    let files = common::bytecode::files(&dir);
    let victim_dir = cache_dir("tmp-victim");
    std::fs::create_dir_all(&victim_dir).unwrap();
    let victim = victim_dir.join("precious");
    std::fs::write(&victim, "precious").unwrap();
    for f in &files {
        std::fs::remove_file(f).unwrap();
    }
    let last_pid: u32 = std::fs::read_to_string("/proc/sys/kernel/ns_last_pid")
        .ok()
        .and_then(|t| t.trim().parse().ok())
        .unwrap_or(0);
    for pid in last_pid + 1..=last_pid + 300 {
        for f in &files {
            let name = f.with_extension(format!("tmp{pid}"));
            std::os::unix::fs::symlink(&victim, name).unwrap();
        }
    }
    script(&dir, &[]);
    assert_eq!(
        std::fs::read(&victim).unwrap(),
        b"precious",
        "written through a link"
    );
    common::bytecode::assert_intact(&files);
    for f in &files {
        assert!(std::fs::symlink_metadata(f).unwrap().is_file());
    }
    // `cache clear` removes the planted names too (they look like ours).
    assert!(run(&dir, &[], &["cache", "clear"]).status.success());
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    let _ = std::fs::remove_dir_all(&victim_dir);
}

/// An empty TANGENT_CACHE_DIR (or XDG_CACHE_HOME, or a relative XDG_CACHE_HOME, which
/// the XDG specification calls invalid) means the default location, never the working
/// directory.
#[test]
fn empty_cache_dir_variable_means_the_default() {
    let home = cache_dir("home");
    let cwd = cache_dir("cwd");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&cwd).unwrap();
    let script_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scripts/disk_cache.py");
    for xdg in [None, Some(""), Some("relative")] {
        let mut c = Command::new(env!("CARGO_BIN_EXE_tangent"));
        c.arg("run")
            .arg(&script_path)
            .current_dir(&cwd)
            .env("TANGENT_CACHE_DIR", "")
            .env("HOME", &home)
            .env_remove("TANGENT_DISK_CACHE")
            .env_remove("XDG_CACHE_HOME");
        if let Some(x) = xdg {
            c.env("XDG_CACHE_HOME", x);
        }
        script_output(c.output().unwrap());
        let in_cwd: Vec<_> = std::fs::read_dir(&cwd)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .collect();
        assert!(
            in_cwd.is_empty(),
            "written into the working directory: {in_cwd:?}"
        );
        assert_eq!(entries(&home.join(".cache/tangent-ad")).len(), 1);
    }
    let _ = std::fs::remove_dir_all(&home);
    let _ = std::fs::remove_dir_all(&cwd);
}

/// A new cache directory is 0700, its key file 0600 (32 bytes), every entry 0600, and no
/// temporary file is left behind.
#[test]
fn new_directory_key_and_entries_are_private() {
    let parent = cache_dir("private");
    let dir = parent.join("nested");
    script(&dir, &[]);
    assert_eq!(mode(&dir), 0o700);
    let key = dir.join("mac.key");
    assert_eq!(mode(&key), 0o600);
    assert_eq!(std::fs::read(&key).unwrap().len(), 32);
    for e in std::fs::read_dir(&dir).unwrap().flatten() {
        let name = file_name(&e.path());
        assert!(!name.starts_with(".tmp"), "left behind: {name}");
        assert_eq!(mode(&e.path()), 0o600, "{name}");
    }
    // Two directories have two keys.
    let other = parent.join("other");
    script(&other, &[]);
    assert_ne!(
        std::fs::read(&key).unwrap(),
        std::fs::read(other.join("mac.key")).unwrap()
    );
    let _ = std::fs::remove_dir_all(&parent);
}
