#!/bin/sh
# The main job: set up, build, fetch Debian 12's kernel and busybox
# (scripts/fetch-linux-guest.sh), and boot Linux to its busybox shell
# under the software CPU (-accel tcg -M pc) with -overcommit
# mem-lock=on-fault: the guest's console (its /init runs sha256sum, awk,
# dd and a floating-point program, then powers off through ACPI), then
# the emulator's VmRSS and VmLck beside the guest's RAM for each mem-lock
# mode, read while /init waits (hold=), and each run's exit status.
# Then the same guest from a disk image booted by the firmware (SeaBIOS)
# under mem-lock=on-fault. Last part: the project's "dirty" guest program
# under KVM, which enters long mode and dirties 256 MiB of its 1 GiB, with
# the same figures (without /dev/kvm: -machine none only).
set -eu
cd "$(dirname "$0")/.."

sh scripts/setup-debian.sh
sh scripts/build.sh build >/dev/null
sh scripts/fetch-linux-guest.sh build/guest-linux

QEMU=${QEMU:-build/qemu-system-x86_64}
GUEST=build/tests/guest/dirty.elf
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
field() { awk -v k="$1:" '$1 == k { print $2 " kB" }' "/proc/$2/status" 2>/dev/null; }

# Until the guest's /init says "init: holding" on $tmp/console, the
# emulator PID $1 ends, or 300 s pass (then the emulator is stopped).
wait_holding() {
    waited=0
    while ! grep -q "init: holding" "$tmp/console" 2>/dev/null; do
        kill -0 "$1" 2>/dev/null || break
        waited=$((waited + 1))
        if [ "$waited" -gt 3000 ]; then
            echo "main-job.sh: no 'init: holding' after 300 s" >&2
            kill -TERM "$1"
            break
        fi
        sleep 0.1
    done
}

LINUX=build/guest-linux
initrd="$tmp/initrd.cpio"
cat "$LINUX/initramfs.cpio" build/tests/guest/fpmath.cpio > "$initrd"

echo "== Debian's Linux under -accel tcg ($(cat "$LINUX/VERSION"))"
printf '%-10s %12s %12s %12s %s\n' mem-lock guest-RAM VmRSS VmLck exit
for mode in on-fault on off; do
    "$QEMU" -machine pc -accel tcg -m 1G -smp 2 -display none \
        -nodefaults -serial "file:$tmp/console" -no-reboot \
        -overcommit mem-lock=$mode -kernel "$LINUX/bzImage" \
        -initrd "$initrd" -append "console=ttyS0 panic=-1 hold=2" &
    qemu=$!
    wait_holding "$qemu"
    rss=$(field VmRSS "$qemu" || true)
    lck=$(field VmLck "$qemu" || true)
    status=0
    wait "$qemu" || status=$?
    if [ "$mode" = on-fault ]; then
        echo "--- guest console (mem-lock=on-fault) ---"
        cat "$tmp/console"
        echo "---"
    fi
    printf '%-10s %12s %12s %12s %s\n' "$mode" "1048576 kB" "$rss" "$lck" \
        "$status"
    rm -f "$tmp/console"
done

echo "== the same Linux from a disk image through the firmware (SeaBIOS)"
# A raw disk (scripts/make-boot-media.sh: SYSLINUX on FAT, no root) on
# IDE, -drive's default interface as in QEMU; -nographic mirrors the
# firmware's screen on COM1.
sh scripts/make-boot-media.sh "$tmp/disk.img" "$LINUX/bzImage" \
    "$LINUX/initramfs.cpio:build/tests/guest/fpmath.cpio" \
    "console=ttyS0 panic=-1 hold=2"
"$QEMU" -machine pc -accel tcg -m 1G -smp 2 -nographic -nodefaults \
    -serial "file:$tmp/console" -no-reboot -overcommit mem-lock=on-fault \
    -drive "file=$tmp/disk.img,format=raw" &
qemu=$!
wait_holding "$qemu"
rss=$(field VmRSS "$qemu" || true)
lck=$(field VmLck "$qemu" || true)
status=0
wait "$qemu" || status=$?
echo "--- guest console (firmware, mem-lock=on-fault) ---"
grep -a -E "SeaBIOS|Booting|SYSLINUX|Linux version|init:" "$tmp/console" |
    tr -d '\r' | sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g; s/\x1bc//g'
echo "---"
printf '%-10s %12s %12s %12s %s\n' mem-lock guest-RAM VmRSS VmLck exit
printf '%-10s %12s %12s %12s %s\n' on-fault "1048576 kB" "$rss" "$lck" \
    "$status"
rm -f "$tmp/console"

echo "== the guest kit's dirty program under -accel kvm"
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
