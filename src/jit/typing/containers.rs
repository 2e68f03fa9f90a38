//! Read-only containers of numbers in native code (`params['C']`, `COEFFS[k]` in a
//! simulation loop). A dict argument whose keys are all strings and whose values are all
//! floats is passed as its values in the order of its sorted keys, and the signature
//! names the key set, so `params['C']` compiles to one load at a fixed offset. A tuple or
//! list whose elements are all floats is passed as a copy of its elements under a 1-d
//! array descriptor, read by index only (`t[i]`, negative indices, out of range bails so
//! the interpreter raises; `len(t)`); nothing else (`t * 2` repeats a tuple, a gradient
//! with respect to it is a tuple) compiles. The values are read when the call starts; the
//! compiled code cannot change them, and no Python code runs during the call, so they
//! are the values every read in Python would see.
//!
//! A record, a dataclass or namedtuple instance whose fields are all floats, is passed
//! as a dict of its field values is (`p.C` one load); only its fields are read, by
//! attribute.

use super::{expr_type, Callees, Refusal, Ty, VarTy};
use crate::jit::arrays::ArrayDesc;
use crate::jit::Scalar;
use crate::syntax::ir::*;
use std::collections::HashMap;
use std::sync::Mutex;

/// A key set (sorted keys) and the NumPy kind of each value (`precision::PYTHON`,
/// `SINGLE` or `DOUBLE`: code with float32 values promotes by it, NEP 50).
struct KeySet {
    keys: Vec<String>,
    kinds: Vec<u8>,
}

/// Every key set a signature has named, by number.
static KEY_SETS: Mutex<Vec<KeySet>> = Mutex::new(Vec::new());

fn key_sets() -> std::sync::MutexGuard<'static, Vec<KeySet>> {
    KEY_SETS.lock().unwrap_or_else(|e| e.into_inner())
}

/// The number of a key set (sorted, without duplicates) whose values are Python floats.
pub fn intern<S: AsRef<str>>(keys: &[S]) -> u32 {
    intern_kinds(keys, &vec![PYTHON; keys.len()])
}

/// The number of a key set (sorted, without duplicates) whose values have these kinds.
pub fn intern_kinds<S: AsRef<str>>(keys: &[S], kinds: &[u8]) -> u32 {
    let mut sets = key_sets();
    let same = |s: &KeySet| {
        s.kinds == kinds
            && s.keys
                .iter()
                .map(String::as_str)
                .eq(keys.iter().map(|k| k.as_ref()))
    };
    if let Some(k) = sets.iter().position(same) {
        return k as u32;
    }
    sets.push(KeySet {
        keys: keys.iter().map(|k| k.as_ref().to_owned()).collect(),
        kinds: kinds.to_vec(),
    });
    (sets.len() - 1) as u32
}

/// The position of `key` in key set `id`.
pub fn key_index(id: u32, key: &str) -> Option<usize> {
    key_sets()
        .get(id as usize)?
        .keys
        .iter()
        .position(|k| k == key)
}

/// The kind of the value at `pos` of key set `id`.
pub fn key_kind(id: u32, pos: usize) -> u8 {
    key_sets()
        .get(id as usize)
        .and_then(|s| s.kinds.get(pos).copied())
        .unwrap_or(PYTHON)
}

/// Whether a value of key set `id` is a `numpy.float32`.
pub fn has_single(id: u32) -> bool {
    key_sets()
        .get(id as usize)
        .is_some_and(|s| s.kinds.contains(&SINGLE))
}

/// The kinds of a number a container holds (`precision`'s, as u8), and `MIXED` for a
/// sequence whose elements differ in kind.
pub const PYTHON: u8 = crate::jit::precision::PYTHON as u8;
pub const SINGLE: u8 = crate::jit::precision::SINGLE as u8;
pub const DOUBLE: u8 = crate::jit::precision::DOUBLE as u8;
pub const MIXED: u8 = 3;

