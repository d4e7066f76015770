#!/bin/sh
# VmSize/VmRSS/VmLck of "-machine none" per -overcommit mem-lock mode, for
# each QEMU-compatible binary given, medians of RUNS (default 5) runs.
# Usage: bench/memlock.sh [-a ACCEL] BINARY...   (prints a markdown table)
set -eu
accel=kvm
if [ "${1:-}" = "-a" ]; then accel=$2; shift 2; fi
runs=${RUNS:-5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
field() { awk -v k="$1:" '$1 == k { print $2 }' "/proc/$2/status"; }

echo "| binary | mem-lock | VmSize KiB | VmRSS KiB | VmLck KiB |"
echo "|---|---|---|---|---|"
for bin in "$@"; do
    name=$("$bin" -version | head -n 1)
    for mode in off on on-fault; do
        : > "$tmp/size"; : > "$tmp/rss"; : > "$tmp/lck"
        failed=""
        i=0
        while [ $i -lt "$runs" ]; do
            i=$((i + 1))
            rm -f "$tmp/pid"
            if ! "$bin" -machine none -accel "$accel" -display none \
                    -overcommit mem-lock=$mode -daemonize \
                    -pidfile "$tmp/pid" 2>"$tmp/err"; then
                failed=$(head -n 1 "$tmp/err")
                break
            fi
            pid=$(cat "$tmp/pid")
            # mem-lock=on may still be populating: wait for RSS to settle.
            prev=-1; rss=$(field VmRSS "$pid")
            while [ "$rss" != "$prev" ]; do
                sleep 0.2; prev=$rss; rss=$(field VmRSS "$pid")
            done
            field VmSize "$pid" >> "$tmp/size"
            echo "$rss" >> "$tmp/rss"
            field VmLck "$pid" >> "$tmp/lck"
            kill -TERM "$pid"
            while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
        done
        if [ -n "$failed" ]; then
            echo "| $name | $mode | fails: \`$failed\` | | |"
        else
            echo "| $name | $mode | $(median < "$tmp/size") |" \
                 "$(median < "$tmp/rss") | $(median < "$tmp/lck") |"
        fi
    done
done
