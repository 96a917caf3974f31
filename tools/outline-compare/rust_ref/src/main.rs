//! The reference outline of Rust files for tools/outline-compare: each
//! file parsed by `syn` (the parser proc macros use), its items listed by
//! the outline's rule: items at module level, in inline modules, impls and
//! traits; nothing inside function bodies or other expressions, except
//! the items of a `const _: () = { ... };` block (a common way to scope
//! impls). Functions in impls and traits are methods. Prints one JSON line
//! per file: {"file": ..., "symbols": [{"kind", "name", "line", "end_line"}]}.

use proc_macro2::Span;
use quote::ToTokens;
use syn::spanned::Spanned;

struct Out {
    symbols: Vec<String>,
}

impl Out {
    fn push(&mut self, kind: &str, name: &str, line: usize, end: Span) {
        self.symbols.push(format!(
            "{{\"kind\":\"{kind}\",\"name\":{},\"line\":{line},\"end_line\":{}}}",
            json(name),
            end.end().line
        ));
    }
}

fn json(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn items(out: &mut Out, items: &[syn::Item]) {
    for item in items {
        item_(out, item);
    }
}

fn item_(out: &mut Out, item: &syn::Item) {
    use syn::Item;
    let span = item.span();
    match item {
        Item::Fn(f) => out.push(
            "function",
            &f.sig.ident.to_string(),
            f.sig.ident.span().start().line,
            span,
        ),
        Item::Struct(s) => out.push(
            "struct",
            &s.ident.to_string(),
            s.ident.span().start().line,
            span,
        ),
        Item::Enum(e) => out.push(
            "enum",
            &e.ident.to_string(),
            e.ident.span().start().line,
            span,
        ),
        Item::Union(u) => out.push(
            "union",
            &u.ident.to_string(),
            u.ident.span().start().line,
            span,
        ),
        Item::Type(t) => out.push(
            "type",
            &t.ident.to_string(),
            t.ident.span().start().line,
            span,
        ),
        Item::Static(s) => out.push(
            "constant",
            &s.ident.to_string(),
            s.ident.span().start().line,
            span,
        ),
        Item::Const(c) if c.ident == "_" => {
            // `const _: () = { impl ... };`: its impls (and their methods)
            // are listed.
            if let syn::Expr::Block(b) = &*c.expr {
                for stmt in &b.block.stmts {
                    if let syn::Stmt::Item(i @ Item::Impl(_)) = stmt {
                        item_(out, i);
                    }
                }
            }
        }
        Item::Const(c) => out.push(
            "constant",
            &c.ident.to_string(),
            c.ident.span().start().line,
            span,
        ),
        Item::Mod(m) => {
            out.push(
                "module",
                &m.ident.to_string(),
                m.ident.span().start().line,
                span,
            );
            if let Some((_, inner)) = &m.content {
                items(out, inner);
            }
        }
        Item::Trait(t) => {
            out.push(
                "trait",
                &t.ident.to_string(),
                t.ident.span().start().line,
                span,
            );
            for ti in &t.items {
                match ti {
                    syn::TraitItem::Fn(f) => out.push(
                        "method",
                        &f.sig.ident.to_string(),
                        f.sig.ident.span().start().line,
                        ti.span(),
                    ),
                    syn::TraitItem::Type(ty) => out.push(
                        "type",
                        &ty.ident.to_string(),
                        ty.ident.span().start().line,
                        ti.span(),
                    ),
                    syn::TraitItem::Const(c) => out.push(
                        "constant",
                        &c.ident.to_string(),
                        c.ident.span().start().line,
                        ti.span(),
                    ),
                    _ => {}
                }
            }
        }
        Item::Impl(i) => {
            // Named by its self type, on the line the `impl` keyword is.
            let name = i.self_ty.to_token_stream().to_string();
            out.push("impl", &name, i.impl_token.span.start().line, span);
            for ii in &i.items {
                match ii {
                    syn::ImplItem::Fn(f) => out.push(
                        "method",
                        &f.sig.ident.to_string(),
                        f.sig.ident.span().start().line,
                        ii.span(),
                    ),
                    syn::ImplItem::Type(ty) => out.push(
                        "type",
                        &ty.ident.to_string(),
                        ty.ident.span().start().line,
                        ii.span(),
                    ),
                    syn::ImplItem::Const(c) => out.push(
                        "constant",
                        &c.ident.to_string(),
                        c.ident.span().start().line,
                        ii.span(),
                    ),
                    _ => {}
                }
            }
        }
        Item::Macro(m) => {
            if let Some(ident) = &m.ident {
                if m.mac.path.is_ident("macro_rules") {
                    out.push("macro", &ident.to_string(), ident.span().start().line, span);
                }
            }
        }
        _ => {}
    }
}

fn main() {
    for path in std::env::args().skip(1) {
        let mut out = Out {
            symbols: Vec::new(),
        };
        let error = match std::fs::read_to_string(&path) {
            Ok(src) => match syn::parse_file(&src) {
                Ok(file) => {
                    items(&mut out, &file.items);
                    None
                }
                Err(e) => Some(format!("{}: {e}", e.span().start().line)),
            },
            Err(e) => Some(e.to_string()),
        };
        println!(
            "{{\"file\":{},\"error\":{},\"symbols\":[{}]}}",
            json(&path),
            error.map_or("null".to_string(), |e| json(&e)),
            out.symbols.join(",")
        );
    }
}
