#!/bin/sh
# Configure (once) and build into DIR (default: build) with extra meson
# options, e.g. scripts/build.sh build-asan -Db_sanitize=address,undefined
set -eu
cd "$(dirname "$0")/.."
dir=${1:-build}
[ $# -gt 0 ] && shift
if [ -f "$dir/build.ninja" ]; then
    meson configure "$dir" "$@" >/dev/null
else
    meson setup "$dir" "$@" >/dev/null
fi
ninja -C "$dir"
