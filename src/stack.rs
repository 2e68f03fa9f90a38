//! A large stack for the transformer. Parsing, lowering and every pass after them
//! recurse over expressions, and a Python expression can be nested thousands of levels
//! deep (`x + x + ... + x` with 6,000 terms is a left-nested chain of 6,000 `+`).
//! Callers reach the transformer on threads whose stack they do not choose (the CLI's
//! main thread, a Rust API user's thread, CPython's thread in the bridge), so every
//! entry point in [`crate::api`] and [`crate::jit`] runs its work through [`run`]: on a
//! thread with a [`STACK_BYTES`] stack (only reserved address space until touched),
//! or inline when already on one. [`crate::syntax`] bounds the nesting depth it parses
//! (brackets and prefix operators, scanned before the parser runs) and lowers (the
//! syntax tree) by [`MAX_NESTING`], so that no pass needs more than this stack.

use std::cell::Cell;

/// Stack of the transformer's thread: 1 GB of address space, only what is used is
/// touched (the parser takes about 2 kB per nesting level).
pub const STACK_BYTES: usize = 1 << 30;

/// The deepest nesting of expressions and statements the transformer accepts (the
/// syntax tree's depth). Deeper input is a located diagnostic, like CPython's "too many
/// nested parentheses" and its RecursionError during compilation. Every pass after
/// lowering recurses at most this deep on the [`STACK_BYTES`] stack (checked by hand
/// near the bound, a 19,990-term chain and 9,990 nested calls, in both modes and with
/// every optional pass: at most 450 MB of process memory in a debug build).
pub const MAX_NESTING: usize = 20_000;

thread_local! {
    static ON_BIG_STACK: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` on a thread with a [`STACK_BYTES`] stack (inline if this thread is one) and
/// returns its result; a panic in `f` continues in the caller.
pub fn run<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    if ON_BIG_STACK.with(Cell::get) {
        return f();
    }
    let mut job = Some(f);
    let slot = &mut job;
    let outcome = std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("tangent-transform".into())
            .stack_size(STACK_BYTES)
            .spawn_scoped(scope, move || {
                ON_BIG_STACK.with(|b| b.set(true));
                slot.take().map(|f| f())
            })
            .map(|handle| handle.join())
    });
    match outcome {
        Ok(Ok(Some(r))) => r,
        Ok(Ok(None)) => unreachable!("the job is taken once"),
        Ok(Err(panic)) => std::panic::resume_unwind(panic),
        // No thread (address space or thread limit): run here; the depth bound still
        // holds, only the margin is smaller.
        Err(_) => match job.take() {
            Some(f) => f(),
            None => unreachable!("a thread that did not start took nothing"),
        },
    }
}