/// A dict argument's values in key order and its key set's number (or a record's, by
/// field name); the caller keeps `values` alive until the call returns and passes
/// `values.as_ptr()`.
pub struct DictValues {
    pub keys: u32,
    pub values: Vec<f64>,
    /// A record's fields (read as `p.C`), not a dict's items (`d['C']`).
    pub record: bool,
}

impl DictValues {
    /// From a record's (field, number) pairs, in any order (a number that is not a float
    /// of some kind: None).
    pub fn record<S: AsRef<str>>(entries: Vec<(S, Scalar)>) -> Option<DictValues> {
        let mut entries = entries;
        entries.sort_by(|a, b| a.0.as_ref().cmp(b.0.as_ref()));
        let (values, kinds): (Vec<f64>, Vec<u8>) = entries
            .iter()
            .map(|(_, v)| v.float_kind())
            .collect::<Option<Vec<_>>>()?
            .into_iter()
            .unzip();
        let keys: Vec<S> = entries.into_iter().map(|(k, _)| k).collect();
        Some(DictValues {
            keys: intern_kinds(&keys, &kinds),
            values,
            record: true,
        })
    }

    /// The values of a dict whose key set is `keys` (see `intern_kinds`), already in
    /// key order.
    fn in_key_order(keys: u32, values: Vec<f64>) -> DictValues {
        DictValues {
            keys,
            values,
            record: false,
        }
    }
}

/// The key orders of the dicts passed last, by key object: a host reads a dict's keys
/// and values in the dict's own order and finds the order of its key set without
/// reading the keys' text or sorting (dicts built by the same code share key objects).
/// `K` is the host's owned reference to a key; the ones kept here stay alive, so no
/// other string takes their place.
pub struct KeyOrders<K> {
    kept: Mutex<Vec<KeyOrder<K>>>,
}

/// A dict's key objects in its order, their order by text, the sorted text, and the key
/// set numbers of the kinds of values seen with them.
struct KeyOrder<K> {
    keys: Vec<K>,
    order: Vec<usize>,
    sorted: Vec<String>,
    ids: Vec<(Vec<u8>, u32)>,
}

/// How many key orders are kept (a program passes few dicts).
const KEY_ORDERS_KEPT: usize = 16;

impl<K> KeyOrders<K> {
    pub const fn new() -> KeyOrders<K> {
        KeyOrders {
            kept: Mutex::new(Vec::new()),
        }
    }

    /// The values of a dict whose key objects are `keys` and whose values are `values`
    /// (number, NumPy kind: `Scalar::float_kind`), both in the dict's order. `same`
    /// tells whether a kept key is the given key object; `text` reads a key's text and
    /// `keep` takes a reference to it, both only for a sequence of keys not seen before.
    pub fn values<B>(
        &self,
        keys: &[B],
        values: &[(f64, u8)],
        same: impl Fn(&K, &B) -> bool,
        text: impl Fn(&B) -> Option<String>,
        keep: impl Fn(&B) -> K,
    ) -> Option<DictValues> {
        if values.len() != keys.len() {
            return None;
        }
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        let known = kept.iter().position(|o| {
            o.keys.len() == keys.len() && o.keys.iter().zip(keys).all(|(a, b)| same(a, b))
        });
        let at = match known {
            Some(k) => k,
            None => {
                let text: Vec<String> = keys.iter().map(&text).collect::<Option<_>>()?;
                let mut order: Vec<usize> = (0..keys.len()).collect();
                order.sort_by(|&a, &b| text[a].cmp(&text[b]));
                let sorted = order.iter().map(|&k| text[k].clone()).collect();
                if kept.len() >= KEY_ORDERS_KEPT {
                    kept.remove(0);
                }
                kept.push(KeyOrder {
                    keys: keys.iter().map(keep).collect(),
                    order,
                    sorted,
                    ids: Vec::new(),
                });
                kept.len() - 1
            }
        };
        let order = &mut kept[at];
        // The kinds in key order, compared in place (a call allocates only for a new
        // combination).
        let kind = |k: usize| values[order.order[k]].1;
        let seen = order.ids.iter().find(|(kinds, _)| {
            kinds.len() == order.order.len() && kinds.iter().enumerate().all(|(k, &c)| c == kind(k))
        });
        let id = match seen {
            Some((_, id)) => *id,
            None => {
                let kinds: Vec<u8> = (0..order.order.len()).map(kind).collect();
                let id = intern_kinds(&order.sorted, &kinds);
                order.ids.push((kinds, id));
                id
            }
        };
        let in_order = order.order.iter().map(|&k| values[k].0).collect();
        Some(DictValues::in_key_order(id, in_order))
    }
}

