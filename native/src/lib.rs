//! evalrun's native core (issue 31): the pure functions the per-distinct-call path spends its time
//! in, ported exactly from their Python reference implementations, which stay the fallback
//! (`EVALRUN_CORE=python`) and the definition of what these must return.
//!
//! - `canon_key`: `evalrunner.jsonvalue.canon_key`. The keys are the same Python objects the
//!   reference builds (tuples of small ints, the value itself, sorted pairs), so they hash, compare
//!   and sort against keys the Python core made.
//! - `json_eq`: `evalrunner.jsonvalue.json_eq`.
//! - `scan_json`: the one pass over a line that says whether it may hold an integer orjson cannot
//!   read, and how many `[`, `{` and `(` it holds (`evalrunner.traces.native.decode`).
//! - `Node`: a parameter's compiled rules (`evalrunner.grade.compare.Node`) for
//!   `compare.normalize` and `ToolPlan.key`. The built-in rules whose semantics are exactly
//!   portable run here (`casefold` for ASCII strings, `unordered_list`, `set`, `known_fields`,
//!   `any`); every other rule, and every non-ASCII string `casefold` reads, is the Python function,
//!   called from here. Schema checks (`Validity.breach`) run here for `type`, `const` and `enum`;
//!   a string under a `pattern` or `format` is asked of the Python validator.
//!
//! Everything here holds the GIL; nothing is cached, so the results depend on the arguments only.

use std::cmp::Ordering;

use pyo3::exceptions::{PyException, PyRecursionError, PyValueError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyDict, PyFloat, PyFrozenSet, PyInt, PyList, PyString, PyTuple};

/// Bumped whenever a function here changes what it returns: `evalrunner.core` refuses an
/// extension built from other sources (a stale build) rather than let it disagree.
const CORE_VERSION: u32 = 1;

/// `compare.REJECTED`: the key of a checked value's form when its schema rejects it.
const REJECTED: &str = "\x00evalrun: a value its schema rejects";

/// The deepest value `canon_key` and `json_eq` walk. The Python reference raises RecursionError
/// somewhat before 1,000 levels (the interpreter's limit); values evalrun reads nest at most 64
/// (`jsonvalue.MAX_DEPTH`). Past this, RecursionError too, never a native stack overflow.
const MAX_NEST: usize = 1000;

fn too_deep() -> PyErr {
    PyRecursionError::new_err("maximum recursion depth exceeded in evalrun_native")
}

fn unicode_cmp(a: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>) -> Ordering {
    // Both are exact `str`: CPython's own comparison (code point order, surrogates included),
    // which cannot fail on two strings.
    let c = unsafe { ffi::PyUnicode_Compare(a.as_ptr(), b.as_ptr()) };
    c.cmp(&0)
}

fn tagged<'py>(py: Python<'py>, tag: i64, v: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let t = tag.into_pyobject(py)?.into_any();
    Ok(PyTuple::new(py, [t, v.clone()])?.into_any())
}

fn canon<'py>(py: Python<'py>, v: &Bound<'py, PyAny>, depth: usize) -> PyResult<Bound<'py, PyAny>> {
    if v.is_exact_instance_of::<PyString>() {
        return tagged(py, 3, v);
    }
    if v.is_exact_instance_of::<PyInt>() || v.is_exact_instance_of::<PyFloat>() {
        return tagged(py, 2, v);
    }
    if v.is_exact_instance_of::<PyBool>() {
        return tagged(py, 1, v);
    }
    if v.is_none() {
        let zero = 0i64.into_pyobject(py)?.into_any();
        return Ok(PyTuple::new(py, [zero])?.into_any());
    }
    if depth >= MAX_NEST {
        return Err(too_deep());
    }
    if let Ok(d) = v.cast_exact::<PyDict>() {
        let mut pairs: Vec<(Bound<'py, PyAny>, Bound<'py, PyAny>)> = Vec::with_capacity(d.len());
        let mut all_str = true;
        for (k, x) in d.iter() {
            all_str &= k.is_exact_instance_of::<PyString>();
            let key = canon(py, &x, depth + 1)?;
            pairs.push((k, key));
        }
        let sorted: Bound<'py, PyTuple> = if all_str {
            // A dict's keys are distinct, so pairs sort by their keys alone, as Python's do.
            pairs.sort_by(|a, b| unicode_cmp(&a.0, &b.0));
            let items = pairs
                .into_iter()
                .map(|(k, key)| PyTuple::new(py, [k, key]))
                .collect::<PyResult<Vec<_>>>()?;
            PyTuple::new(py, items)?
        } else {
            // Keys that are not strings (a plugin's output): Python's own sort decides.
            let items = pairs
                .into_iter()
                .map(|(k, key)| PyTuple::new(py, [k, key]))
                .collect::<PyResult<Vec<_>>>()?;
            let list = PyList::new(py, items)?;
            list.sort()?;
            list.to_tuple()
        };
        let five = 5i64.into_pyobject(py)?.into_any();
        return Ok(PyTuple::new(py, [five, sorted.into_any()])?.into_any());
    }
    if let Ok(l) = v.cast_exact::<PyList>() {
        let mut keys = Vec::with_capacity(l.len());
        for x in l.iter() {
            keys.push(canon(py, &x, depth + 1)?);
        }
        let four = 4i64.into_pyobject(py)?.into_any();
        return Ok(PyTuple::new(py, [four, PyTuple::new(py, keys)?.into_any()])?.into_any());
    }
    // Not JSON (a plugin's output): equal by repr, as the reference says.
    let six = 6i64.into_pyobject(py)?.into_any();
    let name = v.get_type().getattr("__name__")?;
    let repr = v.repr()?.into_any();
    Ok(PyTuple::new(py, [six, name, repr])?.into_any())
}

