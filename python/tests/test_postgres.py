"""PostgresStore: results kept in PostgreSQL (a package built with the `postgres`
feature; python/run-tests.sh builds it so), paged back exactly, and shared with the
CLI both ways. scripts/pg-cluster.sh starts a throwaway server for the session;
without PostgreSQL installed the tests say why and skip, except under CI=true,
where they fail (conftest.py)."""

from __future__ import annotations

import json
import os
import subprocess
from typing import Iterator

import pytest

import toolcap
from conftest import REPO, Cli

TEXT = "".join(f"{i}: größe ошибка 失败 😀\n" for i in range(1, 5001))


def _built_with_postgres() -> bool:
    try:
        toolcap.PostgresStore("postgres://u:p@127.0.0.1:1/x")
    except toolcap.StoreError as e:
        return "built without the `postgres` feature" not in str(e)
    return True


@pytest.fixture(scope="session")
def pg_url() -> Iterator[str]:
    why = None
    if not _built_with_postgres():
        why = "the package was built without PostgresStore (maturin develop --features postgres; python/run-tests.sh does)"
    else:
        r = subprocess.run(
            ["bash", str(REPO / "scripts" / "pg-cluster.sh"), str(os.getpid())], capture_output=True, text=True
        )
        if r.returncode == 0:
            yield r.stdout.strip()
            return
        if r.returncode != 3:
            pytest.fail(f"scripts/pg-cluster.sh failed (exit {r.returncode}): {r.stderr}")
        why = r.stderr.strip()
    if os.environ.get("CI") == "true":
        pytest.fail(f"the PostgreSQL tests cannot run under CI: {why}")
    pytest.skip(why)


def test_postgres_store_pages_back_exactly(pg_url: str) -> None:
    store = toolcap.PostgresStore(pg_url)
    assert isinstance(store, toolcap.PostgresStore)
    assert "@127.0.0.1" in store.url and pg_url.split(":")[2].split("@")[0] not in store.url  # no password
    assert "password" not in repr(store) and repr(store).startswith("PostgresStore(")
    p = toolcap.ToolResultProcessor(store=store, dialog="py-pg-1")
    out = p.process("read_file", TEXT, {"path": "multi.txt"}, "call_1")
    assert out.truncated
    assert out.stored is not None and out.stored["storage_type"] == "postgres"
    assert store.get("call_1", dialog="py-pg-1") == TEXT
    lines = TEXT.split("\n")
    r = p.get_continuation("call_1", start_line=4001, end_line=4003)
    assert r.text.startswith("\n".join(lines[4000:4003])), r.text[:200]
    f = json.loads(p.fetch_tool_output("call_1", 5, 40).text)
    assert f["tool_output"] == TEXT[5:45]
    meta = store.meta("call_1", dialog="py-pg-1")
    assert meta is not None and meta["size_chars"] == len(TEXT)
    assert p.get_continuation("nope").error == "not_stored"
    assert store.delete_dialog("py-pg-1") == 1
    assert store.get("call_1", dialog="py-pg-1") is None


def test_the_cli_and_python_share_a_postgres_store(pg_url: str, cli: Cli) -> None:
    # the store spec names it too, as the CLI's --store does
    store = toolcap.open_store(pg_url)
    assert isinstance(store, toolcap.PostgresStore)
    p = toolcap.ToolResultProcessor(store=store, dialog="py-pg-2")
    p.process("shell", TEXT, {"command": "make"}, "from_python")
    shown = cli.run("show", "--store", pg_url, "--dialog", "py-pg-2", "from_python").stdout
    assert shown.decode("utf-8") == TEXT
    cli.run(
        "process", "--store", pg_url, "--dialog", "py-pg-2", "--id", "from_cli", "--tool", "shell",
        "--arg", "command=make", "-", input=TEXT.encode(),
    )
    assert store.get("from_cli", dialog="py-pg-2") == TEXT
    assert len(store.list("py-pg-2")) == 2


def test_a_postgres_store_that_cannot_connect_is_a_store_error() -> None:
    with pytest.raises(toolcap.StoreError) as e:
        toolcap.PostgresStore("postgres://toolcap:secret@127.0.0.1:1/db")
    assert "127.0.0.1" in str(e.value) and "secret" not in str(e.value)
    with pytest.raises(ValueError, match="postgres:// or postgresql:// URL"):
        toolcap.PostgresStore("results.db")
