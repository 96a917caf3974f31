//! The names of the public enums, derived by strum: exactly the strings the
//! store keeps, the `--json` reports write and the CLI and bindings read, each
//! parsing back to its value and nothing else parsing.

use std::str::FromStr;

use toolcap::history::Format;
use toolcap::store::record::{Ask, Outcome};
use toolcap::store::tools::ToolFormat;
use toolcap::store::{ExpiryReason, SaveWhen};

/// `value` serialized by serde, as a string.
fn serde_name(value: impl serde::Serialize) -> String {
    serde_json::to_value(value)
        .unwrap()
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn ask_names_in_report_order() {
    let names: Vec<&str> = Ask::ALL.iter().map(|a| a.name()).collect();
    assert_eq!(
        names,
        [
            "continuation",
            "reread",
            "lines",
            "symbol",
            "outline",
            "search",
            "query",
            "fetch",
            "whole"
        ]
    );
    for a in Ask::ALL {
        assert_eq!(Ask::parse(a.name()), Some(a));
        assert_eq!(serde_name(a), a.name());
    }
    assert_eq!(Ask::parse("Continuation"), None);
    assert_eq!(Ask::parse(""), None);
}

#[test]
fn outcome_and_expiry_names_as_stored() {
    for (o, name) in [
        (Outcome::Answered, "answered"),
        (Outcome::NotStored, "not_stored"),
        (Outcome::Expired, "expired"),
        (Outcome::Refused, "refused"),
        (Outcome::Failed, "failed"),
    ] {
        assert_eq!(o.name(), name);
        assert_eq!(Outcome::parse(name), Some(o));
        assert_eq!(serde_name(o), name);
    }
    assert_eq!(Outcome::parse("notstored"), None);
    for (r, name) in [(ExpiryReason::Age, "age"), (ExpiryReason::Size, "size")] {
        assert_eq!(r.as_str(), name);
        assert_eq!(ExpiryReason::parse(name), Some(r));
        assert_eq!(serde_name(r), name);
    }
    assert_eq!(ExpiryReason::parse("Age"), None);
}

#[test]
fn save_when_and_tool_format_names_the_cli_reads() {
    assert_eq!(SaveWhen::parse("cut"), Some(SaveWhen::Cut));
    assert_eq!(SaveWhen::parse("all"), Some(SaveWhen::All));
    assert_eq!(serde_name(SaveWhen::All), "all");
    assert_eq!(SaveWhen::parse("ALL"), None);
    assert_eq!(ToolFormat::parse("openai"), Some(ToolFormat::OpenAi));
    assert_eq!(ToolFormat::parse("anthropic"), Some(ToolFormat::Anthropic));
    assert_eq!(ToolFormat::parse("open_ai"), None);
    assert_eq!(ToolFormat::parse("OpenAI"), None);
}

#[test]
fn history_format_names_and_aliases() {
    for (f, name) in [
        (Format::OpenaiChat, "openai_chat"),
        (Format::OpenaiResponses, "openai_responses"),
        (Format::Anthropic, "anthropic"),
    ] {
        assert_eq!(f.name(), name);
        assert_eq!(f.to_string(), name);
        assert_eq!(serde_name(f), name);
        assert_eq!(Format::from_str(name).unwrap(), f);
    }
    assert_eq!(Format::from_str(" Chat ").unwrap(), Format::OpenaiChat);
    assert_eq!(
        Format::from_str("openai-responses").unwrap(),
        Format::OpenaiResponses
    );
    let e = Format::from_str("gemini").unwrap_err().to_string();
    assert!(e.contains("unknown message format \"gemini\""), "{e}");
}
