//! The string unions of the package's TypeScript declarations, made from the Rust
//! types they describe: `scripts/gen-types.js` writes them into `index.d.ts`
//! (between its GENERATED markers), and `test/types.test.js` fails when the file
//! differs from what the addon says. Each list comes from the library itself (its
//! `ALL` lists, its serde names, the binding's own conversions); the matches
//! below name every variant, so a variant added to the library does not compile
//! here until it is listed.

use napi_derive::napi;
use serde::Serialize;
use serde_json::{Map, Value};
use toolcap::outline::Stop;
use toolcap::store::SaveWhen;
use toolcap::store::continuation::{ReplyError, ToolReply};
use toolcap::store::tools::ToolFormat;
use toolcap::{Family, Kind, Reason};
use toolcap_text::measure::Encoding;

use crate::store::NativeReply;
use crate::{Fail, Kind as ErrKind, Res, sync};

/// The JSON string serde writes for `v` (the name in the `--json` report).
fn serde_name(v: impl Serialize) -> Res<String> {
    match serde_json::to_value(v) {
        Ok(Value::String(s)) => Ok(s),
        other => Err(Fail::new(
            ErrKind::Toolcap,
            format!("internal error: a unit variant serialized as {other:?}"),
        )),
    }
}

fn reasons() -> Res<Vec<String>> {
    // the library lists every variant (a new one fails its own test until listed)
    Reason::ALL.into_iter().map(serde_name).collect()
}

fn stops() -> Res<Vec<String>> {
    let all = [Stop::TimeBudget, Stop::SizeCap];
    for s in all {
        match s {
            Stop::TimeBudget | Stop::SizeCap => {}
        }
    }
    all.into_iter().map(serde_name).collect()
}

fn save_whens() -> Res<Vec<String>> {
    let all = [SaveWhen::Cut, SaveWhen::All];
    for s in all {
        match s {
            SaveWhen::Cut | SaveWhen::All => {}
        }
    }
    let names: Vec<String> = all.into_iter().map(serde_name).collect::<Res<_>>()?;
    // the names the binding accepts are the names it reports
    for (s, name) in all.iter().zip(&names) {
        if SaveWhen::parse(name) != Some(*s) {
            return Err(Fail::new(
                ErrKind::Toolcap,
                format!("internal error: save {name:?} does not parse back"),
            ));
        }
    }
    Ok(names)
}

fn tool_formats() -> Res<Vec<String>> {
    let all = [ToolFormat::OpenAi, ToolFormat::Anthropic];
    let mut names = Vec::new();
    for f in all {
        let name = match f {
            ToolFormat::OpenAi => "openai",
            ToolFormat::Anthropic => "anthropic",
        };
        if ToolFormat::parse(name) != Some(f) {
            return Err(Fail::new(
                ErrKind::Toolcap,
                format!("internal error: format {name:?} does not parse back"),
            ));
        }
        names.push(name.to_string());
    }
    Ok(names)
}

fn reply_errors() -> Res<Vec<String>> {
    let all = [
        ReplyError::NotStored,
        ReplyError::Expired,
        ReplyError::PastEnd,
        ReplyError::BadArgument,
        ReplyError::StoreFailed,
    ];
    let mut names = Vec::new();
    for e in all {
        match e {
            ReplyError::NotStored
            | ReplyError::Expired
            | ReplyError::PastEnd
            | ReplyError::BadArgument
            | ReplyError::StoreFailed => {}
        }
        // the name the binding gives a reply's error
        let reply = NativeReply::from(ToolReply::failure(e, ""));
        names.push(reply.error.ok_or_else(|| {
            Fail::new(ErrKind::Toolcap, "internal error: a failure without a kind")
        })?);
    }
    Ok(names)
}

fn units() -> Vec<String> {
    let all = [
        toolcap::config::Unit::Chars,
        toolcap::config::Unit::Tokens(Encoding::O200kBase),
    ];
    all.into_iter()
        .map(|u| match u {
            toolcap::config::Unit::Chars | toolcap::config::Unit::Tokens(_) => u.name().to_string(),
        })
        .collect()
}

/// `{"Reason": ["bypass", ...], ...}`: every union `index.d.ts` declares from the
/// Rust types, in the order the library lists them.
pub(crate) fn unions() -> Res<Value> {
    let mut m = Map::new();
    let mut put = |name: &str, values: Vec<String>| {
        m.insert(
            name.to_string(),
            Value::Array(values.into_iter().map(Value::String).collect()),
        );
    };
    put("Reason", reasons()?);
    put(
        "FamilyName",
        Family::ALL.iter().map(|f| f.as_str().to_string()).collect(),
    );
    put("Unit", units());
    put("SaveWhen", save_whens()?);
    put("ToolFormat", tool_formats()?);
    put(
        "SymbolKind",
        Kind::ALL
            .into_iter()
            .map(serde_name)
            .collect::<Res<Vec<_>>>()?,
    );
    put("StoppedBy", stops()?);
    put("ReplyErrorKind", reply_errors()?);
    Ok(Value::Object(m))
}

/// For scripts/gen-types.js: the unions as JSON text.
#[napi]
pub fn type_unions() -> napi::Result<String> {
    sync(|| Ok(unions()?.to_string()))
}
