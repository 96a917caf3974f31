//! The outline query of a language: compiled once per process, with the
//! role of each capture and the node kinds its patterns can start at.

use tree_sitter::Query;

use super::Kind;

/// What a capture in an outline query stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Role {
    /// `@definition.<kind>`: a definition node.
    Definition(Kind),
    /// `@name`: the node holding the definition's name.
    Name,
    /// `@body`: the text before it is the symbol's detail.
    Body,
    /// `@parent`: the name of the type a method belongs to, when the method is
    /// defined outside it (Go receivers).
    Parent,
    /// `@scope`: a node that is not a symbol but hides every definition inside
    /// it (an anonymous function's body).
    Scope,
    /// `@transparent`: a node inside a `@scope` node that undoes it for its
    /// own contents (an immediately invoked function wrapping a module).
    Transparent,
    /// `@overload`: an overload signature (TypeScript); the next definition
    /// of the same name at the same level starts at its line.
    Overload,
    /// `@_anything`: a node a predicate tests (`(#eq? @_name "_")`); no role.
    Ignored,
}

/// A language's query with its capture roles resolved.
pub(crate) struct CompiledQuery {
    pub(super) query: Query,
    pub(super) roles: Vec<Role>,
    /// Indexed by node kind id: whether some pattern can start at a node of
    /// that kind. None: any kind can start a match.
    pub(super) roots: Option<Vec<bool>>,
}

impl CompiledQuery {
    /// Whether some pattern may match starting at a node of this kind.
    pub(super) fn may_start_at(&self, kind_id: u16) -> bool {
        self.roots
            .as_ref()
            .is_none_or(|roots| roots.get(usize::from(kind_id)).copied().unwrap_or(false))
    }
}

/// `source` (a language's query text) compiled for `grammar`, its captures
/// checked: an error says what is wrong with the query.
pub(super) fn compile_query(
    grammar: &tree_sitter::Language,
    source: &str,
) -> Result<CompiledQuery, String> {
    let query = Query::new(grammar, source).map_err(|e| e.to_string())?;
    let mut roles = Vec::with_capacity(query.capture_names().len());
    for capture in query.capture_names() {
        let role = match capture.strip_prefix("definition.") {
            Some(kind) => Role::Definition(kind.parse::<Kind>()?),
            None => match *capture {
                "name" => Role::Name,
                "body" => Role::Body,
                "parent" => Role::Parent,
                "scope" => Role::Scope,
                "transparent" => Role::Transparent,
                "overload" => Role::Overload,
                _ if capture.starts_with('_') => Role::Ignored,
                _ => {
                    return Err(format!(
                        "unexpected capture @{capture} (expected @definition.<kind>, @name, \
                         @body, @parent, @scope, @transparent, @overload or @_<anything>)"
                    ));
                }
            },
        };
        roles.push(role);
    }
    if !roles.iter().any(|r| matches!(r, Role::Definition(_))) {
        return Err("no @definition.<kind> capture".to_string());
    }
    if !roles.contains(&Role::Name) {
        return Err("no @name capture".to_string());
    }
    let roots = root_kinds(grammar, &query, source);
    Ok(CompiledQuery {
        query,
        roles,
        roots,
    })
}

/// A table, indexed by node kind id, of the kinds at which some pattern of
/// `query` can start: each pattern's first node, read from its text. None (a
/// match can start anywhere) when a pattern starts with a wildcard, a
/// supertype or anything [`read_root`] does not read.
fn root_kinds(grammar: &tree_sitter::Language, query: &Query, source: &str) -> Option<Vec<bool>> {
    let mut roots = Vec::new();
    for i in 0..query.pattern_count() {
        read_root(source.get(query.start_byte_for_pattern(i)..)?, &mut roots)?;
    }
    let mut table = vec![false; grammar.node_kind_count()];
    for (name, named) in roots {
        let mut found = false;
        for (id, slot) in table.iter_mut().enumerate() {
            let id = u16::try_from(id).ok()?;
            if grammar.node_kind_for_id(id) == Some(name) && grammar.node_kind_is_named(id) == named
            {
                if grammar.node_kind_is_supertype(id) {
                    return None;
                }
                *slot = true;
                found = true;
            }
        }
        if !found {
            return None;
        }
    }
    Some(table)
}

/// Read the pattern node at the start of `s`, adding the kinds (name,
/// named) it can start at to `roots`; the rest of the text after it. `(kind
/// ...)`, `"literal"` and alternations `[...]` of those are read; None for
/// anything else (`(_)`, `(supertype/kind)`, `(ERROR)`, a grouping `((a)
/// (b))`, ...).
pub(super) fn read_root<'a>(s: &'a str, roots: &mut Vec<(&'a str, bool)>) -> Option<&'a str> {
    let s = skip_trivia(s);
    match s.as_bytes().first()? {
        b'(' => {
            let inner = s.get(1..)?;
            let end = inner
                .find(|c: char| c.is_whitespace() || "()[]\"@:/;".contains(c))
                .unwrap_or(inner.len());
            let name = inner.get(..end)?;
            if name.is_empty()
                || name == "_"
                || name == "ERROR"
                || name == "MISSING"
                || inner.get(end..)?.starts_with('/')
            {
                return None;
            }
            roots.push((name, true));
            skip_balanced(s)
        }
        b'"' => {
            let inner = s.get(1..)?;
            let end = inner.find(['"', '\\'])?;
            if !inner.get(end..)?.starts_with('"') {
                return None; // an escape: not worth reading
            }
            roots.push((inner.get(..end)?, false));
            inner.get(end + 1..)
        }
        b'[' => {
            let mut rest = s.get(1..)?;
            loop {
                rest = skip_trivia(rest);
                if let Some(after) = rest.strip_prefix(']') {
                    return Some(after);
                }
                rest = skip_suffixes(read_root(rest, roots)?);
            }
        }
        _ => None,
    }
}

/// `s` without leading whitespace and `;` comments.
fn skip_trivia(mut s: &str) -> &str {
    loop {
        s = s.trim_start();
        match s.strip_prefix(';') {
            Some(comment) => s = comment.find('\n').map_or("", |i| &comment[i..]),
            None => return s,
        }
    }
}

/// `s` without the captures (`@name`) and quantifiers after a pattern node.
fn skip_suffixes(mut s: &str) -> &str {
    loop {
        s = skip_trivia(s);
        if let Some(capture) = s.strip_prefix('@') {
            let end = capture
                .find(|c: char| !(c.is_alphanumeric() || "_.-".contains(c)))
                .unwrap_or(capture.len());
            s = &capture[end..];
        } else if let Some(rest) = s.strip_prefix(['?', '*', '+']) {
            s = rest;
        } else {
            return s;
        }
    }
}

/// The text after the parenthesized or bracketed group `s` starts with
/// (strings and comments inside it skipped); None if it is not closed.
fn skip_balanced(s: &str) -> Option<&str> {
    let mut depth = 0usize;
    let mut chars = s.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return s.get(i + 1..);
                }
            }
            '"' => loop {
                match chars.next()?.1 {
                    '\\' => {
                        chars.next()?;
                    }
                    '"' => break,
                    _ => {}
                }
            },
            ';' => while chars.next()?.1 != '\n' {},
            _ => {}
        }
    }
    None
}
