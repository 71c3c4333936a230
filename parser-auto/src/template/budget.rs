//! The render budget: every chat-template render runs under [`TemplateLimits`].
//!
//! A template comes from a model directory, so it is code written by whoever published the model.
//! minijinja bounds instructions (fuel) and recursion, but not what one instruction may build: `a ~ a` in
//! a loop doubles a string with a handful of instructions, `'x' * N`, `|center(N)` or `|batch(N, x)`
//! allocate what `N` says, and text captured by a macro or a `{% set %}` block never reaches the output.
//! So a template is compiled here, not by the environment, and its instructions are rewritten before it
//! runs:
//!
//! - `~`, `+` and `*` become calls of guard functions ([`CONCAT`], [`ADD`], [`MUL`]) that check the size
//!   of what they would build *before* building it, with minijinja's semantics otherwise;
//! - every instruction that produces a value a template can keep (a filter, a method, a function or macro
//!   call, a slice, a list or dict literal) is followed by a call of [`CHARGE`], which counts the value
//!   against [`TemplateLimits::work_bytes`], checks its size and how deeply it nests;
//! - raw template text is counted as it is written ([`CHARGE_TEXT`]), so output captured by macros and
//!   blocks is bounded too; values are counted by the formatter as they are written;
//! - a namespace attribute is checked before it is set (lists that nest themselves would otherwise make
//!   printing and dropping them recurse without end).
//!
//! Rewriting is 1:1 where a guard takes the instruction's place; where checks go around an
//! instruction, the instruction's slot becomes a jump to a small block appended after the template's
//! end, which runs the checks and the instruction and jumps back ("trampolines"), so no jump target
//! moves. Constant folding happens while compiling, before any of this, so constant expressions are
//! sized from the syntax tree first ([`check_constants`]).
//!
//! The counters of a render live in a thread-local [`Meter`], installed for the duration of one render;
//! guard functions and the value helpers of this module read it.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fmt;

use minijinja::machinery::{self, CodeGenerator, Instruction, Instructions, ast};
use minijinja::syntax::SyntaxConfig;
use minijinja::value::{Value, ValueKind};
use minijinja::{AutoEscape, Environment, Error, ErrorKind, State};
use parser_core::TemplateLimits;

/// Guard of `a ~ b`.
pub(super) const CONCAT: &str = "__llm_parse_concat";
/// Guard of `a + b`.
pub(super) const ADD: &str = "__llm_parse_add";
/// Guard of `a * b`.
pub(super) const MUL: &str = "__llm_parse_mul";
/// Counts and checks the value on top of the stack, and leaves it there.
pub(super) const CHARGE: &str = "__llm_parse_charge";
/// Counts raw template text just written (its length is on top of the stack).
pub(super) const CHARGE_TEXT: &str = "__llm_parse_charge_text";
/// Checks a namespace assignment (the value and the namespace are on the stack).
pub(super) const ASSIGN: &str = "__llm_parse_assign";
/// Prepares a slice's operands (the value, start, stop and step are on the stack).
pub(super) const SLICE: &str = "__llm_parse_slice";

/// Bytes counted for one list or dict item against `work_bytes`.
const ITEM_BYTES: u64 = 8;

/// A compiled template: its source and the rewritten instructions that borrow it.
pub(super) struct Program<'a> {
    instructions: Instructions<'a>,
    blocks: BTreeMap<&'a str, Instructions<'a>>,
}

/// The name and text a [`Program`] borrows.
pub(super) struct Source {
    name: String,
    text: String,
}

self_cell::self_cell!(
    /// A template's source with its compiled, budget-rewritten program.
    pub(super) struct Compiled {
        owner: Source,
        #[not_covariant]
        dependent: Program,
    }
);

impl Compiled {
    /// Compiles `text` with `syntax`: parse, size the constant expressions, generate the instructions
    /// and rewrite them for the budget.
    pub(super) fn compile(
        name: &str,
        text: String,
        syntax: SyntaxConfig,
        limits: &TemplateLimits,
    ) -> Result<Compiled, Error> {
        let source = Source {
            name: name.to_string(),
            text,
        };
        Compiled::try_new(source, |source| {
            let tree = machinery::parse(&source.text, &source.name, syntax)?;
            check_constants(&tree, limits)?;
            let mut generator = CodeGenerator::new(&source.name, &source.text);
            generator.compile_stmt(&tree);
            let (mut instructions, mut blocks) = generator.finish();
            rewrite(&mut instructions);
            for block in blocks.values_mut() {
                rewrite(block);
            }
            Ok(Program {
                instructions,
                blocks,
            })
        })
    }
}

impl fmt::Debug for Compiled {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Compiled")
            .field("name", &self.borrow_owner().name)
            .finish()
    }
}

/// What one render used.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RenderStats {
    /// Instructions executed (minijinja fuel consumed).
    pub fuel: u64,
    /// Bytes of the rendered text.
    pub output_bytes: usize,
    /// Bytes counted against [`TemplateLimits::work_bytes`].
    pub work_bytes: u64,
    /// Bytes written, counting text captured by macros and blocks each time it is written.
    pub emitted_bytes: u64,
    /// The largest string or list (in bytes, 8 an item) a guard checked.
    pub largest_value: usize,
}

