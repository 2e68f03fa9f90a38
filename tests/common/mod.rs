//! Helpers shared by integration tests.
pub mod backend;
pub mod bytecode;
pub mod cpython;
pub mod entries;
