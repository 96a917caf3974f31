#!/usr/bin/env bash
# A throwaway PostgreSQL server for the Python and Node tests (the Rust tests start
# theirs in tests/support/pg.rs, the same way).
#
#   url="$(bash scripts/pg-cluster.sh OWNER_PID)"
#
# Starts a cluster (initdb in a temporary directory, pg_ctl start on a free port of
# 127.0.0.1, password authentication over TCP, fsync off; as `nobody` when run as
# root, since PostgreSQL refuses to run as root) and prints its URL,
# postgres://toolcap:PASSWORD@127.0.0.1:PORT/postgres. A watcher stops the server
# and deletes the directory once the process OWNER_PID has exited.
#
# The binaries are found in $TOOLCAP_PG_BIN, else the newest /usr/lib/postgresql/*/bin
# (Debian's `postgresql` package), else on PATH. Exit status 3 (and why on stderr)
# when PostgreSQL is not installed; 1 when it is but the server does not start.
set -euo pipefail
owner="${1:?usage: pg-cluster.sh OWNER_PID (the process whose exit stops the server)}"

bin="${TOOLCAP_PG_BIN:-}"
if [ -z "$bin" ]; then
  bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)"
  if [ -z "$bin" ] || [ ! -x "$bin/initdb" ]; then
    initdb="$(command -v initdb || true)"
    bin="${initdb:+$(dirname "$initdb")}"
  fi
fi
if [ -z "$bin" ] || [ ! -x "$bin/initdb" ] || [ ! -x "$bin/pg_ctl" ]; then
  echo "PostgreSQL is not installed (no initdb in \$TOOLCAP_PG_BIN, /usr/lib/postgresql/*/bin or PATH); install it with \`apt-get install postgresql\`" >&2
  exit 3
fi

as=()
dir="$(mktemp -d "${TMPDIR:-/tmp}/toolcap-pg-XXXXXX")"
if [ "$(id -u)" = 0 ]; then
  as=(runuser -u nobody --)
  chown nobody "$dir"
fi
password="pw-$$-$RANDOM$RANDOM"
printf '%s' "$password" >"$dir/pw"
[ "${#as[@]}" -gt 0 ] && chown nobody "$dir/pw"

fail() {
  echo "pg-cluster.sh: $1" >&2
  [ -f "$dir/log" ] && tail -20 "$dir/log" >&2
  rm -rf "$dir"
  exit 1
}

"${as[@]}" "$bin/initdb" -D "$dir/data" -U toolcap -E UTF8 --locale=C --no-sync \
  --auth-host=scram-sha-256 --auth-local=trust --pwfile="$dir/pw" >"$dir/initdb.log" 2>&1 ||
  fail "initdb failed: $(tail -5 "$dir/initdb.log")"

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2>/dev/null ||
    echo $((20000 + RANDOM % 40000))
}

started=""
for _ in 1 2 3 4 5; do
  port="$(free_port)"
  if "${as[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/log" -w -t 60 \
    -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200" start >/dev/null 2>&1; then
    started=1
    break
  fi
done
[ -n "$started" ] || fail "pg_ctl start failed on 5 ports"

# the watcher: once the owner is gone, stop the server and delete it all
stop="${as[*]} '$bin/pg_ctl' -D '$dir/data' stop -m immediate"
setsid bash -c "while kill -0 $owner 2>/dev/null; do sleep 1; done; $stop >/dev/null 2>&1; rm -rf '$dir'" \
  </dev/null >/dev/null 2>&1 &

echo "postgres://toolcap:$password@127.0.0.1:$port/postgres"