/// A limit that ran out: which, and what was being done.
#[derive(Clone, Debug)]
pub(super) struct Trip {
    pub(super) limit: &'static str,
    pub(super) detail: String,
}

/// The counters of the render running on this thread.
struct Meter {
    limits: TemplateLimits,
    /// Fuel past which guards stop the render (the template analysis shares one budget between its
    /// renders); the environment's own fuel is the hard limit.
    fuel_cap: u64,
    stats: RenderStats,
    tripped: Option<Trip>,
}

thread_local! {
    static METER: RefCell<Option<Meter>> = const { RefCell::new(None) };
}

/// Runs `f` on the current meter (a fresh one with default limits outside a render, so that helpers
/// used by tests behave the same).
fn with_meter<R>(f: impl FnOnce(&mut Meter) -> R) -> R {
    METER.with(|cell| {
        let mut slot = cell.borrow_mut();
        let meter = slot.get_or_insert_with(|| Meter::new(TemplateLimits::default(), u64::MAX));
        f(meter)
    })
}

impl Meter {
    fn new(limits: TemplateLimits, fuel_cap: u64) -> Meter {
        Meter {
            limits,
            fuel_cap,
            stats: RenderStats::default(),
            tripped: None,
        }
    }

    fn trip(&mut self, limit: &'static str, detail: String) -> Error {
        let error = Error::new(ErrorKind::InvalidOperation, detail.clone());
        self.tripped.get_or_insert(Trip { limit, detail });
        error
    }

    fn charge(&mut self, bytes: u64) -> Result<(), Error> {
        self.stats.work_bytes = self.stats.work_bytes.saturating_add(bytes);
        if self.stats.work_bytes > self.limits.work_bytes {
            let (used, limit) = (self.stats.work_bytes, self.limits.work_bytes);
            return Err(self.trip(
                "work_bytes",
                format!("the template built or wrote {used} bytes, over the limit of {limit}"),
            ));
        }
        Ok(())
    }

    fn check_string(&mut self, len: usize, what: &str) -> Result<(), Error> {
        self.stats.largest_value = self.stats.largest_value.max(len);
        if len > self.limits.value_bytes {
            let limit = self.limits.value_bytes;
            return Err(self.trip(
                "value_bytes",
                format!("{what} would build a string of {len} bytes, over the limit of {limit}"),
            ));
        }
        Ok(())
    }

    fn check_items(&mut self, items: usize, what: &str) -> Result<(), Error> {
        self.stats.largest_value = self
            .stats
            .largest_value
            .max(items.saturating_mul(ITEM_BYTES as usize));
        if items > self.limits.list_items {
            let limit = self.limits.list_items;
            return Err(self.trip(
                "list_items",
                format!("{what} would build a list of {items} items, over the limit of {limit}"),
            ));
        }
        Ok(())
    }

    fn emit(&mut self, bytes: usize) -> Result<(), Error> {
        self.stats.emitted_bytes = self.stats.emitted_bytes.saturating_add(bytes as u64);
        if self.stats.emitted_bytes > self.limits.output_bytes as u64 {
            let (used, limit) = (self.stats.emitted_bytes, self.limits.output_bytes);
            return Err(self.trip(
                "output_bytes",
                format!(
                    "the template wrote {used} bytes (output and captured text), over the limit of {limit}"
                ),
            ));
        }
        self.charge(bytes as u64)
    }

    fn check_fuel(&mut self, state: &State) -> Result<(), Error> {
        if let Some((consumed, _)) = state.fuel_levels() {
            self.stats.fuel = self.stats.fuel.max(consumed);
            if consumed > self.fuel_cap {
                let cap = self.fuel_cap;
                return Err(self.trip(
                    "fuel",
                    format!("the template ran {consumed} instructions, over the budget of {cap}"),
                ));
            }
        }
        Ok(())
    }
}

/// Checks that a string of `len` bytes may be built (`what` names the operation in the error).
pub(super) fn check_string(len: usize, what: &str) -> Result<(), Error> {
    with_meter(|m| m.check_string(len, what))
}

/// Checks that a list of `items` items may be built.
pub(super) fn check_items(items: usize, what: &str) -> Result<(), Error> {
    with_meter(|m| m.check_items(items, what))
}

/// The largest string a template may build now (for writers that stop early).
pub(super) fn value_bytes() -> usize {
    with_meter(|m| m.limits.value_bytes)
}

/// Counts `bytes` written by the formatter.
pub(super) fn emit(bytes: usize) -> Result<(), Error> {
    with_meter(|m| m.emit(bytes))
}

/// Counts `items` list items built.
pub(super) fn charge_items(items: usize) -> Result<(), Error> {
    with_meter(|m| m.charge((items as u64).saturating_mul(ITEM_BYTES)))
}

/// The error of a value that nests too deeply (or contains itself).
pub(super) fn nesting_error() -> Error {
    with_meter(|m| {
        m.trip(
            "nesting",
            format!(
                "a value nests more than {} lists or dicts deep (or contains itself)",
                TemplateLimits::MAX_NESTING
            ),
        )
    })
}

