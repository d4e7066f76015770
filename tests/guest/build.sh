#!/bin/sh
# Build the guest programs by hand (meson.build does the same in the
# project build): tests/guest/build.sh [OUTDIR], default tests/guest/build.
# Needs gcc and binutils only.  Outputs per program: NAME.elf (ELF32, what
# -kernel takes), NAME.elf64 (with symbols, for gdb); hello-aout.bin,
# a flat image that boots through the multiboot a.out-kludge path; and
# hello-low.elf, hello linked at 0x8000.
set -eu

src=$(cd "$(dirname "$0")" && pwd)
out=${1:-$src/build}
CC=${CC:-gcc}
OBJCOPY=${OBJCOPY:-objcopy}

# Keep in step with GUEST_CFLAGS/GUEST_LDFLAGS in meson.build.
CFLAGS="-m64 -std=gnu11 -O2 -g -ffreestanding -fno-pic -fno-pie
 -fno-stack-protector -fno-asynchronous-unwind-tables -mno-red-zone
 -mgeneral-regs-only -mcmodel=small -Wall -Wextra -Wno-unused-parameter
 -I$src/lib"
LDFLAGS="-m64 -nostdlib -static -no-pie -Wl,-T,$src/lib/link.ld
 -Wl,-z,max-page-size=0x1000 -Wl,--build-id=none -Wl,-z,noexecstack
 -Wl,--no-warn-rwx-segments"
LIB="start print paging idt apic fw_cfg user"

mkdir -p "$out/obj"
cc() { # source object [extra flags]
    $CC $CFLAGS $3 -c "$1" -o "$2"
}

libobjs=
for f in $LIB; do
    cc "$src/lib/$f.c" "$out/obj/$f.o" ""
    libobjs="$libobjs $out/obj/$f.o"
done
cc "$src/lib/isr.S" "$out/obj/isr.o" ""
cc "$src/lib/user.S" "$out/obj/user-asm.o" ""
cc "$src/lib/entry.S" "$out/obj/entry.o" ""
cc "$src/lib/entry.S" "$out/obj/entry-aout.o" "-DAOUT_KLUDGE"
libobjs="$libobjs $out/obj/isr.o $out/obj/user-asm.o"

link() { # name entry-object objects...
    name=$1 entry=$2
    shift 2
    $CC $LDFLAGS -o "$out/$name.elf64" "$entry" "$@" $libobjs
    # QEMU's multiboot loader takes ELF32 only; the addresses fit.
    $OBJCOPY -O elf32-i386 --strip-debug "$out/$name.elf64" "$out/$name.elf"
}

for p in hello dirty timer exceptions triple-fault syscall privilege pgedge \
         cpubench apictimer x87 sse powerbutton migrate nmi pciio; do
    cc "$src/$p.c" "$out/obj/$p.o" ""
    link "$p" "$out/obj/entry.o" "$out/obj/$p.o"
done
cc "$src/smp.c" "$out/obj/smp.o" ""
cc "$src/ap.S" "$out/obj/ap.o" ""
link smp "$out/obj/entry.o" "$out/obj/smp.o" "$out/obj/ap.o"

link hello-aout "$out/obj/entry-aout.o" "$out/obj/hello.o"
# hello linked at 0x8000, over QEMU's multiboot information at 0x9000.
LDFLAGS="-Wl,--defsym=guest_load_addr=0x8000 $LDFLAGS"
link hello-low "$out/obj/entry.o" "$out/obj/hello.o"
$OBJCOPY -O binary "$out/hello-aout.elf64" "$out/hello-aout.bin"
rm -f "$out/hello-aout.elf"
