//! Read-only dicts of numbers in native code (`params['C']` in a simulation loop): a
//! dict argument whose keys are all strings and whose values are all floats is passed as
//! its values in the order of its sorted keys, and the signature names the key set, so
//! `params['C']` compiles to one load at a fixed offset. The values are read when the
//! call starts; the compiled code cannot change the dict, and no Python code runs during
//! the call, so they are the values every read in Python would see.

use std::sync::Mutex;

/// Every key set a signature has named, by number (sorted keys).
static KEY_SETS: Mutex<Vec<Vec<String>>> = Mutex::new(Vec::new());

/// The number of a key set (sorted, without duplicates).
pub fn intern(keys: &[String]) -> u32 {
    let mut sets = KEY_SETS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(k) = sets.iter().position(|s| s == keys) {
        return k as u32;
    }
    sets.push(keys.to_vec());
    (sets.len() - 1) as u32
}

/// The position of `key` in key set `id`.
pub fn key_index(id: u32, key: &str) -> Option<usize> {
    let sets = KEY_SETS.lock().unwrap_or_else(|e| e.into_inner());
    sets.get(id as usize)?.iter().position(|k| k == key)
}

/// A dict argument's values in key order and its key set's number; the caller keeps
/// `values` alive until the call returns and passes `values.as_ptr()`.
pub struct DictValues {
    pub keys: u32,
    pub values: Vec<f64>,
}

impl DictValues {
    /// From the dict's (key, value) pairs, in any order.
    pub fn new(mut entries: Vec<(String, f64)>) -> DictValues {
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        let keys: Vec<String> = entries.iter().map(|(k, _)| k.clone()).collect();
        DictValues {
            keys: intern(&keys),
            values: entries.into_iter().map(|(_, v)| v).collect(),
        }
    }
}
