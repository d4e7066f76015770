#!/bin/sh
# The main job: set up, build, and start the emulator the way this
# release can run it: -machine none under each -overcommit mem-lock mode,
# printing what the kernel reports for it (VmSize, VmRSS, VmLck).
set -eu
cd "$(dirname "$0")/.."

sh scripts/setup-debian.sh
sh scripts/build.sh build >/dev/null

QEMU=${QEMU:-build/qemu-system-x86_64}
accel=qtest
[ -r /dev/kvm ] && [ -w /dev/kvm ] && accel=kvm
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

printf '%-10s %10s %10s %10s\n' mem-lock VmSize VmRSS VmLck
for mode in off on on-fault; do
    "$QEMU" -machine none -accel "$accel" -display none \
        -overcommit mem-lock=$mode -daemonize -pidfile "$tmp/pid"
    pid=$(cat "$tmp/pid")
    field() { awk -v k="$1:" '$1 == k { print $2 " kB" }' "/proc/$pid/status"; }
    printf '%-10s %10s %10s %10s\n' "$mode" "$(field VmSize)" \
        "$(field VmRSS)" "$(field VmLck)"
    kill -TERM "$pid"
    while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
done
