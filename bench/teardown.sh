#!/bin/sh
# Teardown writes per guest RAM backend for each QEMU-compatible binary:
# net bytes the process left to write (/proc/PID/io of its zombie), the
# disk's writes until SETTLE s after exit, and exit latency; a markdown
# table of medians over RUNS runs. See bench/teardown.py for the knobs
# (RUNS=3, SETTLE=35, ROWS=file-keep,file-discard,file-private,mem-path,
# memfd,anon, BENCH_DIR, EXIT=quit|sigterm).
# Usage: bench/teardown.sh BINARY...
# A full run takes about rows x RUNS x binaries x (SETTLE + 3) seconds:
#   nohup bench/teardown.sh build/qemu-system-x86_64 \
#       /usr/bin/qemu-system-x86_64 > teardown.md 2> teardown.log &
exec python3 "$(dirname "$0")/teardown.py" "$@"
