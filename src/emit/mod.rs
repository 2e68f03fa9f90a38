//! Emit: print the IR back to readable Python.
pub mod printer;
