#!/usr/bin/env python3
"""The outline on files with syntax errors, before and after a change:
definitions found right out of the reference's.

Usage: tools/outline-compare/syntax_errors.py BEFORE AFTER LANG FILE...

BEFORE and AFTER are two toolcap binaries (e.g. main's and a branch's). The
reference is compare.py's (Universal Ctags, mapped to the outline's kinds and
rule). A definition is found right when the outline lists it at the
reference's line, with its kind (so a method listed as a top-level function
is wrong), and with the reference's end line where the reference gives one
(so a class cut short at the error is wrong). Prints one line per file where
the two differ, then the totals.
"""

import sys

import compare


def right(toolcap, lang, path, ref, ref_ends):
    got, got_ends, _ = compare.toolcap_symbols(toolcap, lang, path)
    ref_k = {(k[1], k[2]): (compare.coarse(lang, k)[0], ref_ends.get(k)) for k in ref}
    got_k = {(k[1], k[2]): (compare.coarse(lang, k)[0], got_ends.get(k)) for k in got}
    n = 0
    for key, (kind, end) in ref_k.items():
        g = got_k.get(key)
        if g and g[0] == kind and (end is None or g[1] == end):
            n += 1
    return n


def main():
    before, after, lang, files = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    total = rb = ra = 0
    for f in files:
        ref, ref_ends = compare.reference_tags(lang, f)
        b = right(before, lang, f, ref, ref_ends)
        a = right(after, lang, f, ref, ref_ends)
        total += len(ref)
        rb += b
        ra += a
        if a != b:
            print(f"  {f}: {b} -> {a} of {len(ref)}")
    pct = lambda n: f"{n / total:.1%}" if total else "n/a"
    print(f"{lang}: {len(files)} files, reference {total}; found right before {rb} ({pct(rb)}), "
          f"after {ra} ({pct(ra)})")


if __name__ == "__main__":
    main()