/// `jsonvalue.canon_key`: a hashable, orderable key, equal exactly when the values are JSON-equal.
#[pyfunction]
fn canon_key<'py>(py: Python<'py>, v: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    canon(py, v, 0)
}

fn eq(a: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>, depth: usize) -> PyResult<bool> {
    if let Ok(da) = a.cast_exact::<PyDict>() {
        let Ok(db) = b.cast_exact::<PyDict>() else {
            return Ok(false);
        };
        if da.len() != db.len() {
            return Ok(false);
        }
        if depth >= MAX_NEST {
            return Err(too_deep());
        }
        for (k, x) in da.iter() {
            match db.get_item(&k)? {
                Some(y) => {
                    if !eq(&x, &y, depth + 1)? {
                        return Ok(false);
                    }
                }
                None => return Ok(false),
            }
        }
        return Ok(true);
    }
    if let Ok(la) = a.cast_exact::<PyList>() {
        let Ok(lb) = b.cast_exact::<PyList>() else {
            return Ok(false);
        };
        if la.len() != lb.len() {
            return Ok(false);
        }
        if depth >= MAX_NEST {
            return Err(too_deep());
        }
        for (x, y) in la.iter().zip(lb.iter()) {
            if !eq(&x, &y, depth + 1)? {
                return Ok(false);
            }
        }
        return Ok(true);
    }
    let a_bool = a.is_exact_instance_of::<PyBool>();
    let b_bool = b.is_exact_instance_of::<PyBool>();
    if a_bool || b_bool {
        return Ok(a_bool && b_bool && a.eq(b)?);
    }
    if b.is_exact_instance_of::<PyDict>() || b.is_exact_instance_of::<PyList>() {
        return Ok(false);
    }
    a.eq(b) // `bool(a == b)`: Python's own comparison of numbers (1 == 1.0), strings, the rest
}

/// `jsonvalue.json_eq`: JSON equality.
#[pyfunction]
fn json_eq(a: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>) -> PyResult<bool> {
    eq(a, b, 0)
}

/// (whether the text may hold an integer beyond orjson's range: 20 digits in a row, or a minus
/// sign before 19; how many `[`, `{` and `(` it holds), in one pass: what
/// `jsonvalue.may_hold_big_int(text.translate(...))` and the scan's `count(b"(")` say.
#[pyfunction]
fn scan_json(data: &[u8]) -> (bool, usize) {
    let mut run = 0usize;
    let mut negative = false;
    let mut big = false;
    let mut opens = 0usize;
    for &c in data {
        if c.is_ascii_digit() {
            run += 1;
            if run >= 20 || (negative && run >= 19) {
                big = true;
            }
        } else {
            run = 0;
            negative = c == b'-';
            if c == b'[' || c == b'{' || c == b'(' {
                opens += 1;
            }
        }
    }
    (big, opens)
}

// ------------------------------------------------------------------------------------ rules

enum Rule {
    None,
    /// `norms.casefold`: ASCII strings here, the others through `str.strip().casefold()`.
    Casefold,
    /// `norms.unordered_list`: `sorted(value, key=canon_key)`.
    UnorderedList,
    /// `norms.set_`: the first of equal elements, sorted by key.
    Set,
    /// `norms.known_fields`: only the properties its schema declares.
    KnownFields(Py<PyFrozenSet>),
    /// A rule whose normal form is one value (`any`).
    Constant(Py<PyAny>),
    /// Any other rule: the bound Python function (`Rule.fn`).
    Python(Py<PyAny>),
}

