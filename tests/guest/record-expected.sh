#!/bin/bash
# Run every guest program under Debian's QEMU (KVM and TCG) and record the
# serial output in expected/: CASE.txt when both accelerators agree,
# CASE.kvm.txt and CASE.tcg.txt when the loader's input differs (the e820
# map).  Prints exit status and timings per run.  Usage, after build.sh:
#   tests/guest/record-expected.sh [QEMU] [BUILDDIR]
# ONLY="case ..." in the environment records just those cases.
set -u
src=$(cd "$(dirname "$0")" && pwd)
qemu=${1:-/usr/bin/qemu-system-x86_64}
b=${2:-$src/build}
exp=$src/expected
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# name | timeout s | accels | args
cases=(
  "hello|30|kvm tcg|-m 512M -kernel $b/hello.elf -append foo+bar"
  "hello-modules|30|kvm tcg|-m 512M -kernel $b/hello-aout.bin -append x=1 -initrd $src/fixtures/module-one.txt arg1 arg2,$src/fixtures/module-two.txt"
  "smp-1|30|kvm tcg|-m 512M -smp 1 -kernel $b/smp.elf"
  "smp-4|30|kvm tcg|-m 512M -smp 4 -kernel $b/smp.elf"
  "dirty|30|kvm tcg|-m 512M -kernel $b/dirty.elf -append dirty=64"
  "dirty-high|60|kvm tcg|-m 5G -kernel $b/dirty.elf -append dirty=64+dirty_high=256"
  "timer|30|kvm tcg|-m 512M -kernel $b/timer.elf"
  "exceptions|30|tcg|-m 512M -kernel $b/exceptions.elf"
  "exceptions-soft-int-off|30|kvm tcg|-m 512M -kernel $b/exceptions.elf -append soft_int=off"
  "triple-fault|20|kvm tcg|-m 512M -kernel $b/triple-fault.elf"
  "syscall|30|tcg|-m 512M -kernel $b/syscall.elf"
  "syscall-intel|30|tcg|-m 512M -cpu qemu64,vendor=GenuineIntel -kernel $b/syscall.elf"
  "syscall-int3-only|30|kvm tcg|-m 512M -kernel $b/syscall.elf -append syscall_insn=off+soft_int=off"
  "privilege|30|tcg|-m 512M -kernel $b/privilege.elf"
  "privilege-soft-int-off|30|kvm tcg|-m 512M -kernel $b/privilege.elf -append soft_int=off"
  "pgedge|30|kvm|-m 512M -kernel $b/pgedge.elf"
  "pgedge-rsvd-off|30|kvm tcg|-m 512M -kernel $b/pgedge.elf -append rsvd=off"
  "cpubench|60|kvm tcg|-m 512M -kernel $b/cpubench.elf"
  "apictimer|30|kvm|-m 512M -cpu qemu64,+tsc-deadline -kernel $b/apictimer.elf"
  "apictimer-oneshot|30|kvm tcg|-m 512M -kernel $b/apictimer.elf -append tsc_deadline=off"
)

run() { # out timeout args... ; prints "rc first_ms total_ms"
    local out=$1 t=$2
    shift 2
    local s=$(date +%s%N)
    timeout "$t" "$qemu" -M pc -display none -serial stdio -no-reboot \
        -device isa-debug-exit,iobase=0xf4,iosize=0x4 "$@" \
        2>"$out.err" | while IFS= read -r l; do
            [ -e "$out.first" ] || echo $(( ($(date +%s%N) - s) / 1000000 )) > "$out.first"
            printf '%s\n' "$l"
        done > "$out"
    local rc=${PIPESTATUS[0]}
    echo "$rc $(cat "$out.first" 2>/dev/null || echo -) $(( ($(date +%s%N) - s) / 1000000 ))"
}

printf '%-24s %-4s %4s %9s %9s\n' case accel rc first_ms total_ms
for c in "${cases[@]}"; do
    IFS='|' read -r name t accels args <<< "$c"
    if [ -n "${ONLY:-}" ] && [[ " $ONLY " != *" $name "* ]]; then
        continue
    fi
    # Arguments are split on spaces; "+" in -append stands for a space.
    read -r -a argv <<< "$args"
    for i in "${!argv[@]}"; do
        [ "${argv[$((i > 0 ? i - 1 : 0))]}" = -append ] && argv[$i]=${argv[$i]//+/ }
    done
    # -initrd takes "path args,path": rejoin what the split tore apart.
    for i in "${!argv[@]}"; do
        if [ "${argv[$i]}" = -initrd ]; then
            argv[$((i + 1))]="${argv[*]:$((i + 1))}"
            argv=("${argv[@]:0:$((i + 2))}")
            break
        fi
    done
    for a in $accels; do
        r=$(run "$tmp/$name.$a" "$t" -accel "$a" "${argv[@]}")
        printf '%-24s %-4s %4s %9s %9s\n' "$name" "$a" $r
    done
    rm -f "$exp/$name".*txt
    set -- $accels
    if [ $# = 2 ] && cmp -s "$tmp/$name.kvm" "$tmp/$name.tcg"; then
        cp "$tmp/$name.kvm" "$exp/$name.txt"
    else
        for a in $accels; do cp "$tmp/$name.$a" "$exp/$name.$a.txt"; done
    fi
done
