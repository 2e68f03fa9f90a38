//! Automatic differentiation of one normalised function: desugaring and ANF
//! (`desugar`, `control_flow`, `alias`), activity, reverse mode (`reverse`, `adjoint`,
//! `coarsen`), forward mode (`forward`), and the templates of `rules` instantiated at a
//! call site (`template`). The driver over a whole program is `crate::pipeline`.

pub mod activity;
pub mod adjoint;
pub mod alias;
pub mod coarsen;
pub mod control_flow;
pub mod desugar;
pub mod forward;
pub mod reverse;
pub mod template;
