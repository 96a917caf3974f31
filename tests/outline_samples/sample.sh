#!/bin/bash
set -e
usage() {
  echo "usage"
}
function main {
  inner() { :; }
  usage
}
if true; then
  guarded() { :; }
fi
main "$@"