/// Python's `str.isspace` on ASCII, which `str.strip()` trims: \t \n \v \f \r, the four
/// information separators \x1c-\x1f, and the space.
fn py_ascii_space(c: u8) -> bool {
    matches!(c, 9..=13 | 28..=32)
}

fn casefold<'py>(py: Python<'py>, v: &Bound<'py, PyAny>) -> PyResult<Option<Bound<'py, PyAny>>> {
    if !v.is_exact_instance_of::<PyString>() {
        return Ok(None); // NormError in the reference: the value stays as it is
    }
    let s = v.cast::<PyString>()?;
    if let Ok(text) = s.to_str() {
        if text.is_ascii() {
            let bytes = text.as_bytes();
            let start = bytes.iter().position(|&c| !py_ascii_space(c)).unwrap_or(bytes.len());
            let end = bytes.iter().rposition(|&c| !py_ascii_space(c)).map_or(start, |i| i + 1);
            let core = &text[start..end];
            if !core.bytes().any(|c| c.is_ascii_uppercase()) && core.len() == text.len() {
                return Ok(Some(v.clone()));
            }
            return Ok(Some(PyString::new(py, &core.to_ascii_lowercase()).into_any()));
        }
    }
    // Unicode's special cases (ß, final sigma, ...): Python's own rules, not a port of them.
    Ok(Some(v.call_method0("strip")?.call_method0("casefold")?))
}

static SORTED: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static CANON_KEY_FN: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

fn builtins_sorted<'py>(
    py: Python<'py>,
    items: &Bound<'py, PyAny>,
    key: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let sorted = SORTED.get_or_try_init(py, || -> PyResult<Py<PyAny>> {
        Ok(py.import("builtins")?.getattr("sorted")?.unbind())
    })?;
    let sorted = sorted.bind(py);
    match key {
        Some(k) => {
            let kwargs = PyDict::new(py);
            kwargs.set_item("key", k)?;
            sorted.call((items,), Some(&kwargs))
        }
        None => sorted.call1((items,)),
    }
}

fn apply_native<'py>(
    py: Python<'py>,
    rule: &Rule,
    v: &Bound<'py, PyAny>,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    match rule {
        Rule::None => Ok(Some(v.clone())),
        Rule::Casefold => casefold(py, v),
        Rule::UnorderedList => {
            let Ok(list) = v.cast_exact::<PyList>() else {
                return Ok(None);
            };
            // `sorted(value, key=canon_key)` itself, with the native key: Python's own stable
            // sort, so equal elements keep their order, whatever the elements are.
            let key_fn = CANON_KEY_FN.get_or_try_init(py, || -> PyResult<Py<PyAny>> {
                Ok(wrap_pyfunction!(canon_key, py)?.into_any().unbind())
            })?;
            Ok(Some(builtins_sorted(py, list.as_any(), Some(key_fn.bind(py)))?))
        }
        Rule::Set => {
            let Ok(list) = v.cast_exact::<PyList>() else {
                return Ok(None);
            };
            // {canon_key(x): x for x in reversed(value)}: the first of equal elements is kept
            let unique = PyDict::new(py);
            for i in (0..list.len()).rev() {
                let x = list.get_item(i)?;
                unique.set_item(canon(py, &x, 0)?, x)?;
            }
            let keys = builtins_sorted(py, unique.as_any(), None)?;
            let out = PyList::empty(py);
            for k in keys.try_iter()? {
                let k = k?;
                match unique.get_item(&k)? {
                    Some(x) => out.append(x)?,
                    None => return Err(PyValueError::new_err("set: a key vanished")),
                }
            }
            Ok(Some(out.into_any()))
        }
        Rule::KnownFields(fields) => {
            let Ok(d) = v.cast_exact::<PyDict>() else {
                return Ok(None);
            };
            let fields = fields.bind(py);
            let out = PyDict::new(py);
            for (k, x) in d.iter() {
                if fields.contains(&k)? {
                    out.set_item(k, x)?;
                }
            }
            Ok(Some(out.into_any()))
        }
        Rule::Constant(c) => Ok(Some(c.bind(py).clone())),
        Rule::Python(f) => Ok(Some(f.bind(py).call1((v,))?)),
    }
}

