#!/usr/bin/env python3
"""Outline accuracy per language on the corpora fetch.sh downloads.

Usage: tools/outline-compare/run.py TOOLCAP [--corpus DIR] [--lang LANG]... [--show N]
       [--markdown]

TOOLCAP is a built toolcap binary (target/debug/toolcap works; --budget-ms 0
is passed, so the build profile does not change the result). DIR defaults to
$TOOLCAP_CORPUS or ~/.cache/toolcap-outline-corpus. For each language and
project below, runs compare.py's comparison against the language's reference
(the TypeScript compiler for JS/TS/TSX, syn for Rust, scalac 2.11's parser for
Scala, Universal Ctags for the others) and prints recall, precision, kind agreement and end_line agreement,
per project and per language. --markdown prints the per-language table for docs/outlines.md.
"""

import glob
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import compare, pct, summary  # noqa: E402

# language -> [(project label, glob patterns under the corpus dir, max files)]
CORPORA = {
    "javascript": [
        ("underscore 1.13.7 (MIT)", ["npm/underscore_1.13.7/package/underscore.js",
                                     "npm/underscore_1.13.7/package/modules/*.js"], 80),
        ("jquery 3.7.1 (MIT)", ["npm/jquery_3.7.1/package/dist/jquery.js"], 1),
        ("backbone 1.6.0 (MIT)", ["npm/backbone_1.6.0/package/backbone.js"], 1),
        ("moment 2.30.1 (MIT)", ["npm/moment_2.30.1/package/moment.js",
                                 "npm/moment_2.30.1/package/src/lib/**/*.js"], 80),
        ("async 2.6.4 (MIT)", ["npm/async_2.6.4/package/dist/async.js"], 1),
        ("lodash 4.17.21 (MIT)", ["npm/lodash_4.17.21/package/[a-f]*.js"], 80),
    ],
    "typescript": [
        ("rxjs 7.8.1 (Apache-2.0)", ["npm/rxjs_7.8.1/package/src/internal/**/*.ts"], 150),
        ("zod 3.23.8 (MIT)", ["npm/zod_3.23.8/package/lib/**/*.d.ts"], 40),
        ("moment 2.30.1 (MIT)", ["npm/moment_2.30.1/package/moment.d.ts"], 1),
    ],
    "tsx": [
        ("@tanstack/react-query 5.59 (MIT)", ["npm/_tanstack_react-query_5.59.0/package/src/**/*.tsx"], 40),
        ("@tanstack/react-router 1.170 (MIT)", ["npm/_tanstack_react-router_1.170.46/package/src/**/*.tsx"], 60),
    ],
    "kotlin": [
        ("expo-modules-core 1.12 (MIT)", ["npm/expo-modules-core_1.12.26/package/android/**/*.kt"], 200),
        ("react-native-screens 4.28 (MIT)", ["npm/react-native-screens_4.28.0/package/android/**/*.kt"], 250),
        ("expo-image 58.0 (MIT)", ["npm/expo-image_58.0.4/package/android/**/*.kt"], 100),
    ],
    "csharp": [
        ("edge-js 22.1 (MIT)", ["npm/edge-js_22.1.0/package/**/*.cs"], 40),
        ("UniRx 7.1 (MIT)", ["npm/com.neuecc.unirx_7.1.0/package/**/*.cs"], 250),
    ],
    "c": [
        ("libuv 1.x headers (MIT)", ["deb/libuv1-dev/usr/include/**/*.h"], 40),
        ("glib 2.0 headers (LGPL-2.1+)", ["deb/libglib2.0-dev/usr/include/glib-2.0/glib/*.h"], 60),
        ("zlib 1.2.13 headers and examples (zlib)", ["deb/zlib1g-dev/usr/include/*.h",
                                                     "deb/zlib1g-dev/usr/share/doc/zlib1g-dev/examples/*.c"], 40),
        ("SQLite 3.40 sqlite3.h (public domain)", ["deb/libsqlite3-dev/usr/include/sqlite3.h"], 1),
        ("tree-sitter 0.27 runtime (MIT)", ["cargo/tree-sitter-0.27.1/src/*.c",
                                            "cargo/tree-sitter-0.27.1/src/*.h"], 60),
    ],
    "cpp": [
        ("leveldb headers (BSD-3)", ["deb/libleveldb-dev/usr/include/leveldb/*.h"], 40),
        ("fmt headers (MIT)", ["deb/libfmt-dev/usr/include/fmt/*.h"], 40),
        ("pybind11 headers (BSD-3)", ["deb/pybind11-dev/usr/include/pybind11/*.h",
                                      "deb/pybind11-dev/usr/include/pybind11/detail/*.h"], 60),
        ("googletest 1.12 headers (BSD-3)", ["deb/libgtest-dev/usr/include/gtest/**/*.h"], 60),
    ],
    "lua": [
        ("Penlight (MIT)", ["deb/lua-penlight/usr/share/lua/5.1/pl/*.lua"], 60),
        ("argparse 0.7 (MIT)", ["deb/lua-argparse/usr/share/lua/5.1/argparse.lua"], 1),
        ("busted 2.1 (MIT)", ["deb/lua-busted/usr/share/lua/5.1/busted/**/*.lua"], 60),
    ],
    "php": [
        ("Twig 3 (BSD-3)", ["deb/php-twig/usr/share/php/Twig/**/*.php"], 200),
        ("Symfony Console 5.4 (MIT)", ["deb/php-symfony-console/usr/share/php/Symfony/Component/Console/**/*.php"], 120),
        ("Monolog 2.9 (MIT)", ["deb/php-monolog/usr/share/php/Monolog/**/*.php"], 120),
    ],
    "go": [
        ("cobra (Apache-2.0)", ["deb/golang-github-spf13-cobra-dev/usr/share/gocode/src/**/*.go"], 60),
        ("logrus 1.9 (MIT)", ["deb/golang-github-sirupsen-logrus-dev/usr/share/gocode/src/**/*.go"], 60),
        ("pkg/errors 0.9 (BSD-2)", ["deb/golang-github-pkg-errors-dev/usr/share/gocode/src/**/*.go"], 20),
    ],
    "bash": [
        ("bash-completion (GPL-2+)", ["deb/bash-completion/usr/share/bash-completion/completions/[a-m]*"], 150),
        ("neofetch 7.1 (MIT)", ["deb/neofetch/usr/bin/neofetch"], 1),
        ("pass 1.7 (GPL-2+)", ["deb/pass/usr/bin/pass", "deb/pass/usr/share/pass/*.sh"], 10),
    ],
    "ruby": [
        ("rack (MIT)", ["deb/ruby-rack/usr/share/rubygems-integration/all/gems/rack-*/lib/**/*.rb"], 120),
        ("thor 1.2 (MIT)", ["deb/ruby-thor/usr/share/rubygems-integration/all/gems/thor-*/lib/**/*.rb"], 60),
        ("rake 13.0 (MIT)", ["deb/rake/usr/share/rubygems-integration/all/gems/rake-*/lib/**/*.rb"], 60),
    ],
    "rust": [
        ("serde 1.0.228 (MIT/Apache-2.0)", ["cargo/serde-1.0.228/src/**/*.rs"], 60),
        ("regex-syntax 0.8 (MIT/Apache-2.0)", ["cargo/regex-syntax-0.8.11/src/**/*.rs"], 60),
        ("clap_builder 4.6 (MIT/Apache-2.0)", ["cargo/clap_builder-4.6.7/src/**/*.rs"], 80),
        ("anyhow 1.0 (MIT/Apache-2.0)", ["cargo/anyhow-1.0.104/src/**/*.rs"], 30),
    ],
    "java": [
        ("JDK 25 java.util (GPL-2 + CE)", ["jdk/java.base/java/util/*.java"], 128),
        ("expo-modules-core 1.12 (MIT)", ["npm/expo-modules-core_1.12.26/package/android/**/*.java"], 100),
    ],
    "scala": [
        ("Scala 2.11.12 standard library (BSD-3)", ["debsrc/scala/scala-2.11.12/src/library/**/*.scala"], 600),
        ("Scala 2.11.12 reflect (BSD-3)", ["debsrc/scala/scala-2.11.12/src/reflect/**/*.scala"], 200),
        ("Scala 2.11.12 compiler (BSD-3)", ["debsrc/scala/scala-2.11.12/src/compiler/**/*.scala"], 400),
        ("Scala 2.11.12 actors (BSD-3)", ["debsrc/scala/scala-2.11.12/src/actors/**/*.scala"], 60),
        ("Scala 2.11.12 scalap (BSD-3)", ["debsrc/scala/scala-2.11.12/src/scalap/**/*.scala"], 30),
    ],
}


