#!/usr/bin/env python3
"""Aid for the hand audit of Swift outlines (no independent Swift parser is
installable here: see docs/outlines.md).

Usage: tools/outline-compare/swift_audit.py TOOLCAP [FILE...]

Without FILEs, audits the stated sample below (under the corpus fetch.sh
fetches). For each file prints, side by side, every line where a Swift
declaration keyword starts a declaration (`func`, `init`, `deinit`,
`subscript`, `class`, `struct`, `enum`, `actor`, `protocol`, `extension`,
`typealias`, after modifiers and attributes) and the outline's symbols,
marking keyword lines the outline does not list (`?`) and symbols on no such
line (`!`). The keyword scan is not a parser: every marked line, and every
listed one, is then checked by reading the source (is it inside a function
body or closure, which the outline leaves out? is the kind right? the
name?). That reading is the audit; this only makes sure no line is skipped.
"""

import json
import os
import re
import subprocess
import sys

CORPUS = os.environ.get("TOOLCAP_CORPUS", os.path.expanduser("~/.cache/toolcap-outline-corpus"))
SAMPLE = [
    "npm/expo-modules-core_1.12.26/package/ios/Api/Factories/AsyncFunctionFactories.swift",
    "npm/expo-modules-core_1.12.26/package/ios/Api/Factories/ClassFactories.swift",
    "npm/expo-modules-core_1.12.26/package/ios/Api/Factories/ObjectFactories.swift",
    "npm/expo-modules-core_1.12.26/package/ios/Core/DynamicTypes/DynamicTypedArrayType.swift",
    "npm/expo-modules-core_1.12.26/package/ios/Core/Exceptions/ChainableException.swift",
    "npm/expo-modules-core_1.12.26/package/ios/Core/Functions/AnyFunctionDefinition.swift",
    "npm/expo-modules-core_1.12.26/package/ios/ReactDelegates/ExpoReactDelegate.swift",
    "npm/expo-image_58.0.4/package/ios/Coders/WebPCoder.swift",
    "npm/expo-image_58.0.4/package/ios/ContentPosition.swift",
    "npm/expo-image_58.0.4/package/ios/Loaders/BlurhashLoader.swift",
]

DECL = re.compile(
    r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*"
    r"(?:(?:public|private|fileprivate|internal|open|final|static|class|override|"
    r"required|convenience|mutating|nonmutating|lazy|dynamic|indirect|nonisolated|"
    r"@objc|@MainActor|unowned|weak)(?:\([^)]*\))?\s+)*"
    r"(func|init|deinit|subscript|class|struct|enum|actor|protocol|extension|typealias)\b")


def main():
    toolcap, files = sys.argv[1], sys.argv[2:] or [os.path.join(CORPUS, f) for f in SAMPLE]
    for f in files:
        src = open(f, encoding="utf-8").read().split("\n")
        out = subprocess.run([toolcap, "outline", "--json", "--budget-ms", "0", f],
                             capture_output=True, text=True, check=True).stdout
        o = json.loads(out)
        syms = {}
        for s in o["symbols"]:
            syms.setdefault(s["line"], []).append(s)
        keyword_lines = {i + 1 for i, l in enumerate(src) if DECL.match(l)}
        print(f"== {f} ({len(src)} lines, {len(o['symbols'])} symbols, "
              f"syntax errors: {o.get('syntax_errors', False)})")
        for n in sorted(keyword_lines | set(syms)):
            text = src[n - 1].strip()[:70]
            listed = "; ".join(f"{'  ' * s['depth']}{s['kind']} {s['name']} {s['line']}-{s['end_line']}"
                               + (f" in {s['parent']}" if s.get("parent") else "")
                               for s in syms.get(n, []))
            mark = " " if n in keyword_lines and n in syms else ("?" if n in keyword_lines else "!")
            print(f"{mark} {n:5} {text:72} | {listed}")


if __name__ == "__main__":
    main()
