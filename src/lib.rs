//! Tangent in Rust: source-to-source automatic differentiation for Python.
//!
//! Pipeline: [`syntax`] (parse, lower, fence) -> [`resolve`] -> [`ad`] (ANF, activity,
//! reverse mode with rule templates from [`rules`]) -> [`opt`] -> [`emit`] (readable
//! Python), driven by [`pipeline::generate`]; [`engine`] serves the hosts ([`host`]),
//! [`api`] is the Rust API. The modules are layers (ARCHITECTURE.md, "Layers").
pub mod ad;
pub mod api;
pub mod cache;
#[cfg(feature = "embedded")]
pub mod cli;
pub mod emit;
pub mod engine;
pub mod error;
pub mod host;
pub mod jit;
#[cfg(feature = "embedded")]
pub use tangent_numpy as numpy;
pub mod opt;
pub mod pipeline;
pub mod resolve;
pub mod rules;
pub mod seam;
pub mod stack;
pub mod syntax;
pub mod tape;

pub use api::{Gradient, Tangent, Value};
pub use error::Error;
