#!/usr/bin/env node
// Reference outline for JavaScript, TypeScript and TSX from the TypeScript
// compiler's own parser (npm `typescript`, installed by fetch.sh into
// $CORPUS/tsref), following the outline's rule: definitions at module level
// and inside containers (classes, interfaces, namespaces); nothing inside
// function bodies or initializers; a module wrapper (an immediately invoked
// function, a UMD factory) is not a function body; an overloaded function is
// one symbol at its first signature.
//
// Usage: node ts_outline.js FILE...   One JSON line per file:
//   {"file": F, "symbols": [{"kind": K, "name": N, "line": L}, ...]}
"use strict";
const fs = require("fs");
const path = require("path");
const corpus = process.env.TOOLCAP_CORPUS || path.join(require("os").homedir(), ".cache/toolcap-outline-corpus");
const ts = require(path.join(corpus, "tsref/node_modules/typescript"));

function strip(e) {
  while (e && (ts.isParenthesizedExpression(e) || ts.isPrefixUnaryExpression(e) || ts.isVoidExpression(e))) {
    e = ts.isPrefixUnaryExpression(e) || ts.isVoidExpression(e) ? e.operand || e.expression : e.expression;
  }
  return e;
}
const isFn = (e) => e && (ts.isFunctionExpression(e) || ts.isArrowFunction(e));

// The function bodies a statement wraps the module in, if it is a wrapper:
// (function(){...})(), (function(){...}()), (function(){...}).call(this),
// and the function arguments of such a call (UMD factories).
function wrapperBodies(stmt) {
  if (!ts.isExpressionStatement(stmt)) return null;
  const call = strip(stmt.expression);
  if (!call || !ts.isCallExpression(call)) return null;
  let callee = strip(call.expression);
  if (callee && ts.isPropertyAccessExpression(callee) && ["call", "apply"].includes(callee.name.text)) {
    callee = strip(callee.expression);
  }
  if (!isFn(callee)) return null;
  const bodies = [callee.body];
  for (const a of call.arguments) {
    const f = strip(a);
    if (isFn(f)) bodies.push(f.body);
  }
  return bodies.filter((b) => b && ts.isBlock(b));
}

// `forwardRef(...)`, `React.memo(...)`, `memo(forwardRef(...))`: a component.
function isComponentCall(e) {
  e = strip(e);
  if (!e || !ts.isCallExpression(e)) return false;
  const c = e.expression;
  const name = ts.isIdentifier(c) ? c.text : ts.isPropertyAccessExpression(c) ? c.name.text : "";
  return ["forwardRef", "memo"].includes(name);
}

function outlineFile(file) {
  const text = fs.readFileSync(file, "utf8");
  const kind = file.endsWith(".tsx") || file.endsWith(".jsx") ? ts.ScriptKind.TSX
    : file.endsWith(".ts") || file.endsWith(".mts") || file.endsWith(".cts") ? ts.ScriptKind.TS : ts.ScriptKind.JS;
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
  const out = [];
  const lineOf = (n) => sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1;
  let lastOverload = null; // name of a body-less function signature just seen
  const add = (k, nameNode, at) => out.push({ kind: k, name: nameNode.getText(sf), line: lineOf(nameNode) });

  function statements(list, inClass) {
    for (const s of list) statement(s, inClass);
  }
  function statement(s, inClass) {
    const bodies = wrapperBodies(s);
    if (bodies) {
      for (const b of bodies) statements(b.statements, false);
      return;
    }
    if (ts.isFunctionDeclaration(s) && s.name) {
      const name = s.name.text;
      if (!s.body) {
        if (lastOverload !== name) add("function", s.name);
        lastOverload = name;
        return;
      }
      if (lastOverload !== name) add("function", s.name);
      lastOverload = null;
      return;
    }
    lastOverload = null;
    if (ts.isClassDeclaration(s) && s.name) {
      add("class", s.name);
      members(s.members);
    } else if (ts.isInterfaceDeclaration(s)) {
      add("interface", s.name);
      // Consecutive signatures of one method are one symbol (overloads).
      let last = null;
      for (const m of s.members) {
        const name = ts.isMethodSignature(m) ? m.name.getText(sf) : null;
        if (name !== null && name !== last) add("method", m.name);
        last = name;
      }
    } else if (ts.isTypeAliasDeclaration(s)) {
      add("type", s.name);
    } else if (ts.isEnumDeclaration(s)) {
      add("enum", s.name);
    } else if (ts.isModuleDeclaration(s) && ts.isIdentifier(s.name)) {
      add("module", s.name);
      let b = s.body;
      while (b && ts.isModuleDeclaration(b)) b = b.body;
      if (b && ts.isModuleBlock(b)) statements(b.statements, false);
    } else if (ts.isModuleDeclaration(s) && s.body && ts.isModuleBlock(s.body)) {
      // declare module "x" { ... }
      add("module", s.name);
      statements(s.body.statements, false);
    } else if (ts.isVariableStatement(s)) {
      for (const d of s.declarationList.declarations) {
        if (!ts.isIdentifier(d.name) || !d.initializer) continue;
        const init = strip(d.initializer);
        if (isFn(init) || (init && ts.isFunctionExpression(init))) add("function", d.name);
        else if (init && ts.isClassExpression(init)) add("class", d.name);
        else if (isComponentCall(init)) add("function", d.name);
      }
    } else if (ts.isExpressionStatement(s)) {
      const e = s.expression;
      if (ts.isBinaryExpression(e) && e.operatorToken.kind === ts.SyntaxKind.EqualsToken &&
          ts.isPropertyAccessExpression(e.left) && isFn(strip(e.right))) {
        add("function", e.left.name);
      }
    } else if (ts.isIfStatement(s) || ts.isTryStatement(s) || ts.isBlock(s)) {
      // Module-level blocks: their definitions are module-level too.
      ts.forEachChild(s, (c) => { if (ts.isBlock(c)) statements(c.statements, false); else if (ts.isStatement(c)) statement(c, false); else if (ts.isCatchClause(c)) statements(c.block.statements, false); });
    } else if (ts.isExportAssignment(s)) {
      // export default ...: nothing named
    }
  }
  function members(list) {
    let last = null;
    for (const m of list) {
      if ((ts.isMethodDeclaration(m) || ts.isGetAccessor(m) || ts.isSetAccessor(m)) && m.name) {
        const name = m.name.getText(sf);
        if (ts.isMethodDeclaration(m) && !m.body && !(ts.getCombinedModifierFlags(m) & ts.ModifierFlags.Abstract)) {
          if (last !== name) add("method", m.name);
          last = name;
          continue;
        }
        if (last !== name) add("method", m.name);
        last = null;
      } else if (ts.isConstructorDeclaration(m)) {
        const kw = m.getChildren(sf).find((c) => c.kind === ts.SyntaxKind.ConstructorKeyword);
        if (!m.body) { if (last !== "constructor") out.push({ kind: "method", name: "constructor", line: lineOf(kw || m) }); last = "constructor"; continue; }
        if (last !== "constructor") out.push({ kind: "method", name: "constructor", line: lineOf(kw || m) });
        last = null;
      } else if (ts.isPropertyDeclaration(m) && m.initializer && isFn(strip(m.initializer))) {
        add("method", m.name);
        last = null;
      } else {
        last = null;
      }
    }
  }
  statements(sf.statements, false);
  return out;
}

for (const f of process.argv.slice(2)) {
  let symbols = [];
  try { symbols = outlineFile(f); } catch (e) { process.stderr.write(`${f}: ${e}\n`); }
  process.stdout.write(JSON.stringify({ file: f, symbols }) + "\n");
}
