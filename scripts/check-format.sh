#!/bin/sh
# Check that the C sources follow .clang-format (make test runs this).
#   check-format.sh [CLANG_FORMAT]   default: clang-format (Debian 12's version 14, scripts/install-deps.sh)
# Exits 1 and names every file clang-format would change (or cannot read), with its first complaint;
# 2 if clang-format is missing.
set -u
cf=${1:-clang-format}
cd "$(dirname "$0")/.." || exit 2
if ! command -v "$cf" >/dev/null 2>&1; then
  echo "check-format: $cf not found; install it (sh scripts/install-deps.sh)" >&2
  exit 2
fi
bad=""
report=""
for f in $(find src include apps tests/unit tests/programs tests/mpi bench -name '*.[ch]' | sort); do
  if ! complaint=$("$cf" --style=file --dry-run -Werror "$f" 2>&1 >/dev/null); then
    bad="$bad $f"
    report="$report
  $f: $(printf '%s\n' "$complaint" | head -n 1)"
  fi
done
if [ -n "$bad" ]; then
  echo "check-format: these files do not follow .clang-format:$report" >&2
  echo "check-format: fix them with: $cf -i --style=file$bad" >&2
  exit 1
fi
echo "check-format: OK"
