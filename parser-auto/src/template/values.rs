//! Template values that behave like Python's: lists that templates can mutate (`append`, `pop`, …) and
//! dicts that keep their keys in insertion order, built from `serde_json` values or straight from JSON
//! text.
//!
//! minijinja's own maps are sorted by key (its `preserve_order` feature is off in this workspace) and its
//! lists are immutable, while Python Jinja (what Hugging Face renders with) keeps dict order and lets
//! templates call `list.append`. Every JSON array handed to a template becomes a [`PyList`] and every JSON
//! object a [`PyDict`]; the `namespace()` function turns its list values into [`PyList`]s too. Both print
//! as Python's `str()` does (`{'a': [1, None]}`), and on a [`PyDict`] attribute access finds the dict's
//! methods before its keys, as Jinja's `getattr` does.

use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard};

use minijinja::value::{Enumerator, Object, ObjectExt, ObjectRepr, Value, ValueKind, from_args};
use minijinja::{Error, ErrorKind, State};
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

use super::budget;
use super::env::pystr::py_repr;

/// A Python-like mutable list: `append`, `extend`, `pop`, `insert`, `remove`, `clear`, `index`, `count`,
/// `copy`, `reverse`.
#[derive(Default)]
pub(crate) struct PyList {
    items: Mutex<Vec<Value>>,
}

impl fmt::Debug for PyList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // A snapshot, not the lock: printing an item may read this list again.
        f.debug_list().entries(self.snapshot().iter()).finish()
    }
}

impl PyList {
    /// A list value holding `items`.
    pub(crate) fn new_value(items: Vec<Value>) -> Value {
        Value::from_object(PyList {
            items: Mutex::new(items),
        })
    }

    fn lock(&self) -> MutexGuard<'_, Vec<Value>> {
        // A poisoned lock only means another render panicked mid-push; the list is still usable.
        self.items
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// A copy of the items.
    pub(crate) fn snapshot(&self) -> Vec<Value> {
        self.lock().clone()
    }

    /// The budget's checks before `added` items (`new`) join the list: its length, the nesting of what
    /// joins it (a list appended to itself nests without end), and the bytes counted.
    fn check_growth(self: &Arc<Self>, added: usize, new: &[Value]) -> Result<(), Error> {
        let len = self.lock().len();
        budget::check_items(len.saturating_add(added), "`list.append`")?;
        let this = Value::from_dyn_object(self.clone());
        for item in new {
            if item.kind() == ValueKind::Seq || item.kind() == ValueKind::Map {
                budget::check_no_cycle(&this, item)?;
            }
        }
        budget::charge_items(added)
    }
}

fn index_arg(index: &Value, len: usize) -> Result<usize, Error> {
    let i = index
        .as_i64()
        .ok_or_else(|| Error::new(ErrorKind::InvalidOperation, "list indices must be integers"))?;
    let resolved = if i < 0 {
        i64::try_from(len).unwrap_or(i64::MAX) + i
    } else {
        i
    };
    usize::try_from(resolved)
        .map_err(|_| Error::new(ErrorKind::InvalidOperation, "list index out of range"))
}

