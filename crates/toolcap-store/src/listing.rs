//! Paging through the results of a dialog (or of all) in the list's order —
//! creation time, then dialog id, then tool call id — without loading the rest:
//! a page starts after the key of the last result of the page before (keyset
//! pagination, `WHERE (created_at, dialog_id, tool_call_id) > (...) ORDER BY ...
//! LIMIT n` in the SQL stores), so its cost does not grow with the results
//! before it, and a result stored meanwhile is neither skipped nor repeated.

use super::Meta;

/// Where a page of [`ResultStore::list_page`](super::ResultStore::list_page)
/// starts: right after the result with this key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListCursor {
    /// The creation time of the last result of the page before (ms since the epoch).
    pub created_at_ms: i64,
    /// Its dialog id.
    pub dialog_id: String,
    /// Its tool call id.
    pub tool_call_id: String,
}

/// One page: which results, after which, how many.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListPage<'a> {
    /// Only this dialog's results (all dialogs' when `None`).
    pub dialog_id: Option<&'a str>,
    /// Start after this key (from the start when `None`).
    pub after: Option<&'a ListCursor>,
    /// Skip this many results first (after `after`); prefer a cursor, which
    /// costs nothing per result skipped.
    pub offset: usize,
    /// At most this many results.
    pub limit: usize,
}

impl ListCursor {
    /// The cursor of the page after the one that ends with `m`.
    pub fn after(m: &Meta) -> ListCursor {
        ListCursor {
            created_at_ms: m.created_at_ms,
            dialog_id: m.dialog_id.clone(),
            tool_call_id: m.tool_call_id.clone(),
        }
    }

    /// Whether `m` comes after this key in the list's order.
    pub fn precedes(&self, m: &Meta) -> bool {
        (
            m.created_at_ms,
            m.dialog_id.as_str(),
            m.tool_call_id.as_str(),
        ) > (
            self.created_at_ms,
            self.dialog_id.as_str(),
            self.tool_call_id.as_str(),
        )
    }

    /// The cursor as a token safe in a URL query and a shell word:
    /// `CREATED.HEX(DIALOG).HEX(ID)` (the ids' UTF-8 bytes in hex).
    pub fn token(&self) -> String {
        format!(
            "{}.{}.{}",
            self.created_at_ms,
            hex(self.dialog_id.as_bytes()),
            hex(self.tool_call_id.as_bytes())
        )
    }

    /// The cursor a [`token`](Self::token) stands for; `None` for anything else.
    pub fn parse(token: &str) -> Option<ListCursor> {
        let mut parts = token.split('.');
        let created = parts.next()?;
        if created.is_empty() || created.starts_with('+') {
            return None;
        }
        let created_at_ms = created.parse().ok()?;
        let dialog_id = String::from_utf8(unhex(parts.next()?)?).ok()?;
        let tool_call_id = String::from_utf8(unhex(parts.next()?)?).ok()?;
        if parts.next().is_some() {
            return None;
        }
        Some(ListCursor {
            created_at_ms,
            dialog_id,
            tool_call_id,
        })
    }
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

/// A page of `all` (in the list's order), for the stores that hold everything
/// in memory anyway.
pub(crate) fn page_of(all: impl Iterator<Item = Meta>, page: &ListPage<'_>) -> Vec<Meta> {
    all.filter(|m| page.dialog_id.is_none_or(|d| m.dialog_id == d))
        .filter(|m| page.after.is_none_or(|c| c.precedes(m)))
        .skip(page.offset)
        .take(page.limit)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_reads_back_as_its_cursor() {
        for (d, id) in [("default", "call_1"), ("d é.x", "a.b/c\"'"), ("", "")] {
            let c = ListCursor {
                created_at_ms: -5,
                dialog_id: d.into(),
                tool_call_id: id.into(),
            };
            let t = c.token();
            assert!(
                t.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-')
            );
            assert_eq!(ListCursor::parse(&t), Some(c));
        }
        for bad in [
            "",
            "1",
            "1.61",
            "x.61.62",
            "1.6.62",
            "1.61.62.63",
            "+1.61.62",
            "1.zz.62",
        ] {
            assert_eq!(ListCursor::parse(bad), None, "{bad}");
        }
    }
}