/// `Rule.apply(value)[0]`: the normal form, or the value itself when the rule cannot read it or
/// fails (any Exception, as `Rule.apply` catches; KeyboardInterrupt and the like go through).
fn apply<'py>(py: Python<'py>, rule: &Rule, v: Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    match apply_native(py, rule, &v) {
        Ok(Some(form)) => Ok(form),
        Ok(None) => Ok(v),
        Err(e) if e.is_instance_of::<PyException>(py) => Ok(v),
        Err(e) => Err(e),
    }
}

// ------------------------------------------------------------------------------- validity

const T_STRING: u8 = 1;
const T_INTEGER: u8 = 2;
const T_NUMBER: u8 = 4;
const T_BOOLEAN: u8 = 8;
const T_NULL: u8 = 16;
const T_ARRAY: u8 = 32;
const T_OBJECT: u8 = 64;

fn type_bit(name: &str) -> u8 {
    match name {
        "string" => T_STRING,
        "integer" => T_INTEGER,
        "number" => T_NUMBER,
        "boolean" => T_BOOLEAN,
        "null" => T_NULL,
        "array" => T_ARRAY,
        "object" => T_OBJECT,
        _ => 0,
    }
}

/// `validity.Validity`, for what `normalize` asks of it: whether a value breaks the schema.
struct Validity {
    /// The Python validator: asked about a string when the schema has a `pattern` or a `format`.
    obj: Py<PyAny>,
    types: u8,
    constant: Option<Py<PyAny>>,
    choices: Option<Py<PyList>>,
    strings_in_python: bool,
}

fn type_ok(v: &Bound<'_, PyAny>, types: u8) -> PyResult<bool> {
    let ok = if v.is_exact_instance_of::<PyString>() {
        types & T_STRING != 0
    } else if v.is_exact_instance_of::<PyInt>() {
        types & (T_INTEGER | T_NUMBER) != 0
    } else if v.is_exact_instance_of::<PyFloat>() {
        let x: f64 = v.extract()?;
        types & T_NUMBER != 0 || (types & T_INTEGER != 0 && x.is_finite() && x.fract() == 0.0)
    } else if v.is_exact_instance_of::<PyBool>() {
        types & T_BOOLEAN != 0
    } else if v.is_none() {
        types & T_NULL != 0
    } else if v.is_exact_instance_of::<PyList>() {
        types & T_ARRAY != 0
    } else if v.is_exact_instance_of::<PyDict>() {
        types & T_OBJECT != 0
    } else {
        false
    };
    Ok(ok)
}

fn breaches(py: Python<'_>, val: &Validity, v: &Bound<'_, PyAny>) -> PyResult<bool> {
    if v.is_none() && val.types & T_NULL != 0 {
        return Ok(false);
    }
    if val.types != 0 && !type_ok(v, val.types)? {
        return Ok(true);
    }
    if let Some(c) = &val.constant {
        if !eq(v, c.bind(py), 0)? {
            return Ok(true);
        }
    }
    if let Some(choices) = &val.choices {
        let mut found = false;
        for x in choices.bind(py).iter() {
            if eq(v, &x, 0)? {
                found = true;
                break;
            }
        }
        if !found {
            return Ok(true);
        }
    }
    if val.strings_in_python && v.is_exact_instance_of::<PyString>() {
        return Ok(!val.obj.bind(py).call_method1("breach", (v,))?.is_none());
    }
    Ok(false)
}

// ----------------------------------------------------------------------------------- nodes

/// A parameter compiled for normalizing: `compare.Node` as `normalize` reads it
/// (`evalrunner.core.native_node` builds it from one).
#[pyclass(frozen, module = "evalrun_native")]
struct Node {
    active: bool,
    /// Property name -> Node; None when the node declares no properties.
    props: Option<Py<PyDict>>,
    /// The items' node, when it is active (an inactive one changes nothing).
    items: Option<Py<Node>>,
    /// The normalized default, when a default is declared.
    default_norm: Option<Py<PyAny>>,
    rule: Rule,
    validity: Option<Validity>,
}