impl Object for PyList {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Seq
    }

    fn get_value(self: &Arc<Self>, key: &Value) -> Option<Value> {
        let index = key.as_usize()?;
        self.lock().get(index).cloned()
    }

    fn enumerate(self: &Arc<Self>) -> Enumerator {
        Enumerator::Values(self.snapshot())
    }

    fn enumerator_len(self: &Arc<Self>) -> Option<usize> {
        Some(self.lock().len())
    }

    fn render(self: &Arc<Self>, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Python's `str(list)` (the repr of its items), also for `~` and other implicit conversions.
        let mut out = String::new();
        py_repr(&Value::from_dyn_object(self.clone()), &mut out);
        f.write_str(&out)
    }

    fn call_method(
        self: &Arc<Self>,
        _state: &mut State<'_, '_>,
        method: &str,
        args: &[Value],
    ) -> Result<Value, Error> {
        match method {
            "append" => {
                let (item,): (Value,) = from_args(args)?;
                self.check_growth(1, std::slice::from_ref(&item))?;
                self.lock().push(item);
                Ok(Value::from(()))
            }
            "extend" => {
                let (other,): (Value,) = from_args(args)?;
                // Not one expression: `other` may be this list, and its length takes the lock too.
                let added = other.len().unwrap_or(0);
                let len = self.lock().len();
                budget::check_items(len.saturating_add(added), "`list.extend`")?;
                let new: Vec<Value> = other.try_iter()?.collect();
                self.check_growth(new.len(), &new)?;
                self.lock().extend(new);
                Ok(Value::from(()))
            }
            "pop" => {
                let (index,): (Option<Value>,) = from_args(args)?;
                let mut items = self.lock();
                if items.is_empty() {
                    return Err(Error::new(
                        ErrorKind::InvalidOperation,
                        "pop from empty list",
                    ));
                }
                let index = match index {
                    Some(index) => index_arg(&index, items.len())?,
                    None => items.len() - 1,
                };
                if index >= items.len() {
                    return Err(Error::new(
                        ErrorKind::InvalidOperation,
                        "pop index out of range",
                    ));
                }
                Ok(items.remove(index))
            }
            "insert" => {
                let (index, item): (Value, Value) = from_args(args)?;
                let items = self.lock();
                let len = items.len();
                // Python clamps insert positions instead of failing.
                let index = index_arg(&index, len).unwrap_or(0).min(len);
                drop(items);
                self.check_growth(1, std::slice::from_ref(&item))?;
                let mut items = self.lock();
                let index = index.min(items.len());
                items.insert(index, item);
                Ok(Value::from(()))
            }
            "remove" => {
                let (item,): (Value,) = from_args(args)?;
                // Compared on a snapshot: comparing an item may read this list again (and lock it).
                let found = self.snapshot().iter().position(|x| *x == item);
                let mut items = self.lock();
                match found.filter(|&pos| pos < items.len()) {
                    Some(pos) => {
                        items.remove(pos);
                        Ok(Value::from(()))
                    }
                    None => Err(Error::new(
                        ErrorKind::InvalidOperation,
                        "list.remove(x): x not in list",
                    )),
                }
            }
            "clear" => {
                let () = from_args(args)?;
                self.lock().clear();
                Ok(Value::from(()))
            }
            "index" => {
                let (item,): (Value,) = from_args(args)?;
                match self.snapshot().iter().position(|x| *x == item) {
                    Some(pos) => Ok(Value::from(pos)),
                    None => Err(Error::new(ErrorKind::InvalidOperation, "x not in list")),
                }
            }
            "count" => {
                let (item,): (Value,) = from_args(args)?;
                Ok(Value::from(
                    self.snapshot().iter().filter(|x| **x == item).count(),
                ))
            }
            "copy" => {
                let () = from_args(args)?;
                Ok(PyList::new_value(self.snapshot()))
            }
            "reverse" => {
                let () = from_args(args)?;
                self.lock().reverse();
                Ok(Value::from(()))
            }
            _ => Err(Error::from(ErrorKind::UnknownMethod)),
        }
    }
}

/// A dict that keeps its keys in insertion order (a linear list of pairs: template dicts are small).
#[derive(Debug, Default)]
pub(crate) struct PyDict {
    entries: Vec<(Value, Value)>,
}

impl PyDict {
    /// A dict value holding `entries` in this order (a later duplicate key replaces the earlier value
    /// in place, as in Python).
    pub(crate) fn new_value(entries: Vec<(Value, Value)>) -> Value {
        let mut dict = PyDict {
            entries: Vec::with_capacity(entries.len()),
        };
        for (key, value) in entries {
            dict.insert(key, value);
        }
        Value::from_object(dict)
    }

    fn insert(&mut self, key: Value, value: Value) {
        match self.entries.iter_mut().find(|(k, _)| *k == key) {
            Some(slot) => slot.1 = value,
            None => self.entries.push((key, value)),
        }
    }

    /// The entries in order.
    pub(crate) fn entries(&self) -> &[(Value, Value)] {
        &self.entries
    }
}

impl Object for PyDict {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Map
    }

    fn get_value(self: &Arc<Self>, key: &Value) -> Option<Value> {
        self.entries
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.clone())
    }

    /// Attribute access (`d.name`). Jinja tries `getattr` before the key, so on a Python dict `d.items`,
    /// `d.keys`, `d.get`, … are the bound methods even when the dict has such a key (Command-R's
    /// `json_spec.items` on a JSON schema gets the method, not the `items` schema), and the sandbox makes
    /// the mutating ones undefined. Subscripts (`d['items']`) go through `get_value` and see the key.
    fn get_value_by_str(self: &Arc<Self>, key: &str) -> Option<Value> {
        if let Some(name) = DICT_METHODS.iter().find(|m| **m == key) {
            return Some(Value::from_object(PyMethod {
                name,
                receiver: Value::from_dyn_object(self.clone()),
            }));
        }
        if UNSAFE_DICT_METHODS.contains(&key) {
            return None;
        }
        self.entries
            .iter()
            .find(|(k, _)| k.as_str() == Some(key))
            .map(|(_, v)| v.clone())
    }

    fn enumerate(self: &Arc<Self>) -> Enumerator {
        self.mapped_key_value_enumerator(|this| Box::new(this.entries.iter().cloned()))
    }

    fn enumerator_len(self: &Arc<Self>) -> Option<usize> {
        Some(self.entries.len())
    }

    fn render(self: &Arc<Self>, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::new();
        py_repr(&Value::from_dyn_object(self.clone()), &mut out);
        f.write_str(&out)
    }
}

