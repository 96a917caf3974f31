"""The ``toolcap`` command installed with the wheel: the same command line as the
Rust binary (``toolcap process``, ``toolcap continue``, ...), run through the
extension module."""

from __future__ import annotations

import os
import shutil
import sys

from . import _toolcap


def _script() -> str:
    """This command's path (the console script pip, pipx or uv wrote), as hooks that
    ``toolcap install`` writes should call it: the process itself is Python's."""
    me = sys.argv[0] if sys.argv else ""
    if me and os.path.basename(me).startswith("toolcap") and not me.endswith(".py") and os.path.isfile(me):
        return os.path.abspath(me)
    return shutil.which("toolcap") or me


def main() -> None:
    """Run ``toolcap`` with the process's arguments and exit with its code."""
    sys.stdout.flush()
    # `toolcap install` writes hooks that call this program: this script, not python
    os.environ["TOOLCAP_SELF"] = _script()
    sys.exit(_toolcap._run_cli(["toolcap", *sys.argv[1:]]))


if __name__ == "__main__":  # pragma: no cover
    main()
