#!/bin/sh
# Build the libFuzzer targets of tests/fuzz with clang, ASan and UBSan in
# build-fuzz (configured once, -Dfuzzing=true) and run them.
#   scripts/fuzz.sh TARGET [SECONDS] [CORPUS]   fuzz one target (60 s)
#   scripts/fuzz.sh --all [SECONDS]             every target, SECONDS each
#                                               (20): the meson suite 'fuzz'
# TARGET is one of tests/fuzz/fuzz-TARGET.c (json-streamer, migration, ...). The
# corpus grows in build-fuzz/fuzz-corpus/TARGET unless CORPUS is given; an
# input that crashes, leaks, hangs or is slow is saved in
# build-fuzz/fuzz-artifacts/TARGET/. Exits non-zero if a target found one.
set -eu
cd "$(dirname "$0")/.."
usage="usage: scripts/fuzz.sh TARGET [SECONDS] [CORPUS] | --all [SECONDS]"
dir=build-fuzz
target=${1:?$usage}
targets=$(ls tests/fuzz/fuzz-*.c | sed 's|.*/fuzz-\(.*\)\.c$|\1|')

if [ "$target" = --all ]; then
    seconds=${2:-20}
else
    seconds=${2:-60}
    corpus=${3:-$dir/fuzz-corpus/$target}
    if [ ! -f "tests/fuzz/fuzz-$target.c" ]; then
        echo "scripts/fuzz.sh: unknown target '$target'; targets:" $targets >&2
        exit 1
    fi
fi

if [ ! -f $dir/build.ninja ]; then
    CC=clang meson setup $dir -Dfuzzing=true -Dfuzz_seconds="$seconds" \
        -Db_sanitize=address,undefined -Db_lundef=false >/dev/null
elif [ "$target" = --all ]; then
    meson configure $dir -Dfuzz_seconds="$seconds" >/dev/null
fi
# Only the fuzzers: the rest of the tree has its own builds.
ninja -C $dir $(for t in $targets; do echo tests/fuzz/fuzz-$t; done)

if [ "$target" = --all ]; then
    exec meson test -C $dir --no-rebuild --suite fuzz --print-errorlogs
fi
# The same arguments as the suite's tests (tests/fuzz/meson.build).
exec $dir/tests/fuzz/fuzz-"$target" -max_total_time="$seconds" \
    -timeout=20 -print_final_stats=1 -create_missing_dirs=1 \
    -dict=tests/fuzz/"$target".dict \
    -artifact_prefix="$PWD/$dir/fuzz-artifacts/$target/" "$corpus" \
    $([ -d tests/fuzz/"$target"-seeds ] && echo tests/fuzz/"$target"-seeds)