/// Checks that `value` nests no deeper than [`TemplateLimits::MAX_NESTING`] (which also catches a list
/// that contains itself).
pub(super) fn check_nesting(value: &Value) -> Result<(), Error> {
    if nests_deeper_than(value, TemplateLimits::MAX_NESTING) {
        return Err(nesting_error());
    }
    Ok(())
}

/// Checks that putting `value` into `container` (a list append, a namespace attribute) does not make a
/// cycle: a value that contains its container would make printing, comparing and dropping it recurse
/// without end.
pub(super) fn check_no_cycle(container: &Value, value: &Value) -> Result<(), Error> {
    if contains_object(value, container, TemplateLimits::MAX_NESTING) {
        return Err(nesting_error());
    }
    check_nesting(value)
}

/// Whether two values are the same object. minijinja's `sameas` compares vtables too, and a type's
/// vtable can differ between codegen units (our lists are wrapped into values in more than one place),
/// so our own list and dict types are compared by address.
fn same_object(a: &Value, b: &Value) -> bool {
    use super::values::{PyDict, PyList};
    if let (Some(x), Some(y)) = (
        a.downcast_object_ref::<PyList>(),
        b.downcast_object_ref::<PyList>(),
    ) {
        return std::ptr::eq(x, y);
    }
    if let (Some(x), Some(y)) = (
        a.downcast_object_ref::<PyDict>(),
        b.downcast_object_ref::<PyDict>(),
    ) {
        return std::ptr::eq(x, y);
    }
    a.as_object().is_some() && b.as_object().is_some() && minijinja::tests::is_sameas(a, b)
}

/// Whether `haystack` is `needle` or holds it, within `levels` levels (deeper counts as holding it).
fn contains_object(haystack: &Value, needle: &Value, levels: usize) -> bool {
    if same_object(haystack, needle) {
        return true;
    }
    if !matches!(haystack.kind(), ValueKind::Seq | ValueKind::Map) {
        return false;
    }
    if levels == 0 {
        return true;
    }
    let Ok(items) = haystack.try_iter() else {
        return false;
    };
    let is_map = haystack.kind() == ValueKind::Map;
    for item in items {
        let child = if is_map {
            haystack.get_item(&item).unwrap_or_default()
        } else {
            item
        };
        if contains_object(&child, needle, levels - 1) {
            return true;
        }
    }
    false
}

/// The guard of `{% set ns.attr = value %}`: counts and checks the value, refuses a cycle, and gives
/// both back (namespace first) for the `SetAttr` that follows.
fn assign(state: &State, value: Value, namespace: Value) -> Result<Value, Error> {
    let value = charge(state, value)?;
    check_no_cycle(&namespace, &value)?;
    Ok(Value::from(vec![namespace, value]))
}

/// The operands of a slice, back in the order `UnpackList` restores them (step first): a backward step
/// over an empty value becomes a forward one (the result is empty either way), and a lazy sequence
/// sliced backwards is collected first (minijinja would index it by a length it may not have).
fn slice(value: Value, start: Value, stop: Value, step: Value) -> Result<Value, Error> {
    let backwards = step.as_i64().is_some_and(|s| s < 0);
    let mut value = value;
    let mut step = step;
    if backwards {
        if value.kind() == ValueKind::Iterable {
            let limit = with_meter(|m| m.limits.list_items);
            let items: Vec<Value> = value.try_iter()?.take(limit.saturating_add(1)).collect();
            check_items(items.len(), "a slice")?;
            value = Value::from(items);
        }
        let empty = match value.as_str() {
            Some(s) => s.is_empty(),
            None => value.len() == Some(0),
        };
        if empty {
            step = Value::from(1);
        }
    }
    Ok(Value::from(vec![step, stop, start, value]))
}

fn nests_deeper_than(value: &Value, levels: usize) -> bool {
    match value.kind() {
        ValueKind::Seq | ValueKind::Map => {
            if levels == 0 {
                return true;
            }
            let Ok(items) = value.try_iter() else {
                return false;
            };
            let is_map = value.kind() == ValueKind::Map;
            for item in items {
                let child = if is_map {
                    value.get_item(&item).unwrap_or_default()
                } else {
                    item
                };
                if nests_deeper_than(&child, levels - 1) {
                    return true;
                }
            }
            false
        }
        _ => false,
    }
}

/// Size of a value for the budget: bytes of a string, 8 bytes an item of a list or dict.
fn value_size(value: &Value) -> (u64, Option<usize>, Option<usize>) {
    match value.kind() {
        ValueKind::String => {
            let len = value.as_str().map_or(0, str::len);
            (len as u64, Some(len), None)
        }
        ValueKind::Bytes => {
            let len = value.as_bytes().map_or(0, <[u8]>::len);
            (len as u64, Some(len), None)
        }
        ValueKind::Seq | ValueKind::Map => {
            let items = value.len().unwrap_or(0);
            ((items as u64).saturating_mul(ITEM_BYTES), None, Some(items))
        }
        // A lazy sequence (`[x] * n`, `a + b` of lists) says how long it is without being built.
        ValueKind::Iterable => {
            let items = value.len().unwrap_or(0);
            (0, None, Some(items))
        }
        _ => (0, None, None),
    }
}

