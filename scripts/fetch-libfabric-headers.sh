#!/bin/sh
# fetch-libfabric-headers.sh DEST: libfabric 2.x public headers under DEST/usr/include/rdma, for the
# provider flavour that the PyPI mpich 5 wheel loads (it asks for API 2.5; Debian 12's libfabric-dev is
# 1.17; docs/mpi.md "Dependencies").
# Downloads Debian trixie's libfabric-dev with `apt-get download` under a private sources list, state and
# cache in DEST/apt, and unpacks it with `dpkg -x` into DEST: nothing is installed system-wide, no system
# apt state changes, so it works as root and as any user who can write DEST.
# Idempotent: does nothing when DEST already holds libfabric 2.x headers.
# The Debian mirror is the one this machine's apt uses for its own release (OPENSCC_DEBIAN_MIRROR overrides).
# apt's output goes to DEST/apt/fetch.log; on failure its tail is shown and the exit status is 1.
set -eu
if [ $# -ne 1 ] || [ -z "$1" ]; then
  echo "usage: fetch-libfabric-headers.sh DEST" >&2
  exit 2
fi
dest=$1
header="$dest/usr/include/rdma/fabric.h"
suite=trixie                                         # libfabric-dev 2.1.x
keyring=/usr/share/keyrings/debian-archive-keyring.gpg # has trixie's archive keys (Debian 12 and later)

fail() {
  echo "fetch-libfabric-headers: $*" >&2
  exit 1
}
# major_version FILE: libfabric's FI_MAJOR_VERSION as defined in FILE (empty when none).
major_version() {
  sed -n 's/^#define[[:space:]]*FI_MAJOR_VERSION[[:space:]]*\([0-9]*\).*/\1/p' "$1"
}

if [ -e "$header" ]; then
  [ "$(major_version "$header")" = 2 ] && exit 0
  fail "$dest/usr holds libfabric headers of another major version than 2 ($header); remove $dest/usr and rerun"
fi
[ -e "$dest/usr" ] && fail "$dest/usr exists but has no $header; remove $dest/usr and rerun"
[ -r "$keyring" ] || fail "no $keyring: install Debian's debian-archive-keyring"

# apt reads relative Dir:: paths as relative to its own directories: make DEST absolute.
mkdir -p "$dest" && dest=$(cd "$dest" && pwd) || fail "cannot create $dest"
state="$dest/apt"
log="$state/fetch.log"
mkdir -p "$state/lists/partial" "$state/cache/archives/partial" "$state/preferences.d" || fail "cannot create $state"
: >"$log"
# run FAILURE COMMAND...: the command's output goes to the log; if it fails: FAILURE, the log's tail, exit 1.
run() {
  failure=$1
  shift
  echo "== $*" >>"$log"
  if ! "$@" >>"$log" 2>&1; then
    echo "fetch-libfabric-headers: $failure; the last lines of $log:" >&2
    tail -n 15 "$log" >&2
    exit 1
  fi
}

mirror=${OPENSCC_DEBIAN_MIRROR:-}
if [ -z "$mirror" ]; then
  # The URI of this machine's Debian archive: the source of its own release (not -updates/-security).
  codename=$(sed -n 's/^VERSION_CODENAME=//p' /etc/os-release 2>/dev/null) || codename=""
  mirror=$(apt-get indextargets --no-release-info --format '$(REPO_URI)' "Release: $codename" \
    'Identifier: Packages' 2>/dev/null | head -n 1)
  [ -n "$mirror" ] || fail "no Debian source for '$codename' in this machine's apt configuration; set OPENSCC_DEBIAN_MIRROR to a Debian mirror's URI"
fi
# Only the Packages indices: the machine's apt.conf.d may enable further targets (DEP-11, Contents).
echo "deb [signed-by=$keyring target=Packages] $mirror $suite main" >"$state/sources.list"

# apt with everything it reads or writes for the package lists under $state, except the system's dpkg
# status (read only); the preferences are empty (no file, an empty directory) so that no local pin
# changes the candidate.
# Error-Mode=any: an index that cannot be fetched (offline) fails the update instead of a warning.
private_apt() {
  apt-get -q \
    -o Dir::Etc::sourcelist="$state/sources.list" -o Dir::Etc::sourceparts=- \
    -o Dir::Etc::preferences="$state/preferences" -o Dir::Etc::preferencesparts="$state/preferences.d" \
    -o Dir::State::Lists="$state/lists" -o Dir::Cache="$state/cache" \
    -o APT::Update::Error-Mode=any "$@"
}
# download_deb: apt-get download writes into the current directory.
download_deb() (
  cd "$state" && private_apt download libfabric-dev
)
echo "fetch-libfabric-headers: downloading Debian $suite's libfabric-dev into $dest (log: $log)"
run "cannot fetch Debian $suite's package lists from $mirror (offline?)" private_apt update
rm -f "$state"/libfabric-dev_*.deb
run "cannot download libfabric-dev from Debian $suite" download_deb
set -- "$state"/libfabric-dev_*.deb
[ -e "$1" ] || fail "apt-get download left no libfabric-dev_*.deb in $state"

# Unpack beside DEST/usr and move it into place last, so that an interrupted run leaves no partial tree.
rm -rf "$state/unpack"
run "cannot unpack $1" dpkg -x "$1" "$state/unpack"
[ "$(major_version "$state/unpack/usr/include/rdma/fabric.h")" = 2 ] ||
  fail "$1 holds no libfabric 2.x headers"
mv "$state/unpack/usr" "$dest/usr"
rmdir "$state/unpack"
echo "fetch-libfabric-headers: $(basename "$1") unpacked into $dest"
