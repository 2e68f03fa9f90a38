//! `tangent run` in CPython: the binary has opened libpython (RTLD_GLOBAL) and this
//! library, and calls `tangent_bridge_run`. It starts CPython as the chosen executable
//! would (program name, its `sys.path`), makes `tangent` this crate's module, and runs
//! the script as `__main__`; an uncaught exception prints its traceback (without
//! tangent's own frames unless TANGENT_TRACEBACK=full).

use pyo3::prelude::*;
use pyo3::types::PyList;
use std::ffi::{c_char, c_int, CStr, CString};

/// The script runner; `main` returns the exit status.
const BOOT: &str = r#"
import sys, os, types, traceback

FRAMEWORKS = ('jax', 'torch', 'tensorflow', 'keras', 'tinygrad', 'scipy')

def _trim(te):
    # Leaves out the runner's and tangent's own frames, in chained exceptions too.
    seen = set()
    while te is not None and id(te) not in seen:
        seen.add(id(te))
        te.stack = traceback.StackSummary.from_list(
            [f for f in te.stack if not f.filename.startswith('<tangent')])
        _trim(te.__cause__)
        te = te.__context__

def _status(e):
    code = e.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1

def main(path, argv, entries, executable):
    sys.argv[:] = argv
    sys.path[:] = [os.path.dirname(os.path.abspath(path))] + entries
    module = types.ModuleType('__main__')
    module.__file__ = path
    module.__builtins__ = __builtins__
    sys.modules['__main__'] = module
    try:
        with open(path, 'rb') as f:
            source = f.read()
        exec(compile(source, path, 'exec'), module.__dict__)
        return 0
    except SystemExit as e:
        return _status(e)
    except BaseException as e:
        te = traceback.TracebackException.from_exception(e)
        if os.environ.get('TANGENT_TRACEBACK') != 'full':
            _trim(te)
        sys.stderr.write(''.join(te.format()))
        if isinstance(e, ModuleNotFoundError) and (e.name or '').split('.')[0] in FRAMEWORKS:
            name = e.name.split('.')[0]
            sys.stderr.write(
                'tangent: the script ran in CPython (%s) because it imports %s, which that '
                'interpreter cannot import; install it there (`%s -m pip install %s`) or '
                'point `tangent run --python PATH` / TANGENT_PYTHON at a Python that has it\n'
                % (executable, name, executable, name))
        return 1
    finally:
        # What interpreter shutdown would do (Py_Finalize itself is never called).
        import atexit
        atexit._run_exitfuncs()
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:
                pass
"#;

/// Sets the program name CPython computes its prefix (and finds a venv's pyvenv.cfg)
/// from, where the running libpython still has the call (through 3.12).
unsafe fn set_program_name(executable: &CStr) {
    type Decode = unsafe extern "C" fn(*const c_char, *mut usize) -> *mut libc::wchar_t;
    type SetName = unsafe extern "C" fn(*const libc::wchar_t);
    let decode = libc::dlsym(libc::RTLD_DEFAULT, c"Py_DecodeLocale".as_ptr());
    let set = libc::dlsym(libc::RTLD_DEFAULT, c"Py_SetProgramName".as_ptr());
    if decode.is_null() || set.is_null() {
        return;
    }
    let decode: Decode = std::mem::transmute(decode);
    let set: SetName = std::mem::transmute(set);
    let wide = decode(executable.as_ptr(), std::ptr::null_mut());
    if !wide.is_null() {
        // CPython keeps the pointer: it is never freed.
        set(wide);
    }
}

/// # Safety
/// Every pointer is a NUL-terminated string (`argv`: `argc` of them); libpython is
/// loaded with RTLD_GLOBAL and not initialised yet.
#[no_mangle]
pub unsafe extern "C" fn tangent_bridge_run(
    executable: *const c_char,
    sys_path: *const c_char,
    argc: c_int,
    argv: *const *const c_char,
) -> c_int {
    let executable = CStr::from_ptr(executable).to_owned();
    let sys_path = CStr::from_ptr(sys_path).to_string_lossy().into_owned();
    let argv: Vec<String> = (0..argc.max(0) as usize)
        .map(|i| CStr::from_ptr(*argv.add(i)).to_string_lossy().into_owned())
        .collect();
    std::panic::catch_unwind(move || {
        set_program_name(&executable);
        pyo3::ffi::Py_InitializeEx(1);
        Python::attach(|py| match run(py, &executable, &sys_path, &argv) {
            Ok(status) => status,
            Err(e) => {
                e.print(py);
                70
            }
        })
    })
    .unwrap_or(70)
}

fn run(py: Python<'_>, executable: &CString, sys_path: &str, argv: &[String]) -> PyResult<c_int> {
    let Some(script) = argv.first() else {
        return Ok(2);
    };
    let tangent = pyo3::wrap_pymodule!(crate::tangent_module)(py);
    py.import("sys")?
        .getattr("modules")?
        .set_item("tangent", tangent)?;
    let boot = PyModule::from_code(
        py,
        &CString::new(BOOT)?,
        c"<tangent bridge>",
        c"_tangent_boot",
    )?;
    let entries: Vec<&str> = sys_path.split('\n').filter(|p| !p.is_empty()).collect();
    let status = boot.getattr("main")?.call1((
        script,
        PyList::new(py, argv)?,
        PyList::new(py, entries)?,
        executable.to_string_lossy(),
    ))?;
    status.extract()
}
