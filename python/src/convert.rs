//! Python values ↔ JSON, and a result handed in as str or bytes.

use std::borrow::Cow;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{
    PyBool, PyByteArray, PyBytes, PyDict, PyFloat, PyInt, PyList, PySlice, PyString, PyTuple,
};
use serde_json::{Map, Number, Value};
use toolcap::bind::{self, Lang};
use toolcap::store;

use crate::{bind_err, store_err};

/// A Python value as JSON: None, bool, int, float, str, list/tuple, dict with str keys.
pub(crate) fn to_json(obj: &Bound<'_, PyAny>, depth: usize) -> PyResult<Value> {
    if depth > 200 {
        return Err(PyValueError::new_err(
            "value nested more than 200 levels deep; pass plain JSON-like data",
        ));
    }
    if obj.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(b) = obj.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if obj.cast::<PyInt>().is_ok() {
        if let Ok(i) = obj.extract::<i64>() {
            return Ok(Value::from(i));
        }
        if let Ok(u) = obj.extract::<u64>() {
            return Ok(Value::from(u));
        }
        return Err(PyValueError::new_err(format!(
            "integer {} does not fit in 64 bits; pass it as a string",
            obj.str()?
        )));
    }
    if let Ok(f) = obj.cast::<PyFloat>() {
        let v = f.value();
        return Number::from_f64(v).map(Value::Number).ok_or_else(|| {
            PyValueError::new_err(format!("{v} is not a JSON number; pass a finite float"))
        });
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(Value::String(str_of(s)?.0.into_owned()));
    }
    if let Ok(d) = obj.cast::<PyDict>() {
        let mut m = Map::new();
        for (k, v) in d.iter() {
            let Ok(k) = k.cast::<PyString>() else {
                return Err(PyTypeError::new_err(format!(
                    "dict key {} is not a str; JSON objects have string keys",
                    k.repr()?
                )));
            };
            m.insert(str_of(k)?.0.into_owned(), to_json(&v, depth + 1)?);
        }
        return Ok(Value::Object(m));
    }
    if let Ok(l) = obj.cast::<PyList>() {
        return l
            .iter()
            .map(|v| to_json(&v, depth + 1))
            .collect::<PyResult<_>>()
            .map(Value::Array);
    }
    if let Ok(t) = obj.cast::<PyTuple>() {
        return t
            .iter()
            .map(|v| to_json(&v, depth + 1))
            .collect::<PyResult<_>>()
            .map(Value::Array);
    }
    Err(PyTypeError::new_err(format!(
        "cannot pass a {} as JSON; use None, bool, int, float, str, list or dict",
        obj.get_type().name()?
    )))
}

/// A JSON value as plain Python objects (dicts keep the JSON key order).
pub(crate) fn to_py<'py>(py: Python<'py>, v: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                u.into_pyobject(py)?.into_any()
            } else if let Some(i) = n.as_i64() {
                i.into_pyobject(py)?.into_any()
            } else {
                PyFloat::new(py, n.as_f64().unwrap_or(f64::NAN)).into_any()
            }
        }
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(a) => {
            let l = PyList::empty(py);
            for x in a {
                l.append(to_py(py, x)?)?;
            }
            l.into_any()
        }
        Value::Object(m) => {
            let d = PyDict::new(py);
            for (k, x) in m {
                d.set_item(k, to_py(py, x)?)?;
            }
            d.into_any()
        }
    })
}

/// A str's text, and whether it is the str's exactly. UTF-8 cannot hold a lone
/// surrogate (`"a\udc80b"`): each becomes one U+FFFD, so the text has as many
/// characters as the str has code points (`len()`), and counts agree with the
/// caller's.
pub(crate) fn str_of<'a>(s: &'a Bound<'_, PyString>) -> PyResult<(Cow<'a, str>, bool)> {
    if let Ok(c) = s.to_cow() {
        return Ok((c, true));
    }
    // WTF-8: every code point, surrogates as ED A0..BF xx
    let raw = s.call_method1("encode", ("utf-8", "surrogatepass"))?;
    let raw = raw.cast::<PyBytes>()?.as_bytes();
    let mut out = String::with_capacity(raw.len());
    let mut rest = raw;
    while !rest.is_empty() {
        match std::str::from_utf8(rest) {
            Ok(t) => {
                out.push_str(t);
                break;
            }
            Err(e) => {
                let (good, bad) = rest.split_at(e.valid_up_to());
                // valid by construction (the prefix from_utf8 accepted)
                out.push_str(std::str::from_utf8(good).unwrap_or_default());
                out.push('\u{FFFD}');
                // a surrogate is 3 bytes; anything else (never produced by
                // "surrogatepass") one replacement per invalid sequence
                let skip = e.error_len().unwrap_or(bad.len());
                let skip = if bad.first() == Some(&0xED) && bad.len() >= 3 {
                    3
                } else {
                    skip
                };
                rest = bad.get(skip..).unwrap_or_default();
            }
        }
    }
    Ok((Cow::Owned(out), false))
}

