//! The walk over the syntax tree that collects the captured definitions,
//! and the containment pass that nests them into the outline's symbols.

use std::collections::HashMap;
use std::hash::Hasher;

use tree_sitter::{Node, QueryCursor, StreamingIterator};

use super::query::{CompiledQuery, Role};
use super::{Kind, Language, Symbol};

/// What a captured node is, before nesting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum DefKind {
    Symbol(Kind),
    /// Hides what is inside; not shown.
    Scope,
    /// Undoes an enclosing scope for what is inside; not shown.
    Transparent,
    /// An overload signature: lends its line to the next definition of the
    /// same name; not shown.
    Overload,
}

impl DefKind {
    /// Whether the definitions inside this one are left out of the outline.
    fn hides(self) -> bool {
        match self {
            DefKind::Symbol(k) => !k.is_container(),
            DefKind::Scope => true,
            DefKind::Transparent | DefKind::Overload => false,
        }
    }
}

/// A captured definition, before nesting.
pub(super) struct Def {
    kind: DefKind,
    name: String,
    start_byte: usize,
    end_byte: usize,
    line: usize,
    end_line: usize,
    detail: Option<String>,
    /// Explicit parent (a Go method's receiver type).
    parent: Option<String>,
    pattern: usize,
    /// A declaration without a body (`method_signature`, ...).
    signature: bool,
    /// Declared `friend` (C++): a function, not a member of the class it is
    /// written in.
    friend: bool,
}

/// The definitions captured so far, by node id. Looked up once per node
/// walked, so keyed with a cheap hash of the id (an address).
type ByNode = HashMap<usize, Def, std::hash::BuildHasherDefault<NodeIdHasher>>;

/// Hashes a node id with one wide multiplication, folding the high half
/// into the low so every bit of the address counts.
#[derive(Default)]
struct NodeIdHasher(u64);

impl Hasher for NodeIdHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b) ^ self.0.rotate_left(8));
        }
    }

    fn write_u64(&mut self, n: u64) {
        let product = u128::from(n ^ self.0) * 0x9E37_79B9_7F4A_7C15;
        self.0 = (product as u64) ^ ((product >> 64) as u64);
    }

    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// One `Def` per captured node (the first pattern listed wins when several
/// match the same node), in source order, outer first.
///
/// Rather than running the query over the whole tree, walk the tree and run
/// it anchored at each node a pattern can start at, and do not descend into
/// a definition that hides its contents (a function, a constant, a scope):
/// what it holds would be dropped by [`nest`] anyway. The definitions kept
/// are the ones a query over the whole tree finds, less only hidden ones.
pub(super) fn collect(compiled: &CompiledQuery, root: Node<'_>, source: &str) -> Vec<Def> {
    let mut cursor = QueryCursor::new();
    // Matches starting at the node the query runs on, not below it.
    cursor.set_max_start_depth(Some(0));
    let mut by_node = ByNode::default();
    let mut walk = root.walk();
    'walk: loop {
        let node = walk.node();
        if compiled.may_start_at(node.kind_id()) {
            let mut matches = cursor.matches(&compiled.query, node, source.as_bytes());
            while let Some(m) = matches.next() {
                record(compiled, m, source, &mut by_node);
            }
        }
        // Every match capturing this node started at it or above it, so its
        // definition is known. A type alias whose text starts at its name
        // hides only what follows it: descend. A comment (an extra node:
        // a doc comment has children) holds no definitions; an extra with
        // a syntax error may be a skipped token wrapping code: descend.
        let skip = (node.is_extra() && !node.has_error())
            || by_node
                .get(&node.id())
                .is_some_and(|d| d.kind.hides() && d.start_byte == node.start_byte());
        if !skip && walk.goto_first_child() {
            continue;
        }
        while !walk.goto_next_sibling() {
            if !walk.goto_parent() {
                break 'walk;
            }
        }
    }
    sorted(by_node)
}