def files_for(corpus, patterns, limit):
    out = []
    for p in patterns:
        for f in sorted(glob.glob(os.path.join(corpus, p), recursive=True)):
            if os.path.isfile(f) and not os.path.islink(f) and f not in out:
                out.append(f)
    return out[:limit]


def main():
    args = sys.argv[1:]
    opts = {"--corpus": os.environ.get("TOOLCAP_CORPUS",
                                        os.path.expanduser("~/.cache/toolcap-outline-corpus")),
            "--show": "0"}
    langs = []
    markdown = "--markdown" in args
    args = [a for a in args if a != "--markdown"]
    rest = []
    i = 0
    while i < len(args):
        if args[i] in opts:
            opts[args[i]] = args[i + 1]
            i += 2
        elif args[i] == "--lang":
            langs.append(args[i + 1])
            i += 2
        else:
            rest.append(args[i])
            i += 1
    toolcap = rest[0]
    corpus, show = opts["--corpus"], int(opts["--show"])
    rows = []
    for lang, projects in CORPORA.items():
        if langs and lang not in langs:
            continue
        total = None
        labels = []
        for label, patterns, limit in projects:
            files = files_for(corpus, patterns, limit)
            if not files:
                print(f"{lang}: {label}: no files under {corpus} (run fetch.sh)", file=sys.stderr)
                continue
            # The project's macros are read from every header of its package
            # (npm/<pkg> or deb/<pkg>), not only the files compared.
            package = os.path.join(corpus, *patterns[0].split("/")[:2])
            macro_files = [f for f in glob.glob(os.path.join(package, "**", "*.h*"), recursive=True)
                           if os.path.isfile(f)]
            t, examples = compare(toolcap, lang, files, show, macro_files + files)
            print(f"  {label}: " + summary(lang, t))
            if show:
                print("    missing by kind:", t["missing"], " extra by kind:", t["extra"],
                      " kind (ctags, toolcap):", t["wrong_kind"])
                print("\n".join(examples))
            labels.append(f"{label}, {t['files']} file{'' if t['files'] == 1 else 's'}")
            if total is None:
                total = {k: v for k, v in t.items() if isinstance(v, int)}
            else:
                for k, v in t.items():
                    if isinstance(v, int):
                        total[k] += v
        if total:
            print(summary(lang, total))
            rows.append((lang, "; ".join(labels), total))
    if markdown:
        print("\n| language | projects (license, files) | lines | reference | toolcap | recall "
              "| precision | kind | end |")
        print("|---|---|---|---|---|---|---|---|---|")
        for lang, labels, t in rows:
            end = (f"{pct(t['end_same'], t['end_known'])} of {t['end_known']:,}"
                   if t["end_known"] else "n/a")
            print(f"| {lang} | {labels} | {t['lines']:,} | {t['ref']:,} | {t['got']:,} | "
                  f"{pct(t['matched'], t['ref'])} | {pct(t['matched'], t['got'])} | "
                  f"{pct(t['kind_same'], t['matched'])} | {end} |")


if __name__ == "__main__":
    main()
