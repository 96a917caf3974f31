"""The ``toolcap`` command installed with the wheel: the same command line as the
Rust binary (``toolcap process``, ``toolcap continue``, ...), run through the
extension module."""

from __future__ import annotations

import sys

from . import _toolcap


def main() -> None:
    """Run ``toolcap`` with the process's arguments and exit with its code."""
    sys.stdout.flush()
    sys.exit(_toolcap._run_cli(["toolcap", *sys.argv[1:]]))


if __name__ == "__main__":  # pragma: no cover
    main()