/// The reference for [`collect`]: the query over the whole tree.
#[cfg(test)]
pub(super) fn collect_whole_tree(
    compiled: &CompiledQuery,
    root: Node<'_>,
    source: &str,
) -> Vec<Def> {
    let mut cursor = QueryCursor::new();
    let mut matches = cursor.matches(&compiled.query, root, source.as_bytes());
    let mut by_node = ByNode::default();
    while let Some(m) = matches.next() {
        record(compiled, m, source, &mut by_node);
    }
    sorted(by_node)
}

/// Record the definition a match captures in `by_node`, unless an earlier
/// pattern already captured the same node.
fn record(
    compiled: &CompiledQuery,
    m: &tree_sitter::QueryMatch<'_, '_>,
    source: &str,
    by_node: &mut ByNode,
) {
    let mut def = None;
    let mut name = None;
    let mut body = None;
    let mut parent = None;
    for capture in m.captures() {
        match compiled.roles.get(capture.index as usize) {
            Some(Role::Definition(kind)) => def = Some((DefKind::Symbol(*kind), capture.node)),
            Some(Role::Scope) => def = Some((DefKind::Scope, capture.node)),
            Some(Role::Transparent) => def = Some((DefKind::Transparent, capture.node)),
            Some(Role::Overload) => def = Some((DefKind::Overload, capture.node)),
            Some(Role::Name) => name = Some(capture.node),
            Some(Role::Body) => body = Some(capture.node),
            Some(Role::Parent) => parent = Some(capture.node),
            Some(Role::Ignored) | None => {}
        }
    }
    let Some((kind, node)) = def else {
        return;
    };
    // Swift operators (`static func == (lhs: P, rhs: P) -> Bool`): the
    // grammar gives the operator no field and names the return type `name`;
    // the token after `func` is the name.
    let name = match (kind, swift_operator(node)) {
        (DefKind::Symbol(_), Some(op)) => Some(op),
        _ => name,
    };
    if by_node
        .get(&node.id())
        .is_some_and(|seen| seen.pattern <= m.pattern_index)
    {
        return;
    }
    if matches!(kind, DefKind::Symbol(_)) && name.is_none() {
        return;
    }
    let detail = body.and_then(|body| {
        let header = collapse_whitespace(text(source, node.start_byte(), body.start_byte()));
        (!header.is_empty()).then_some(header)
    });
    let name_text = name
        .map(|n| collapse_whitespace(text(source, name_start(n), name_end(n))))
        .unwrap_or_default();
    // A type alias's own text starts at its name: a `typedef struct S
    // {...} T;` lists struct S and type T side by side, not S inside T.
    let start_byte = match (kind, name) {
        (DefKind::Symbol(Kind::Type), Some(n)) => n.start_byte().max(node.start_byte()),
        _ => node.start_byte(),
    };
    let def = Def {
        kind,
        name: name_text,
        start_byte,
        end_byte: node.end_byte(),
        line: name.map_or(node.start_position().row, |n| n.start_position().row) + 1,
        end_line: last_line(node),
        detail,
        parent: parent
            .map(|p| collapse_whitespace(text(source, p.start_byte(), p.end_byte())))
            .filter(|p| !p.is_empty()),
        pattern: m.pattern_index,
        signature: node.kind().ends_with("signature"),
        friend: node
            .parent()
            .is_some_and(|p| p.kind() == "friend_declaration"),
    };
    by_node.insert(node.id(), def);
}

/// Where a name starts: at the `operator` keyword or the `~` before it when
/// the grammar leaves them out of the name (C# `operator ==`, `operator
/// SemVersion`, `~Finalizer`), as C++'s does not (`operator==`, `~Foo`).
fn name_start(name: Node<'_>) -> usize {
    match name.prev_sibling() {
        Some(p) if !p.is_named() && matches!(p.kind(), "operator" | "~") => p.start_byte(),
        _ => name.start_byte(),
    }
}