/// Tool arguments: None, a dict, or JSON text of an object (OpenAI's
/// `function.arguments`).
pub(crate) fn args_of(args: Option<&Bound<'_, PyAny>>) -> PyResult<Value> {
    match args {
        None => Ok(Value::Object(Map::new())),
        Some(a) if a.is_none() => Ok(Value::Object(Map::new())),
        Some(a) => {
            if let Ok(s) = a.cast::<PyString>() {
                return bind::args_from_json(&str_of(s)?.0).map_err(|e| bind_err("args", e));
            }
            if a.cast::<PyDict>().is_err() {
                return Err(PyTypeError::new_err(format!(
                    "args: expected a dict (or JSON text of an object), got {}",
                    a.get_type().name()?
                )));
            }
            to_json(a, 0)
        }
    }
}

/// `language=NAME`: a code language or a text format, as the CLI's `--lang`.
pub(crate) fn parse_lang(lang: Option<&str>) -> PyResult<Option<Lang>> {
    Lang::parse_opt(lang).map_err(|e| {
        PyValueError::new_err(format!("language: {e} (toolcap.languages() lists aliases)"))
    })
}

pub(crate) fn check_id(what: &'static str, id: &str) -> PyResult<()> {
    store::validate_id(what, id).map_err(store_err)
}

/// The dialog to use: the one given, else the default; checked.
pub(crate) fn dialog_of<'a>(dialog: Option<&'a str>, default: &'a str) -> PyResult<&'a str> {
    let d = dialog.unwrap_or(default);
    check_id("dialog id", d)?;
    Ok(d)
}

/// The text of a result passed in as `str`, `bytes` or `bytearray` (bytes are
/// decoded as UTF-8, invalid sequences replaced with U+FFFD, as the CLI reads
/// files).
pub(crate) enum Input<'a> {
    /// A str's text (lone surrogates replaced).
    Str(Cow<'a, str>),
    /// Bytes (a bytearray copied): processed as bytes, as the CLI does, so a
    /// legacy encoding is decoded and `original.bytes` is their own count.
    Bytes(Cow<'a, [u8]>),
}

/// Code points of a str converted per piece by [`str_in_pieces`].
pub(crate) const STR_PIECE: usize = 256 * 1024;

/// How many times [`str_in_pieces`] has let other threads take the GIL (for the
/// tests: `_toolcap._str_pieces()`).
static STR_PIECES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

#[pyfunction]
fn _str_pieces() -> u64 {
    STR_PIECES.load(std::sync::atomic::Ordering::Relaxed)
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_str_pieces, m)?)
}

/// A str's text as [`str_of`] gives it, converted [`STR_PIECE`] code points at a
/// time with the GIL released between pieces: converting a 50 MB str at once holds
/// the GIL (and so an asyncio loop whose `aprocess` runs this in a worker thread)
/// for 100 ms and more. The str is immutable and referenced throughout, so the
/// pieces are of one text; a piece boundary never splits a code point.
pub(crate) fn str_in_pieces(s: &Bound<'_, PyString>) -> PyResult<(String, bool)> {
    let py = s.py();
    let n = s.len()?;
    if n <= STR_PIECE {
        let (text, exact) = str_of(s)?;
        return Ok((text.into_owned(), exact));
    }
    let mut out = String::with_capacity(n);
    let mut exact = true;
    let mut at = 0;
    while at < n {
        let end = (at + STR_PIECE).min(n);
        let piece = s
            .as_any()
            .get_item(PySlice::new(py, at as isize, end as isize, 1))?;
        let (text, ok) = str_of(piece.cast::<PyString>()?)?;
        out.push_str(&text);
        exact &= ok;
        drop(text);
        drop(piece);
        at = end;
        // a thread waiting for the GIL (the event loop's) takes it here
        py.detach(|| STR_PIECES.fetch_add(1, std::sync::atomic::Ordering::Relaxed));
    }
    Ok((out, exact))
}

impl<'a> Input<'a> {
    pub(crate) fn of(obj: &'a Bound<'_, PyAny>) -> PyResult<Input<'a>> {
        if let Ok(s) = obj.cast::<PyString>() {
            if s.len()? > STR_PIECE {
                return Ok(Input::Str(Cow::Owned(str_in_pieces(s)?.0)));
            }
            return Ok(Input::Str(str_of(s)?.0));
        }
        if let Ok(b) = obj.cast::<PyBytes>() {
            return Ok(Input::Bytes(Cow::Borrowed(b.as_bytes())));
        }
        if let Ok(b) = obj.cast::<PyByteArray>() {
            // a bytearray can change under us: copy it while the GIL is held
            return Ok(Input::Bytes(Cow::Owned(b.to_vec())));
        }
        Err(PyTypeError::new_err(format!(
            "result: expected str or bytes (or a file object or iterator: use process_stream), got {}",
            obj.get_type().name()?
        )))
    }

    pub(crate) fn text(&self) -> Cow<'_, str> {
        match self {
            Input::Str(s) => Cow::Borrowed(s),
            Input::Bytes(b) => String::from_utf8_lossy(b),
        }
    }
}
