"""The used-facts rule on two hand-checked cases (real text: the Python 3.11 standard library).

    python3 -m unittest benches/nextuse/test_rule.py
"""

import os
import re
import sys
import sysconfig
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import rule  # noqa: E402
import run  # noqa: E402

LIB = Path(sysconfig.get_paths()["stdlib"])


class UsedFacts(unittest.TestCase):
    def test_numbered_read_then_sed_and_edit(self):
        # `cat -n configparser.py | head -400`, then a sed of lines 255-262, an edit of the
        # class on line 255 and a grep for a constant of the file
        src = (LIB / "configparser.py").read_text().splitlines()
        self.assertEqual(src[254], "class InterpolationError(Error):")
        result = "\n".join(f"{i + 1:6}\t{ln}" for i, ln in enumerate(src[:400]))
        prior = "Fix configparser.py's DuplicateOptionError\ncat -n configparser.py | head -400"
        nxt = [
            {"tool": "Bash", "args": {"command": "sed -n '255,262p' configparser.py"}},
            {"tool": "Edit", "args": {
                "file_path": "configparser.py",
                "old_string": 'class InterpolationError(Error):\n    """Base class for interpolation-related exceptions."""',
                "new_string": 'class InterpolationError(Error):\n    """Base class for interpolation errors."""'}},
            {"tool": "Bash", "args": {"command": "grep -n 'MAX_INTERPOLATION_DEPTH' configparser.py"}},
        ]
        facts = rule.used_facts(result, prior, nxt)
        self.assertEqual(
            [(f["kind"], f["token"]) for f in facts],
            [
                ("number", "255"),
                ("number", "262"),
                ("edited line", "class InterpolationError(Error):"),
                ("edited line", '"""Base class for interpolation-related exceptions."""'),
                ("quoted", "MAX_INTERPOLATION_DEPTH"),
            ],
        )
        # the edit's new line, the path (seen before) and the words of the docstring are no facts;
        # all five lie past the first 2,000 chars, so a blind head keeps none and the whole all
        self.assertEqual(sum(rule.kept(f, run.head(result)) for f in facts), 0)
        self.assertEqual(sum(rule.kept(f, result) for f in facts), 5)

    def test_grep_then_reads_of_the_files_it_named(self):
        # `grep -rn import json/`, then a Read of one file it named, a sed of another and a
        # run of `python3 -c` that uses nothing from it
        lines = []
        for f in sorted(os.listdir(LIB / "json")):
            if f.endswith(".py"):
                for i, ln in enumerate((LIB / "json" / f).read_text().splitlines(), 1):
                    if re.match(r"\s*(import|from)\s", ln):
                        lines.append(f"json/{f}:{i}:{ln}")
        result = "\n".join(lines)
        prior = "Where does the json package import re? We read json/decoder.py. grep -rn import json/"
        nxt = [
            {"tool": "Read", "args": {"file_path": "json/scanner.py"}},
            {"tool": "Bash", "args": {"command": "sed -n '1,12p' json/encoder.py json/decoder.py"}},
            {"tool": "Bash", "args": {"command": "python3 -c 'import json; print(json.dumps([1]))'"}},
        ]
        facts = rule.used_facts(result, prior, nxt)
        self.assertEqual(
            [(f["kind"], f["token"]) for f in facts],
            [("path", "json/scanner.py"), ("identifier", "scanner"),
             ("path", "json/encoder.py"), ("identifier", "encoder")],
        )
        # json/decoder.py (and its name) is in the result too, but the agent had seen it before;
        # nothing of the third action is in the result: alone it uses nothing
        self.assertEqual(rule.used_facts(result, prior, nxt[2:]), [])


if __name__ == "__main__":
    unittest.main()
