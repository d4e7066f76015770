#!/bin/sh
# The main job: set up, build, and boot the richest guest this host runs:
# the project's own "dirty" guest under KVM with -overcommit
# mem-lock=on-fault, which enters long mode, dirties 256 MiB of its 1 GiB
# and reports on the serial console. Then the emulator's memory figures
# beside the guest's RAM, for each mem-lock mode, and an orderly SIGTERM.
# Without /dev/kvm it falls back to -machine none (no guest).
set -eu
cd "$(dirname "$0")/.."

sh scripts/setup-debian.sh
sh scripts/build.sh build >/dev/null

QEMU=${QEMU:-build/qemu-system-x86_64}
GUEST=build/tests/guest/dirty.elf
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
field() { awk -v k="$1:" '$1 == k { print $2 " kB" }' "/proc/$2/status"; }

if ! [ -r /dev/kvm ] || ! [ -w /dev/kvm ]; then
    echo "no usable /dev/kvm: showing -machine none only"
    for mode in off on on-fault; do
        "$QEMU" -machine none -accel qtest -display none \
            -overcommit mem-lock=$mode -daemonize -pidfile "$tmp/pid"
        pid=$(cat "$tmp/pid")
        echo "mem-lock=$mode: VmRSS $(field VmRSS "$pid"), VmLck $(field VmLck "$pid")"
        kill -TERM "$pid"
        while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
    done
    exit 0
fi

printf '%-10s %12s %12s %12s %s\n' mem-lock guest-RAM VmRSS VmLck console
for mode in on-fault off on; do
    # The guest halts after its report (no isa-debug-exit device here),
    # so the figures are read while it is still there.
    "$QEMU" -machine pc -accel kvm -m 1G -display none -nodefaults \
        -serial "file:$tmp/console" -overcommit mem-lock=$mode \
        -kernel "$GUEST" -append "dirty=256" -pidfile "$tmp/pid" &
    qemu=$!
    while ! grep -q "PASS\|FAIL" "$tmp/console" 2>/dev/null; do
        sleep 0.05
    done
    if [ "$mode" = on-fault ]; then
        echo "--- guest console (mem-lock=on-fault) ---"
        cat "$tmp/console"
        echo "---"
    fi
    printf '%-10s %12s %12s %12s %s\n' "$mode" "1048576 kB" \
        "$(field VmRSS "$qemu")" "$(field VmLck "$qemu")" \
        "$(tail -n 1 "$tmp/console")"
    kill -TERM "$qemu"
    wait "$qemu"
    rm -f "$tmp/console"
done