impl<K> Default for KeyOrders<K> {
    fn default() -> Self {
        Self::new()
    }
}

/// A tuple or list argument's elements and their descriptor (which points into
/// `values`' buffer: the caller keeps this until the call returns).
pub struct SeqValues {
    values: Vec<f64>,
    pub desc: ArrayDesc,
    /// The elements' kind, `MIXED` if they differ.
    pub kind: u8,
}

impl SeqValues {
    /// From the elements (a number that is not a float of some kind: None).
    pub fn new(items: &[Scalar]) -> Option<SeqValues> {
        let (values, kinds): (Vec<f64>, Vec<u8>) = items
            .iter()
            .map(|v| v.float_kind())
            .collect::<Option<Vec<_>>>()?
            .into_iter()
            .unzip();
        let kind = match kinds.split_first() {
            Some((k, rest)) if rest.iter().any(|r| r != k) => MIXED,
            Some((k, _)) => *k,
            None => PYTHON,
        };
        let desc =
            ArrayDesc::new(values.as_ptr(), &[values.len()], &[1]).expect("a 1-d descriptor");
        Some(SeqValues { values, desc, kind })
    }

    pub fn len(&self) -> usize {
        self.values.len()
    }

    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}

/// Whether `e` is a name holding a tuple or list of floats.
pub fn is_seq(e: &Expr, vars: &HashMap<String, VarTy>) -> bool {
    e.as_name()
        .and_then(|n| vars.get(n))
        .is_some_and(|v| matches!(v.ty, Some(Ty::Seq(_))))
}

/// The type of `t[index]` for a tuple or list of floats: one int index (a slice makes a
/// new tuple, which native code does not).
pub fn seq_item_type(
    index: &Expr,
    vars: &HashMap<String, VarTy>,
    callees: Callees,
) -> Result<Option<Ty>, Refusal> {
    if matches!(index.kind, ExprKind::Slice(..) | ExprKind::Tuple(_)) {
        return Err(Refusal::new(index.span, "a slice of a tuple or list"));
    }
    match expr_type(index, vars, callees)? {
        Some(Ty::Int) => Ok(Some(Ty::Float)),
        None => Ok(None),
        Some(t) => Err(Refusal::new(
            index.span,
            format!("a tuple index that is a {}", t.name()),
        )),
    }
}

/// The field set of `e` if it is a name holding a record.
pub fn record_fields(e: &Expr, vars: &HashMap<String, VarTy>) -> Option<u32> {
    match vars.get(e.as_name()?)?.ty {
        Some(Ty::Record(keys)) => Some(keys),
        _ => None,
    }
}

/// The type of `p.attr` for a record `p`: a float for one of its fields; any other
/// attribute (a method, a property, a missing one) is left to the interpreter.
pub fn field_type(
    p: &Expr,
    attr: &str,
    span: Span,
    vars: &HashMap<String, VarTy>,
) -> Result<Option<Ty>, Refusal> {
    match record_fields(p, vars) {
        Some(keys) if key_index(keys, attr).is_some() => Ok(Some(Ty::Float)),
        _ => Err(Refusal::new(
            span,
            format!("the attribute `{attr}`, which is not a float field of the record"),
        )),
    }
}