/// The guard after a value-producing instruction: counts the value, checks its size and nesting.
fn charge(state: &State, value: Value) -> Result<Value, Error> {
    let (bytes, string, items) = value_size(&value);
    with_meter(|m| {
        m.check_fuel(state)?;
        if let Some(len) = string {
            m.check_string(len, "an expression")?;
        }
        if let Some(items) = items {
            m.check_items(items, "an expression")?;
        }
        m.charge(bytes)
    })?;
    if matches!(value.kind(), ValueKind::Seq | ValueKind::Map) {
        check_nesting(&value)?;
    }
    Ok(value)
}

/// Counts raw template text just written.
fn charge_text(state: &State, len: usize) -> Result<Value, Error> {
    with_meter(|m| {
        m.check_fuel(state)?;
        m.emit(len)
    })?;
    Ok(Value::UNDEFINED)
}

/// A `fmt::Write` into a string that refuses to grow past `cap` bytes.
pub(super) struct CappedWriter<'a> {
    pub(super) out: &'a mut String,
    pub(super) cap: usize,
    pub(super) overflowed: bool,
}

impl fmt::Write for CappedWriter<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        if self.out.len() + s.len() > self.cap {
            self.overflowed = true;
            return Err(fmt::Error);
        }
        self.out.push_str(s);
        Ok(())
    }
}