#[pymethods]
impl Node {
    #[new]
    #[pyo3(signature = (
        active, props, items, default_norm, has_default, rule, rule_arg,
        validity, types, constant, has_constant, choices, strings_in_python
    ))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        active: bool,
        props: Option<Bound<'_, PyDict>>,
        items: Option<Py<Node>>,
        default_norm: Py<PyAny>,
        has_default: bool,
        rule: &str,
        rule_arg: Py<PyAny>,
        validity: Option<Py<PyAny>>,
        types: Vec<String>,
        constant: Py<PyAny>,
        has_constant: bool,
        choices: Option<Bound<'_, PyList>>,
        strings_in_python: bool,
    ) -> PyResult<Self> {
        if let Some(p) = &props {
            for v in p.values().iter() {
                if !v.is_exact_instance_of::<Node>() {
                    return Err(PyValueError::new_err("props maps names to evalrun_native.Node"));
                }
            }
        }
        let rule = match rule {
            "" => Rule::None,
            "casefold" => Rule::Casefold,
            "unordered_list" => Rule::UnorderedList,
            "set" => Rule::Set,
            "known_fields" => Rule::KnownFields(rule_arg.bind(py).cast::<PyFrozenSet>()?.clone().unbind()),
            "constant" => Rule::Constant(rule_arg),
            "python" => Rule::Python(rule_arg),
            other => return Err(PyValueError::new_err(format!("unknown rule kind {other:?}"))),
        };
        let validity = validity.map(|obj| Validity {
            obj,
            types: types.iter().fold(0, |bits, t| bits | type_bit(t)),
            constant: has_constant.then_some(constant),
            choices: choices.map(|c| c.unbind()),
            strings_in_python,
        });
        Ok(Node {
            active,
            props: props.filter(|p| !p.is_empty()).map(|p| p.unbind()),
            items,
            default_norm: has_default.then_some(default_norm),
            rule,
            validity,
        })
    }

    /// `compare.normalize(value, node, checked)`.
    #[pyo3(signature = (value, checked = false))]
    fn normalize<'py>(
        &self,
        py: Python<'py>,
        value: Bound<'py, PyAny>,
        checked: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        normalize(py, value, self, checked)
    }

    /// `ToolPlan.key`: `canon_key` of the normal form (of the value itself, on an inactive node).
    #[pyo3(signature = (value, checked = true))]
    fn key<'py>(
        &self,
        py: Python<'py>,
        value: Bound<'py, PyAny>,
        checked: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        if !self.active {
            return canon(py, &value, 0);
        }
        let form = normalize(py, value, self, checked)?;
        canon(py, &form, 0)
    }
}

fn normalize<'py>(
    py: Python<'py>,
    value: Bound<'py, PyAny>,
    node: &Node,
    checked: bool,
) -> PyResult<Bound<'py, PyAny>> {
    if checked {
        if let Some(val) = &node.validity {
            if breaches(py, val, &value)? {
                let rejected = PyDict::new(py);
                rejected.set_item(REJECTED, value)?;
                return Ok(rejected.into_any());
            }
        }
    }
    let value = inner(py, value, node, checked)?;
    if let Rule::None = node.rule {
        return Ok(value);
    }
    apply(py, &node.rule, value)
}

/// `compare._inner`: the rules below `node` applied, default-valued properties dropped.
fn inner<'py>(
    py: Python<'py>,
    value: Bound<'py, PyAny>,
    node: &Node,
    checked: bool,
) -> PyResult<Bound<'py, PyAny>> {
    if !node.active {
        return Ok(value);
    }
    if let Some(props) = &node.props {
        if let Ok(d) = value.cast_exact::<PyDict>() {
            let props = props.bind(py);
            let out = PyDict::new(py);
            for (k, x) in d.iter() {
                let Some(child) = props.get_item(&k)? else {
                    out.set_item(k, x)?;
                    continue;
                };
                let child = child.cast_exact::<Node>()?.get();
                let nx = if child.active { normalize(py, x, child, checked)? } else { x };
                if let Some(default) = &child.default_norm {
                    if eq(&nx, default.bind(py), 0)? {
                        continue; // a stated default is the same as an omitted parameter
                    }
                }
                out.set_item(k, nx)?;
            }
            return Ok(out.into_any());
        }
    }
    if let Some(items) = &node.items {
        if let Ok(list) = value.cast_exact::<PyList>() {
            let items = items.get();
            let mut forms = Vec::with_capacity(list.len());
            for x in list.iter() {
                forms.push(normalize(py, x, items, checked)?);
            }
            return Ok(PyList::new(py, forms)?.into_any());
        }
    }
    Ok(value)
}

#[pymodule]
fn evalrun_native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("CORE_VERSION", CORE_VERSION)?;
    m.add("REJECTED", REJECTED)?;
    m.add_function(wrap_pyfunction!(canon_key, m)?)?;
    m.add_function(wrap_pyfunction!(json_eq, m)?)?;
    m.add_function(wrap_pyfunction!(scan_json, m)?)?;
    m.add_class::<Node>()?;
    Ok(())
}
