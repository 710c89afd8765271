#!/bin/sh
# Check that the C sources follow .clang-format (make test runs this).
#   check-format.sh [CLANG_FORMAT]   default: clang-format (Debian 12's version 14, scripts/install-deps.sh)
# Exits 1 and names every file clang-format would change, 2 if clang-format is missing.
set -u
cf=${1:-clang-format}
cd "$(dirname "$0")/.." || exit 2
if ! command -v "$cf" >/dev/null 2>&1; then
  echo "check-format: $cf not found; install it (sh scripts/install-deps.sh)" >&2
  exit 2
fi
bad=""
for f in $(find src include apps tests/unit tests/programs tests/mpi bench -name '*.[ch]' | sort); do
  "$cf" --style=file --dry-run -Werror "$f" >/dev/null 2>&1 || bad="$bad $f"
done
if [ -n "$bad" ]; then
  echo "check-format: these files do not follow .clang-format:" >&2
  for f in $bad; do echo "  $f" >&2; done
  echo "check-format: fix them with: $cf -i --style=file$bad" >&2
  exit 1
fi
echo "check-format: OK"
