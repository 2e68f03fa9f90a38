//! Shared by the benches that time code inside the embedded interpreter: `setup` runs
//! a Python setup module (with `benches/` on `sys.path`), `timed` calls one of its
//! timing functions, which returns the seconds it measured for `n` iterations. Timing
//! inside the interpreter keeps the Rust-to-Python hop out of the numbers.

use std::time::Duration;
use tangent::host::rustpython as host;

thread_local! {
    static SCOPE: std::cell::RefCell<Option<rustpython_vm::scope::Scope>> = const { std::cell::RefCell::new(None) };
}

/// Runs `source` (named `name` in tracebacks) as the bench's setup module.
pub fn setup(source: &'static str, name: &'static str) {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/benches");
    host::with_vm(move |vm| {
        let sys = vm.import("sys", 0).expect("sys");
        let path = sys.get_attr("path", vm).expect("sys.path");
        vm.call_method(&path, "insert", (0, dir))
            .expect("insert path");
        let scope = host::exec_module(vm, source, name)
            .unwrap_or_else(|e| panic!("{}", host::format_exception(vm, e)));
        SCOPE.with(|b| *b.borrow_mut() = Some(scope));
    });
}

/// Calls the setup module's `fname(arg, n)` and returns the time it measured.
pub fn timed(fname: &'static str, arg: &'static str, n: u64) -> Duration {
    host::with_vm(move |vm| {
        let scope = SCOPE.with(|b| b.borrow().clone()).expect("setup ran");
        let f = scope.globals.get_item(fname, vm).expect("timing function");
        let secs = f
            .call((arg, n as usize), vm)
            .unwrap_or_else(|e| panic!("{}", host::format_exception(vm, e)));
        let secs: f64 = secs.try_into_value(vm).expect("float");
        Duration::from_secs_f64(secs)
    })
}