/// `dict` methods that are not sandboxed: their names, as attributes, shadow keys.
pub(crate) const DICT_METHODS: [&str; 6] = ["copy", "fromkeys", "get", "items", "keys", "values"];
/// `dict` methods that mutate: jinja2's immutable sandbox turns them into undefined (not the key).
const UNSAFE_DICT_METHODS: [&str; 5] = ["clear", "pop", "popitem", "setdefault", "update"];

/// A bound `dict` method, as `d.items` (without a call) is in Python: defined, truthy, not iterable,
/// without attributes, and callable.
#[derive(Debug)]
struct PyMethod {
    name: &'static str,
    receiver: Value,
}

impl Object for PyMethod {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Plain
    }

    fn get_value(self: &Arc<Self>, _key: &Value) -> Option<Value> {
        None
    }

    fn call(self: &Arc<Self>, state: &mut State<'_, '_>, args: &[Value]) -> Result<Value, Error> {
        // `f = d.items` then `f()`: the same as `d.items()`.
        self.receiver.call_method(state, self.name, args)
    }

    fn render(self: &Arc<Self>, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Python adds the object's address; there is no stable equivalent.
        write!(f, "<built-in method {} of dict object>", self.name)
    }
}

/// The entries of any map-like value, in its iteration order.
pub(crate) fn map_entries(value: &Value) -> Option<Vec<(Value, Value)>> {
    if let Some(dict) = value.downcast_object_ref::<PyDict>() {
        return Some(dict.entries().to_vec());
    }
    if value.kind() != ValueKind::Map {
        return None;
    }
    let object = value.as_object()?;
    Some(object.try_iter_pairs()?.collect())
}

/// A template value from a `serde_json` value, keeping the map's iteration order (sorted, unless
/// `serde_json`'s `preserve_order` feature is enabled somewhere in the build).
pub(crate) fn from_json(value: &serde_json::Value) -> Value {
    match value {
        serde_json::Value::Null => Value::from(()),
        serde_json::Value::Bool(b) => Value::from(*b),
        serde_json::Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                Value::from(i)
            } else if let Some(u) = n.as_u64() {
                Value::from(u)
            } else {
                Value::from(n.as_f64().unwrap_or(f64::NAN))
            }
        }
        serde_json::Value::String(s) => Value::from(s.as_str()),
        serde_json::Value::Array(items) => PyList::new_value(items.iter().map(from_json).collect()),
        serde_json::Value::Object(map) => PyDict::new_value(
            map.iter()
                .map(|(k, v)| (Value::from(k.as_str()), from_json(v)))
                .collect(),
        ),
    }
}

/// A template value from JSON text, keeping every object's keys in document order.
pub(crate) fn from_json_text(text: &str) -> Result<Value, serde_json::Error> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let value = OrderedSeed.deserialize(&mut deserializer)?;
    deserializer.end()?;
    Ok(value)
}

/// Deserializes JSON into [`PyList`] / [`PyDict`] values in document order.
struct OrderedSeed;

impl<'de> DeserializeSeed<'de> for OrderedSeed {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(OrderedVisitor)
    }
}

struct OrderedVisitor;

impl<'de> Visitor<'de> for OrderedVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::from(()))
    }

    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::from(()))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(item) = seq.next_element_seed(OrderedSeed)? {
            items.push(item);
        }
        Ok(PyList::new_value(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut entries = Vec::with_capacity(map.size_hint().unwrap_or(0).min(4096));
        while let Some(key) = map.next_key::<String>()? {
            let value = map.next_value_seed(OrderedSeed)?;
            entries.push((Value::from(key), value));
        }
        Ok(PyDict::new_value(entries))
    }
}

/// `namespace(...)`: minijinja's namespace, with list values turned into mutable [`PyList`]s so that
/// `ns.items.append(x)` works as in Python (the Kimi-K2 templates rely on it).
pub(crate) fn namespace(
    args: minijinja::value::Rest<minijinja::value::ValueOrKwargs>,
) -> Result<Value, Error> {
    let mut entries: Vec<(Value, Value)> = Vec::new();
    for arg in args.into_values() {
        match map_entries(&arg) {
            Some(pairs) => entries.extend(pairs),
            None => {
                return Err(Error::new(
                    ErrorKind::InvalidOperation,
                    format!(
                        "namespace() expects a dict or keyword arguments, got {}",
                        arg.kind()
                    ),
                ));
            }
        }
    }
    if entries.is_empty() {
        return minijinja::functions::namespace(None);
    }
    let converted: Vec<(Value, Value)> = entries
        .into_iter()
        .map(|(key, value)| (key, to_mutable_list(value)))
        .collect();
    minijinja::functions::namespace(Some(Value::from_pairs(converted).into()))
}

/// A plain minijinja list as a [`PyList`]; anything else unchanged.
fn to_mutable_list(value: Value) -> Value {
    if value.kind() == ValueKind::Seq
        && value.downcast_object_ref::<PyList>().is_none()
        && let Ok(iter) = value.try_iter()
    {
        return PyList::new_value(iter.collect());
    }
    value
}