/// `value` formatted by `write` into a string no longer than the budget's string size (`what` names
/// the operation in the error).
pub(super) fn format_capped(
    what: &str,
    write: impl FnOnce(&mut CappedWriter<'_>) -> fmt::Result,
) -> Result<String, Error> {
    let mut text = String::new();
    let mut writer = CappedWriter {
        out: &mut text,
        cap: value_bytes(),
        overflowed: false,
    };
    if write(&mut writer).is_err() && writer.overflowed {
        check_string(usize::MAX, what)?;
    }
    Ok(text)
}

/// Writes `value` as minijinja's `~` does (its `Display`), refusing to exceed `cap`; `Err` means the
/// cap was reached.
fn display_capped(value: &Value, out: &mut String, cap: usize) -> Result<(), ()> {
    use fmt::Write as _;
    // Strings are the common case and need no formatting machinery.
    if let Some(s) = value.as_str() {
        if out.len() + s.len() > cap {
            return Err(());
        }
        out.push_str(s);
        return Ok(());
    }
    let mut writer = CappedWriter {
        out,
        cap,
        overflowed: false,
    };
    match write!(writer, "{value}") {
        Ok(()) => Ok(()),
        Err(_) if writer.overflowed => Err(()),
        // A value whose `Display` fails: minijinja would have panicked in `format!`; refuse it.
        Err(_) => Err(()),
    }
}

/// `a ~ b`: both as text, concatenated.
fn concat(state: &State, a: Value, b: Value) -> Result<Value, Error> {
    let cap = value_bytes();
    let mut out = String::new();
    if display_capped(&a, &mut out, cap).is_err() || display_capped(&b, &mut out, cap).is_err() {
        return Err(with_meter(|m| {
            m.trip(
                "value_bytes",
                format!("`~` would build a string over the limit of {cap} bytes"),
            )
        }));
    }
    with_meter(|m| {
        m.check_fuel(state)?;
        m.stats.largest_value = m.stats.largest_value.max(out.len());
        m.charge(out.len() as u64)
    })?;
    Ok(Value::from(out))
}

/// `a + b` with minijinja's semantics: numbers add, strings concatenate, lists and tuples chain.
fn add(state: &State, a: Value, b: Value) -> Result<Value, Error> {
    if let (Some(x), Some(y)) = (a.as_str(), b.as_str()) {
        let len = x.len() + y.len();
        with_meter(|m| {
            m.check_fuel(state)?;
            m.check_string(len, "`+`")?;
            m.charge(len as u64)
        })?;
        let mut out = String::with_capacity(len);
        out.push_str(x);
        out.push_str(y);
        return Ok(Value::from(out));
    }
    if is_sequence(&a) && is_sequence(&b) {
        if a.is_tuple() != b.is_tuple() {
            return Err(impossible("+", &a, &b));
        }
        let items = a.len().unwrap_or(0) + b.len().unwrap_or(0);
        with_meter(|m| {
            m.check_fuel(state)?;
            m.check_items(items, "`+`")?;
            m.charge((items as u64).saturating_mul(ITEM_BYTES))
        })?;
        let mut joined = Vec::with_capacity(items);
        joined.extend(a.try_iter()?);
        joined.extend(b.try_iter()?);
        return Ok(if a.is_tuple() {
            Value::from(minijinja::value::Tuple::from(joined))
        } else {
            Value::from(joined)
        });
    }
    arithmetic("+", &a, &b, i128::checked_add, |x, y| x + y)
}

/// `a * b` with minijinja's semantics: numbers multiply, a string or a list repeats.
fn mul(state: &State, a: Value, b: Value) -> Result<Value, Error> {
    if let Some((s, n)) = a
        .as_str()
        .map(|s| (s, &b))
        .or_else(|| b.as_str().map(|s| (s, &a)))
    {
        let n = n.as_usize().ok_or_else(|| {
            Error::new(
                ErrorKind::InvalidOperation,
                "strings can only be multiplied with integers",
            )
        })?;
        let len = s.len().saturating_mul(n);
        with_meter(|m| {
            m.check_fuel(state)?;
            m.check_string(len, "`*`")?;
            m.charge(len as u64)
        })?;
        return Ok(Value::from(s.repeat(n)));
    }
    if let Some((seq, n)) = [(&a, &b), (&b, &a)]
        .into_iter()
        .find(|(seq, _)| is_sequence(seq))
    {
        let n = n.as_usize().ok_or_else(|| {
            Error::new(
                ErrorKind::InvalidOperation,
                "sequences and iterables can only be multiplied with integers",
            )
        })?;
        let len = seq.len().ok_or_else(|| {
            Error::new(
                ErrorKind::InvalidOperation,
                "cannot repeat unsized iterables",
            )
        })?;
        let items = len.saturating_mul(n);
        with_meter(|m| {
            m.check_fuel(state)?;
            m.check_items(items, "`*`")?;
            m.charge((items as u64).saturating_mul(ITEM_BYTES))
        })?;
        let once: Vec<Value> = seq.try_iter()?.collect();
        let mut repeated = Vec::with_capacity(items);
        for _ in 0..n {
            repeated.extend(once.iter().cloned());
        }
        return Ok(if seq.is_tuple() {
            Value::from(minijinja::value::Tuple::from(repeated))
        } else {
            Value::from(repeated)
        });
    }
    arithmetic("*", &a, &b, i128::checked_mul, |x, y| x * y)
}

fn is_sequence(value: &Value) -> bool {
    matches!(value.kind(), ValueKind::Seq | ValueKind::Iterable)
}

/// Integer arithmetic in `i128` (an overflow fails, as in minijinja), floats when either side is one.
fn arithmetic(
    op: &str,
    a: &Value,
    b: &Value,
    int_op: fn(i128, i128) -> Option<i128>,
    float_op: fn(f64, f64) -> f64,
) -> Result<Value, Error> {
    let numeric = |v: &Value| matches!(v.kind(), ValueKind::Number | ValueKind::Bool);
    if !numeric(a) || !numeric(b) {
        return Err(impossible(op, a, b));
    }
    let is_float = |v: &Value| v.kind() == ValueKind::Number && !v.is_integer();
    if is_float(a) || is_float(b) {
        let (Ok(x), Ok(y)) = (f64::try_from(a.clone()), f64::try_from(b.clone())) else {
            return Err(impossible(op, a, b));
        };
        return Ok(Value::from(float_op(x, y)));
    }
    let (Ok(x), Ok(y)) = (i128::try_from(a.clone()), i128::try_from(b.clone())) else {
        return Err(impossible(op, a, b));
    };
    match int_op(x, y) {
        Some(n) => Ok(match i64::try_from(n) {
            Ok(small) => Value::from(small),
            Err(_) => Value::from(n),
        }),
        None => Err(Error::new(
            ErrorKind::InvalidOperation,
            format!("unable to calculate {a} {op} {b}"),
        )),
    }
}

fn impossible(op: &str, a: &Value, b: &Value) -> Error {
    Error::new(
        ErrorKind::InvalidOperation,
        format!(
            "tried to use {op} operator on unsupported types {} and {}",
            a.kind(),
            b.kind()
        ),
    )
}

/// Adds the guard functions to an environment.
pub(super) fn register(env: &mut Environment<'static>) {
    env.add_function(CONCAT, concat);
    env.add_function(ADD, add);
    env.add_function(MUL, mul);
    env.add_function(CHARGE, charge);
    env.add_function(CHARGE_TEXT, charge_text);
    env.add_function(ASSIGN, assign);
    env.add_function(SLICE, slice);
}

/// Where a rewritten instruction goes.
enum Rewrite<'a> {
    /// Takes the instruction's place.
    Replace(Instruction<'a>),
    /// Runs in a trampoline instead of the instruction.
    Around(Vec<Instruction<'a>>),
}

/// Rewrites one instruction list for the budget (see the module docs).
fn rewrite(instructions: &mut Instructions<'_>) {
    let mut len = 0u32;
    while instructions.get(len).is_some() {
        len += 1;
    }
    let mut trampolines = Vec::new();
    for pc in 0..len {
        let Some(instr) = instructions.get(pc) else {
            break;
        };
        let guarded = match instr {
            Instruction::StringConcat => {
                Rewrite::Replace(Instruction::CallFunction(CONCAT, Some(2)))
            }
            Instruction::Add => Rewrite::Replace(Instruction::CallFunction(ADD, Some(2))),
            Instruction::Mul => Rewrite::Replace(Instruction::CallFunction(MUL, Some(2))),
            Instruction::EmitRaw(text) => Rewrite::Around(vec![
                Instruction::EmitRaw(text),
                Instruction::LoadConst(Value::from(text.len())),
                Instruction::CallFunction(CHARGE_TEXT, Some(1)),
                Instruction::DiscardTop,
            ]),
            Instruction::CallFunction(name, _) if is_guard(name) => continue,
            // minijinja indexes an empty sequence when it slices it backwards (`[][::-1]` panics):
            // the guard hands it a forward step then, which gives the same empty result.
            Instruction::Slice => Rewrite::Around(vec![
                Instruction::CallFunction(SLICE, Some(4)),
                Instruction::UnpackList(4),
                Instruction::Slice,
                Instruction::CallFunction(CHARGE, Some(1)),
            ]),
            Instruction::ApplyFilter(..)
            | Instruction::CallMethod(..)
            | Instruction::CallFunction(..)
            | Instruction::CallObject(..)
            | Instruction::BuildList(..)
            | Instruction::BuildMap(..)
            | Instruction::EndCapture => Rewrite::Around(vec![
                instr.clone(),
                Instruction::CallFunction(CHARGE, Some(1)),
            ]),
            // The stack holds the value, then the namespace: the guard takes both and gives them back
            // as a pair that `UnpackList` puts back in place.
            Instruction::SetAttr(..) => Rewrite::Around(vec![
                Instruction::CallFunction(ASSIGN, Some(2)),
                Instruction::UnpackList(2),
                instr.clone(),
            ]),
            _ => continue,
        };
        match guarded {
            Rewrite::Replace(new) => {
                if let Some(slot) = instructions.get_mut(pc) {
                    *slot = new;
                }
            }
            Rewrite::Around(block) => trampolines.push((pc, block)),
        }
    }
    if trampolines.is_empty() {
        return;
    }
    // Control that reaches the old end stops there, before the trampolines.
    instructions.add(Instruction::Jump(u32::MAX));
    for (pc, block) in trampolines {
        let line = instructions
            .get_line(pc)
            .and_then(|l| u16::try_from(l).ok())
            .unwrap_or(0);
        let start = instructions.add_with_line(Instruction::Jump(u32::MAX), line);
        // The placeholder above is the block's first slot; overwrite it with the block's first
        // instruction and append the rest.
        let mut block = block.into_iter();
        if let (Some(first), Some(slot)) = (block.next(), instructions.get_mut(start)) {
            *slot = first;
        }
        for instr in block {
            instructions.add_with_line(instr, line);
        }
        instructions.add_with_line(Instruction::Jump(pc + 1), line);
        if let Some(slot) = instructions.get_mut(pc) {
            *slot = Instruction::Jump(start);
        }
    }
}

fn is_guard(name: &str) -> bool {
    [CONCAT, ADD, MUL, CHARGE, CHARGE_TEXT, ASSIGN, SLICE].contains(&name)
}

/// Renders `compiled` with `ctx` under `limits`; `fuel_cap` lowers the fuel guards enforce (the
/// analysis shares one budget between renders). Returns the text and what it used, or the error and,
/// when a limit ran out, which.
pub(super) fn render(
    env: &Environment<'static>,
    compiled: &Compiled,
    ctx: Value,
    limits: TemplateLimits,
    fuel_cap: u64,
) -> (Result<String, Error>, RenderStats, Option<Trip>) {
    let previous = METER.with(|cell| cell.replace(Some(Meter::new(limits, fuel_cap))));
    let mut text = String::new();
    let result = compiled.with_dependent(|_, program| {
        let mut out = machinery::make_string_output(&mut text);
        machinery::eval(
            env,
            &program.instructions,
            ctx,
            &program.blocks,
            &mut out,
            AutoEscape::None,
        )
        .map(|(_, state)| state.fuel_levels().map_or(0, |(consumed, _)| consumed))
    });
    let meter = METER.with(|cell| cell.replace(previous));
    let (mut stats, mut tripped) = match meter {
        Some(meter) => (meter.stats, meter.tripped),
        None => (RenderStats::default(), None),
    };
    stats.output_bytes = text.len();
    let result = match result {
        Ok(fuel) => {
            stats.fuel = stats.fuel.max(fuel);
            Ok(text)
        }
        Err(err) => {
            if err.kind() == ErrorKind::OutOfFuel {
                stats.fuel = limits.fuel;
                tripped.get_or_insert(Trip {
                    limit: "fuel",
                    detail: format!("the template ran more than {} instructions", limits.fuel),
                });
            } else if tripped.is_none() && is_recursion_error(&err) {
                tripped = Some(Trip {
                    limit: "recursion",
                    detail: format!(
                        "macro calls or recursive loops nested deeper than {}",
                        limits.recursion.min(500)
                    ),
                });
            }
            Err(err)
        }
    };
    (result, stats, tripped)
}

fn is_recursion_error(err: &Error) -> bool {
    let mut source: Option<&dyn std::error::Error> = Some(err);
    while let Some(e) = source {
        if e.to_string().contains("recursion limit exceeded") {
            return true;
        }
        source = e.source();
    }
    false
}

/// Sizes every constant expression the compiler would fold (`'x' * 10**8`, concatenations of such), so
/// that compiling cannot allocate what the budget forbids.
fn check_constants(tree: &ast::Stmt<'_>, limits: &TemplateLimits) -> Result<(), Error> {
    let mut trip = None;
    walk_stmt(tree, &mut |expr| {
        if trip.is_some() || !matches!(expr, ast::Expr::BinOp(_)) {
            return;
        }
        trip = match constant(expr) {
            Some(Constant::Text(len)) if len > limits.value_bytes as u128 => Some(Trip {
                limit: "value_bytes",
                detail: format!(
                    "a constant expression builds a string of {len} bytes, over the limit of {}",
                    limits.value_bytes
                ),
            }),
            Some(Constant::List(items)) if items > limits.list_items as u128 => Some(Trip {
                limit: "list_items",
                detail: format!(
                    "a constant expression builds a list of {items} items, over the limit of {}",
                    limits.list_items
                ),
            }),
            _ => None,
        };
    });
    match trip {
        Some(trip) => {
            let error = Error::new(ErrorKind::InvalidOperation, trip.detail.clone());
            COMPILE_TRIP.with(|cell| *cell.borrow_mut() = Some(trip));
            Err(error)
        }
        None => Ok(()),
    }
}

thread_local! {
    /// The limit a compilation ran into (read once by [`take_compile_trip`]).
    static COMPILE_TRIP: RefCell<Option<Trip>> = const { RefCell::new(None) };
}

/// The limit the last failed compilation on this thread ran into, if that is why it failed.
pub(super) fn take_compile_trip() -> Option<Trip> {
    COMPILE_TRIP.with(|cell| cell.borrow_mut().take())
}

/// What a constant expression folds to, as far as size goes.
#[derive(Clone, Copy, Debug)]
enum Constant {
    /// An integer whose value is known.
    Int(i128),
    /// Some other number, a boolean or none.
    Scalar,
    /// A string of this many bytes.
    Text(u128),
    /// A list of this many items.
    List(u128),
}

fn constant(expr: &ast::Expr<'_>) -> Option<Constant> {
    match expr {
        ast::Expr::Const(c) => Some(match c.value.kind() {
            ValueKind::String => Constant::Text(c.value.as_str().map_or(0, str::len) as u128),
            ValueKind::Seq | ValueKind::Map => Constant::List(c.value.len().unwrap_or(0) as u128),
            _ => match i128::try_from(c.value.clone()) {
                Ok(n) if c.value.is_integer() => Constant::Int(n),
                _ => Constant::Scalar,
            },
        }),
        ast::Expr::List(list) => {
            for item in &list.items {
                constant(item)?;
            }
            Some(Constant::List(list.items.len() as u128))
        }
        ast::Expr::UnaryOp(op) => match constant(&op.expr)? {
            Constant::Int(n) => Some(Constant::Int(n.saturating_neg())),
            other => Some(other),
        },
        ast::Expr::BinOp(op) => {
            let (left, right) = (constant(&op.left)?, constant(&op.right)?);
            Some(match (op.op, left, right) {
                (ast::BinOpKind::Mul, Constant::Text(len), Constant::Int(n))
                | (ast::BinOpKind::Mul, Constant::Int(n), Constant::Text(len)) => {
                    Constant::Text(len.saturating_mul(u128::try_from(n).unwrap_or(0)))
                }
                (ast::BinOpKind::Mul, Constant::List(len), Constant::Int(n))
                | (ast::BinOpKind::Mul, Constant::Int(n), Constant::List(len)) => {
                    Constant::List(len.saturating_mul(u128::try_from(n).unwrap_or(0)))
                }
                (
                    ast::BinOpKind::Add | ast::BinOpKind::Concat,
                    Constant::Text(a),
                    Constant::Text(b),
                ) => Constant::Text(a.saturating_add(b)),
                (ast::BinOpKind::Add, Constant::List(a), Constant::List(b)) => {
                    Constant::List(a.saturating_add(b))
                }
                // `~` prints a list: a few bytes an item at least; count it as the budget counts lists.
                (ast::BinOpKind::Concat, Constant::List(a), other)
                | (ast::BinOpKind::Concat, other, Constant::List(a)) => Constant::Text(
                    a.saturating_mul(ITEM_BYTES as u128)
                        .saturating_add(match other {
                            Constant::Text(n) | Constant::List(n) => n.saturating_mul(8),
                            _ => 64,
                        }),
                ),
                // `~` prints numbers: a few bytes.
                (ast::BinOpKind::Concat, Constant::Text(a), _)
                | (ast::BinOpKind::Concat, _, Constant::Text(a)) => {
                    Constant::Text(a.saturating_add(64))
                }
                (ast::BinOpKind::Concat, _, _) => Constant::Text(128),
                (kind, Constant::Int(a), Constant::Int(b)) => match kind {
                    ast::BinOpKind::Add => Constant::Int(a.saturating_add(b)),
                    ast::BinOpKind::Sub => Constant::Int(a.saturating_sub(b)),
                    ast::BinOpKind::Mul => Constant::Int(a.saturating_mul(b)),
                    ast::BinOpKind::Pow => match u32::try_from(b) {
                        Ok(exp) => a.checked_pow(exp).map_or(Constant::Scalar, Constant::Int),
                        Err(_) => Constant::Scalar,
                    },
                    _ => Constant::Scalar,
                },
                _ => Constant::Scalar,
            })
        }
        _ => None,
    }
}

/// Calls `visit` on every expression of a statement tree.
fn walk_stmt<'a>(stmt: &ast::Stmt<'a>, visit: &mut dyn FnMut(&ast::Expr<'a>)) {
    use ast::Stmt;
    let body = |body: &[Stmt<'a>], visit: &mut dyn FnMut(&ast::Expr<'a>)| {
        for child in body {
            walk_stmt(child, visit);
        }
    };
    match stmt {
        Stmt::Template(t) => body(&t.children, visit),
        Stmt::EmitExpr(e) => walk_expr(&e.expr, visit),
        Stmt::EmitRaw(_) => {}
        Stmt::ForLoop(f) => {
            walk_expr(&f.target, visit);
            walk_expr(&f.iter, visit);
            if let Some(filter) = &f.filter_expr {
                walk_expr(filter, visit);
            }
            body(&f.body, visit);
            body(&f.else_body, visit);
        }
        Stmt::IfCond(c) => {
            walk_expr(&c.expr, visit);
            body(&c.true_body, visit);
            body(&c.false_body, visit);
        }
        Stmt::WithBlock(w) => {
            for (target, value) in &w.assignments {
                walk_expr(target, visit);
                walk_expr(value, visit);
            }
            body(&w.body, visit);
        }
        Stmt::Set(s) => {
            walk_expr(&s.target, visit);
            walk_expr(&s.expr, visit);
        }
        Stmt::SetBlock(s) => {
            walk_expr(&s.target, visit);
            if let Some(filter) = &s.filter {
                walk_expr(filter, visit);
            }
            body(&s.body, visit);
        }
        Stmt::AutoEscape(a) => {
            walk_expr(&a.enabled, visit);
            body(&a.body, visit);
        }
        Stmt::FilterBlock(f) => {
            walk_expr(&f.filter, visit);
            body(&f.body, visit);
        }
        Stmt::Block(b) => body(&b.body, visit),
        Stmt::Import(i) => {
            walk_expr(&i.expr, visit);
            walk_expr(&i.name, visit);
        }
        Stmt::FromImport(i) => {
            walk_expr(&i.expr, visit);
            for (name, alias) in &i.names {
                walk_expr(name, visit);
                if let Some(alias) = alias {
                    walk_expr(alias, visit);
                }
            }
        }
        Stmt::Extends(e) => walk_expr(&e.name, visit),
        Stmt::Include(i) => walk_expr(&i.name, visit),
        Stmt::Macro(m) => {
            for e in m.args.iter().chain(&m.defaults) {
                walk_expr(e, visit);
            }
            body(&m.body, visit);
        }
        Stmt::CallBlock(c) => {
            walk_call(&c.call, visit);
            for e in c.macro_decl.args.iter().chain(&c.macro_decl.defaults) {
                walk_expr(e, visit);
            }
            body(&c.macro_decl.body, visit);
        }
        Stmt::Continue(_) | Stmt::Break(_) => {}
        Stmt::Do(d) => walk_call(&d.call, visit),
    }
}

fn walk_call<'a>(call: &ast::Call<'a>, visit: &mut dyn FnMut(&ast::Expr<'a>)) {
    walk_expr(&call.expr, visit);
    walk_args(&call.args, visit);
}

fn walk_args<'a>(args: &[ast::CallArg<'a>], visit: &mut dyn FnMut(&ast::Expr<'a>)) {
    for arg in args {
        match arg {
            ast::CallArg::Pos(e)
            | ast::CallArg::Kwarg(_, e)
            | ast::CallArg::PosSplat(e)
            | ast::CallArg::KwargSplat(e) => walk_expr(e, visit),
        }
    }
}

fn walk_expr<'a>(expr: &ast::Expr<'a>, visit: &mut dyn FnMut(&ast::Expr<'a>)) {
    use ast::Expr;
    visit(expr);
    match expr {
        Expr::Var(_) | Expr::Const(_) => {}
        Expr::Slice(s) => {
            walk_expr(&s.expr, visit);
            for part in [&s.start, &s.stop, &s.step].into_iter().flatten() {
                walk_expr(part, visit);
            }
        }
        Expr::UnaryOp(u) => walk_expr(&u.expr, visit),
        Expr::BinOp(b) => {
            walk_expr(&b.left, visit);
            walk_expr(&b.right, visit);
        }
        Expr::Compare(c) => {
            walk_expr(&c.expr, visit);
            for op in &c.ops {
                walk_expr(&op.expr, visit);
            }
        }
        Expr::IfExpr(i) => {
            walk_expr(&i.test_expr, visit);
            walk_expr(&i.true_expr, visit);
            if let Some(e) = &i.false_expr {
                walk_expr(e, visit);
            }
        }
        Expr::Filter(f) => {
            if let Some(e) = &f.expr {
                walk_expr(e, visit);
            }
            walk_args(&f.args, visit);
        }
        Expr::Test(t) => {
            walk_expr(&t.expr, visit);
            walk_args(&t.args, visit);
        }
        Expr::GetAttr(g) => walk_expr(&g.expr, visit),
        Expr::GetItem(g) => {
            walk_expr(&g.expr, visit);
            walk_expr(&g.subscript_expr, visit);
        }
        Expr::Call(c) => walk_call(c, visit),
        Expr::List(l) => {
            for e in &l.items {
                walk_expr(e, visit);
            }
        }
        Expr::Tuple(t) => {
            for e in &t.items {
                walk_expr(e, visit);
            }
        }
        Expr::Map(m) => {
            for e in m.keys.iter().chain(&m.values) {
                walk_expr(e, visit);
            }
        }
    }
}
