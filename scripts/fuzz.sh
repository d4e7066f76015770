#!/bin/sh
# Build a libFuzzer target with clang (ASan + UBSan) and run it.
# Usage: scripts/fuzz.sh qtest-line|json-streamer [SECONDS] [CORPUS_DIR]
set -eu
cd "$(dirname "$0")/.."
target=${1:?usage: scripts/fuzz.sh TARGET [SECONDS] [CORPUS]}
seconds=${2:-60}
corpus=${3:-}
[ -f build/config-host.h ] || meson setup build >/dev/null
ninja -C build qemu-options.def >/dev/null

out=build/fuzz-$target
# Everything but main(): the targets call into the emulator's modules.
srcs=$(ls util/*.c system/*.c accel/*.c accel/*/*.c qom/*.c hw/*/*.c \
          chardev/*.c monitor/*.c | grep -v '^system/main.c$')
clang -std=gnu11 -D_GNU_SOURCE -g -O1 \
    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    -Iinclude -I. -Ibuild $(pkg-config --cflags glib-2.0 json-glib-1.0) \
    -Wno-unused-command-line-argument \
    tests/fuzz/fuzz-$target.c $srcs \
    $(pkg-config --libs glib-2.0 json-glib-1.0) -lm -o "$out"
mkdir -p "build/fuzz-$target-corpus"
exec "$out" -max_total_time="$seconds" -print_final_stats=1 \
    ${corpus:-"build/fuzz-$target-corpus"}
