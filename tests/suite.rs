//! The integration tests, one test crate (one link instead of one per file): each file
//! of `tests/` is a module of it, and `tests/common/` their shared helpers. Snapshots are
//! `tests/snapshots/suite__<module>__<name>.snap`. `cargo nextest run` runs every test in
//! its own process; `cargo test --test suite <module>::` one file's tests.

mod common;

mod bridge;
mod catalog;
mod cli;
mod corpus;
mod diagnostics;
mod differential;
mod disk_cache;
mod fence;
mod jax_backend;
mod keras_backend;
mod numpy_module;
mod rules;
mod rust_api;
mod snapshots;
mod tensorflow_backend;
mod tidy;
mod tinygrad_backend;
mod torch_backend;