/// Where a name ends: a C++ conversion operator (`operator bool() const`)
/// is named by the text before its parameter list.
fn name_end(name: Node<'_>) -> usize {
    let cast = match name.kind() {
        "operator_cast" => Some(name),
        "qualified_identifier" => name
            .child_by_field_name("name")
            .filter(|n| n.kind() == "operator_cast"),
        _ => None,
    };
    let params = cast.and_then(|c| {
        let mut node = c.child_by_field_name("declarator")?;
        // Down the abstract declarators (`*`, `&`) to the function's.
        loop {
            if node.kind() == "abstract_function_declarator" {
                return node.child_by_field_name("parameters");
            }
            node = node
                .child_by_field_name("declarator")
                .or_else(|| node.named_child(0))?;
        }
    });
    params.map_or(name.end_byte(), |p| p.start_byte())
}

/// The operator a Swift `func` declares, if it declares one: the token
/// right after `func` when that is not an identifier.
fn swift_operator(node: Node<'_>) -> Option<Node<'_>> {
    if node.kind() != "function_declaration" {
        return None;
    }
    let mut cursor = node.walk();
    let mut children = node.children(&mut cursor);
    children.find(|c| c.kind() == "func" && !c.is_named())?;
    let next = children.next()?;
    (next.kind() == "custom_operator" || !next.is_named()).then_some(next)
}

/// The definitions in source order, outer first.
fn sorted(by_node: ByNode) -> Vec<Def> {
    let mut defs: Vec<Def> = by_node.into_values().collect();
    defs.sort_by(|a, b| {
        a.start_byte
            .cmp(&b.start_byte)
            .then(b.end_byte.cmp(&a.end_byte))
            .then(a.line.cmp(&b.line))
    });
    defs
}

/// `source[start..end]`, or "" if that is not a valid range.
fn text(source: &str, start: usize, end: usize) -> &str {
    source.get(start..end).unwrap_or("")
}

fn collapse_whitespace(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// 1-based last line of a definition: the end of its last descendant that is
/// not a comment (an "extra"), so a comment trailing a Python block does not
/// extend it; a node ending at column 0 ends on the previous line.
fn last_line(node: Node<'_>) -> usize {
    let start_row = node.start_position().row;
    let mut last = node;
    loop {
        let mut next = None;
        for i in (0..last.child_count()).rev() {
            let Some(child) = last.child(i) else {
                continue;
            };
            if !child.is_extra() && child.end_byte() > child.start_byte() {
                next = Some(child);
                break;
            }
        }
        match next {
            Some(child) => last = child,
            None => break,
        }
    }
    let end = last.end_position();
    let row = if end.column == 0 && end.row > start_row {
        end.row - 1
    } else {
        end.row
    };
    row + 1
}

/// The containment pass: drop definitions inside non-containers (and inside
/// scopes), turn functions directly inside classes/impls/traits into
/// methods, and compute depth and parent. Per language: functions directly
/// in a module are methods (Ruby, ...: `module_methods`); a function named
/// `A::f` is a method of `A` defined outside it (C++), except in Bash, where
/// `ns::f` is a plain name; in TypeScript, consecutive signatures of one
/// function or method without an implementation (a `.d.ts`, a `declare
/// class`) are one symbol, as overloads with an implementation are.
pub(super) fn nest(defs: Vec<Def>, lang: Language) -> Vec<Symbol> {
    let module_methods = lang.spec().module_methods;
    let qualified = lang.name() != "bash";
    let merge_signatures = matches!(lang.name(), "typescript" | "tsx");
    // Whether the last symbol listed came from a signature (no body).
    let mut last_was_signature = false;
    struct Frame {
        start_byte: usize,
        end_byte: usize,
        kind: DefKind,
        symbol: Option<usize>,
    }
    let mut symbols: Vec<Symbol> = Vec::with_capacity(defs.len());
    let mut stack: Vec<Frame> = Vec::new();
    // The first overload signature of a run: (name, line, enclosing frames).
    let mut overload: Option<(String, usize, usize)> = None;
    for def in defs {
        while stack
            .last()
            .is_some_and(|top| !(top.start_byte <= def.start_byte && def.end_byte <= top.end_byte))
        {
            stack.pop();
        }
        // The innermost frame that decides: a transparent frame lifts the
        // scopes around it.
        if stack.last().is_some_and(|f| f.kind.hides()) {
            continue;
        }
        let container = stack.iter().rev().find_map(|f| match f.kind {
            DefKind::Symbol(k) => Some(k),
            _ => None,
        });
        let parent = stack.iter().rev().find_map(|f| f.symbol);
        let kind = match def.kind {
            DefKind::Symbol(kind) => kind,
            DefKind::Overload => {
                if !overload
                    .as_ref()
                    .is_some_and(|(n, _, d)| *n == def.name && *d == stack.len())
                {
                    overload = Some((def.name, def.line, stack.len()));
                }
                continue;
            }
            other => {
                stack.push(Frame {
                    start_byte: def.start_byte,
                    end_byte: def.end_byte,
                    kind: other,
                    symbol: None,
                });
                continue;
            }
        };
        let kind = match (kind, container) {
            (Kind::Function, Some(c))
                if !def.friend && (c.has_methods() || module_methods && c == Kind::Module) =>
            {
                Kind::Method
            }
            (kind, _) => kind,
        };
        let depth = stack.iter().filter(|f| f.symbol.is_some()).count();
        let line = match overload.take() {
            Some((n, line, d)) if n == def.name && d == stack.len() => line,
            _ => def.line,
        };
        let mut name = def.name;
        let mut parent_name = parent.and_then(|i| symbols.get(i)).map(|p| p.name.clone());
        let mut kind = kind;
        if parent_name.is_none()
            && let Some(p) = def.parent
        {
            // A method defined outside its type (Go receivers).
            parent_name = Some(p);
        } else if kind == Kind::Function
            && qualified
            && matches!(container, None | Some(Kind::Module))
            && let Some((scope, last)) = split_qualified(&name)
        {
            // `void Server::serve() {}` (C++), at file level or inside a
            // namespace: a method of Server.
            parent_name = Some(scope.to_string());
            kind = Kind::Method;
            name = last.to_string();
        }
        // A definition whose name is missing (syntax error) still counts for
        // nesting but is not shown.
        let same_as_last = |last: &Symbol| {
            merge_signatures
                && last_was_signature
                && matches!(kind, Kind::Function | Kind::Method)
                && last.kind == kind
                && last.name == name
                && last.depth == depth
                && last.parent == parent_name
                && last.end_line < line
        };
        let symbol = if name.is_empty() {
            None
        } else if let Some(last) = symbols.last_mut().filter(|l| same_as_last(l)) {
            // Another signature of the same function: one symbol.
            last.end_line = def.end_line.max(line);
            last_was_signature = def.signature;
            Some(symbols.len() - 1)
        } else {
            last_was_signature = def.signature;
            symbols.push(Symbol {
                kind,
                name,
                line,
                end_line: def.end_line.max(line),
                depth,
                parent: parent_name,
                detail: def.detail,
            });
            Some(symbols.len() - 1)
        };
        stack.push(Frame {
            start_byte: def.start_byte,
            end_byte: def.end_byte,
            kind: DefKind::Symbol(kind),
            symbol,
        });
    }
    symbols
}

/// `a::B::c` -> (`a::B`, `c`), splitting at the last `::` outside template
/// arguments; None when there is no such `::` or a side would be empty.
fn split_qualified(name: &str) -> Option<(&str, &str)> {
    let mut depth = 0i32;
    let mut split = None;
    let bytes = name.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'<' => depth += 1,
            b'>' => depth -= 1,
            b':' if depth == 0 && bytes.get(i + 1) == Some(&b':') => {
                split = Some(i);
                i += 1;
            }
            _ => {}
        }
        i += 1;
    }
    let i = split?;
    let (scope, last) = (name.get(..i)?.trim(), name.get(i + 2..)?.trim());
    (!scope.is_empty() && !last.is_empty()).then_some((scope, last))
}
