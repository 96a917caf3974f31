"""A real failing unittest run for toolcap's end-to-end tests with the real agents
(tests/agents_e2e.rs): the scripted model asks each agent's shell tool to run
`python3 -m unittest -v stdlib_all_test` here, about 75 KB of output.

One test per module of the installed Python standard library checks that the
module's `__all__`, when it assigns one, is a literal list or tuple of names.
A handful of stdlib modules build `__all__` with `+` or a call (asyncio, types,
tokenize, ...), so those tests fail, each naming the module, the line and the
expression; the rest pass. Standard library only, nothing to install.
"""
import ast
import os
import sysconfig
import unittest

STDLIB = sysconfig.get_paths()["stdlib"]
SKIP = {
    "__pycache__", "dist-packages", "ensurepip", "idlelib", "lib2to3", "site-packages",
    "test", "tests", "turtledemo",
}


def modules():
    for dirpath, dirnames, filenames in os.walk(STDLIB):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP and not d.startswith("config-"))
        for name in sorted(filenames):
            if name.endswith(".py"):
                path = os.path.join(dirpath, name)
                yield os.path.relpath(path, STDLIB).replace(os.sep, "/"), path


class AllIsLiteral(unittest.TestCase):
    pass


def make_test(rel, path):
    def test(self):
        with open(path, encoding="utf-8", errors="replace") as f:
            source = f.read()
        if "__all__" not in source:
            return
        for node in ast.parse(source, filename=path).body:
            if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
            ):
                try:
                    value = ast.literal_eval(node.value)
                except ValueError:
                    self.fail(
                        f"{rel}: __all__ is not a literal (line {node.lineno}): "
                        f"{type(node.value).__name__}"
                    )
                self.assertIsInstance(value, (list, tuple), f"{rel} (line {node.lineno})")
    return test


for _rel, _path in modules():
    _name = "test_all_is_literal__" + _rel[:-3].replace("/", "__").replace(".", "_")
    setattr(AllIsLiteral, _name, make_test(_rel, _path))


if __name__ == "__main__":
    unittest.main()
