#!/usr/bin/env python3
"""Real text in legacy encodings, for the tests of decoding (tests/audit_fixes.rs).

The text is real: the translated messages of the machine's own programs
(/usr/share/locale/LANG/LC_MESSAGES/*.mo: coreutils, bash, apt...), read with
Python's gettext, one message per line. Each language is written in the legacy
encodings its users had (Shift_JIS and EUC-JP for Japanese, GBK for simplified
Chinese, Big5 for traditional, EUC-KR (cp949) for Korean, KOI8-R and windows-1251 for
Russian, windows-1252 for French and German) with Python's codecs; messages a
codec cannot encode are left out. For each, OUT/NAME.txt holds the encoded bytes
and OUT/NAME.utf8.txt the same text in UTF-8.

    python3 scripts/legacy-text.py OUT [MIN_BYTES]

prints one line per file written: NAME CODEC ENCODING(as WHATWG names it) BYTES.
"""

import gettext
import os
import sys

# (name, locale, Python codec, the WHATWG name encoding_rs gives it)
TARGETS = [
    ("ja-sjis", "ja", "shift_jis", "Shift_JIS"),
    ("ja-eucjp", "ja", "euc_jp", "EUC-JP"),
    ("zh-gbk", "zh_CN", "gbk", "GBK"),
    ("zh-big5", "zh_TW", "big5", "Big5"),
    # (cp949: EUC-KR as Windows and the WHATWG standard extend it, and as
    # Korean files were written)
    ("ko-cp949", "ko", "cp949", "EUC-KR"),
    ("ru-koi8r", "ru", "koi8_r", "KOI8-R"),
    ("ru-cp1251", "ru", "cp1251", "windows-1251"),
    ("fr-cp1252", "fr", "cp1252", "windows-1252"),
    ("de-latin1", "de", "latin_1", "windows-1252"),
]

DOMAINS = ["coreutils", "bash", "apt", "dpkg", "grep", "findutils", "diffutils", "tar"]


def messages(locale):
    """The translated messages of `locale`, in the order of the catalogues."""
    out = []
    for d in DOMAINS:
        path = f"/usr/share/locale/{locale}/LC_MESSAGES/{d}.mo"
        if not os.path.exists(path):
            continue
        with open(path, "rb") as f:
            try:
                cat = gettext.GNUTranslations(f)
            except OSError:
                continue
        for key, value in cat._catalog.items():
            if isinstance(key, tuple):
                key = key[0]
            if not key or not value:
                continue
            for line in value.splitlines():
                line = line.strip()
                if line and not line.isascii():
                    out.append(line)
    return out


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: legacy-text.py OUT [MIN_BYTES]")
    out_dir = sys.argv[1]
    min_bytes = int(sys.argv[2]) if len(sys.argv) > 2 else 20000
    os.makedirs(out_dir, exist_ok=True)
    for name, locale, codec, whatwg in TARGETS:
        lines = []
        size = 0
        for m in messages(locale):
            try:
                b = m.encode(codec)
            except UnicodeEncodeError:
                continue
            lines.append(m)
            size += len(b) + 1
            if size >= min_bytes:
                break
        if size < min_bytes:
            continue
        text = "\n".join(lines) + "\n"
        with open(os.path.join(out_dir, name + ".txt"), "wb") as f:
            f.write(text.encode(codec))
        with open(os.path.join(out_dir, name + ".utf8.txt"), "wb") as f:
            f.write(text.encode("utf-8"))
        print(name, codec, whatwg, len(text.encode(codec)))


if __name__ == "__main__":
    main()
