#!/bin/bash
# Run every guest program under Debian's QEMU (KVM and TCG) and record the
# serial output in expected/: CASE.txt when both accelerators agree,
# CASE.kvm.txt and CASE.tcg.txt when the loader's input differs (the e820
# map).  The cases are tests/guest/cases.txt.  Prints exit status and
# timings per run.  Usage, after build.sh:
#   tests/guest/record-expected.sh [QEMU] [BUILDDIR]
# ONLY="case ..." in the environment records just those cases.
set -u
src=$(cd "$(dirname "$0")" && pwd)
qemu=${1:-/usr/bin/qemu-system-x86_64}
b=${2:-$src/build}
exp=$src/expected
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The cases: tests/guest/cases.txt (name | timeout | accels | args), the
# same list tests/functional/test-tcg runs.
cases=()
while IFS= read -r line; do
    case $line in ''|'#'*) continue ;; esac
    # "a | b" -> "a|b"; $build and $src name the two directories.
    line=$(printf '%s\n' "$line" | sed 's/[[:space:]]*|[[:space:]]*/|/g')
    line=${line//\$build/$b}
    line=${line//\$src/$src}
    cases+=("$line")
done < "$src/cases.txt"

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
