//! Front end: parse, lower to the IR, and reject (fence) what cannot be differentiated.
pub mod constructor;
pub mod diag;
pub mod ir;
pub mod lift;
pub mod live;
pub mod lower;
pub mod module;
pub mod names;
pub mod units;
pub mod visit;

pub use diag::Diagnostic;
pub use module::SourceModule;
