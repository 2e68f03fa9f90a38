//! Hosts execute user scripts and generated derivative source. The transformer never
//! depends on them: it turns source into source.
pub mod rustpython;
