HXCOMM Every command-line option of qemu-system-x86_64, declared once.
HXCOMM scripts/hxtool.py turns this file into the C option table
HXCOMM (qemu-options.def, consumed through DEF/DEFHEADING macros), the -help
HXCOMM text and docs/options.md.  Format:
HXCOMM   DEFHEADING(text)                      a section of -help and the docs
HXCOMM   DEF("name", HAS_ARG or 0, QEMU_OPTION_name, "help\n" ...)
HXCOMM                                         flags may add "| UNSUPPORTED"
HXCOMM                                         (QEMU 7.2's, not built yet)
HXCOMM                                         or "| OTHER_TARGET" (QEMU
HXCOMM                                         7.2's for other targets);
HXCOMM                                         such options have no DOC
HXCOMM                                         help "" marks an alias of the
HXCOMM                                         DEF just above it
HXCOMM   DOC ... ENDDOC                        markdown for the DEF above it
HXCOMM Help text: synopsis at column 0, explanation indented 16 spaces, every
HXCOMM line ending in \n.  After editing, regenerate the committed docs:
HXCOMM   python3 scripts/hxtool.py md qemu-options.hx docs/options.md

DEFHEADING(Standard options:)

DEF("h", 0, QEMU_OPTION_h,
    "-h or -help      display this help and exit\n")
DEF("help", 0, QEMU_OPTION_help, "")
DOC
Print the list of options with a one-line synopsis and a short explanation
of each, then exit with status 0.
ENDDOC

DEF("version", 0, QEMU_OPTION_version,
    "-version         display version information and exit\n")
DOC
Print the program name and version, then exit with status 0.
ENDDOC

DEF("machine", HAS_ARG, QEMU_OPTION_machine,
    "-machine [type=]name[,prop[=value][,...]]\n"
    "                choose the machine type to emulate ('-machine help' lists\n"
    "                them); -M is the same option\n"
    "                accel=kvm|tcg|qtest[:...] accelerators to try, in order\n"
    "                memory-backend=id takes guest RAM from an -object backend\n"
    "                kernel-irqchip=on|off|split where the interrupt\n"
    "                controllers are emulated (KVM only)\n"
    "                dump-guest-core=on|off include guest RAM in core dumps\n"
    "                mem-merge=on|off allow the host to merge identical pages\n"
    "                acpi=on|off|auto ACPI tables and PM device (pc)\n"
    "                hpet=on|off      the HPET (pc; default on)\n"
    "                vmport=on|off|auto VMware I/O port (pc; only off and auto,\n"
    "                which is off, in this build)\n"
    "                smm=off|auto     System Management Mode: none (pc)\n"
    "                usb=off          no USB (the only value in this build)\n")
DEF("M", HAS_ARG, QEMU_OPTION_M, "")
DOC
Select the machine type (the board) and set machine properties. `-M` is a
short spelling of the same option. Repeated `-machine` options merge.

- `type=NAME`: the machine type; `-machine help` lists the known types:
  `pc` (`pc-i440fx-7.2`, the default) and `none`. Under `kvm` and `tcg`,
  `pc` runs the firmware (SeaBIOS, see `-bios`), or a kernel given with
  `-kernel` directly.
- `accel=ACCEL[:ACCEL...]`: accelerators to try in order (`kvm`, `tcg`,
  `qtest`); the same as `-accel`. Default: `kvm` where `/dev/kvm` works.
- `memory-backend=ID`: back guest RAM with the `-object` whose id is `ID`
  instead of anonymous memory; its size must match `-m` (see
  `docs/memory.md`).
- `kernel-irqchip=on|off|split`: with KVM, emulate the interrupt controllers
  in the kernel (`on`, default), in user space (`off`), or split the two.
- `dump-guest-core=on|off`: include guest RAM in a core dump (default `on`).
- `mem-merge=on|off`: let the host merge identical pages, `MADV_MERGEABLE`
  (default `on`).
- `acpi=on|off|auto` (`pc`): ACPI tables and the ACPI PM device with its
  power button (default `auto`, which is `on`); `-no-acpi` is `acpi=off`.
- `hpet=on|off` (`pc`): the HPET at 0xfed00000 with its ACPI table
  (default `on`); `-no-hpet` is `hpet=off`.
- `vmport=on|off|auto` (`pc`): the VMware I/O port. There is none yet:
  `auto` (the default) means `off`, and `on` is refused.
- `smm=on|off|auto` (`pc`): there is no System Management Mode, so `auto`
  (the default) means `off` and `on` is refused. SeaBIOS runs without it.
- `usb=on|off`: there is no USB yet, so only `off` (what libvirt sends) is
  accepted.

```sh
qemu-system-x86_64 -M pc,accel=kvm -m 1G
```
ENDDOC

DEF("accel", HAS_ARG, QEMU_OPTION_accel,
    "-accel [accel=]name[,prop=value[,...]]\n"
    "                use accelerator name: kvm, tcg or qtest ('-accel help'\n"
    "                lists them); repeat the option (or write kvm:tcg) to give\n"
    "                a fallback order\n"
    "                kernel-irqchip=on|off|split (kvm) where the interrupt\n"
    "                controllers are emulated\n"
    "                tb-size=n (tcg) decoded-block cache size in MiB\n"
    "                thread=single|multi (tcg) accepted as QEMU does; all\n"
    "                vCPUs share one host thread either way\n")
DOC
Choose the accelerator that runs the guest CPUs. `kvm` uses the host's
hardware virtualisation through `/dev/kvm` and is the default where it works;
elsewhere the default is `tcg`, without a warning about KVM.
`tcg` is the built-in x86-64 interpreter; `qtest` runs no CPU at all and lets
a test drive devices and memory. Give `-accel` several times, or write
`-accel kvm:tcg`, to try accelerators in order; the first that starts wins.
`-accel help` lists them. An accelerator that cannot start is reported as
a warning when another one follows.

- `kernel-irqchip=on|off|split` (kvm): as for `-machine`; default `on`.
- `tb-size=N` (tcg): bound of the cache of decoded guest code, in MiB
  (default 32; 0 means the default). Memory is taken as code is decoded,
  never up front, so `-overcommit mem-lock=on` locks only what is used;
  when the bound is reached the cache starts over.
- `thread=single|multi` (tcg): accepted as QEMU accepts them. Both run
  every vCPU on one host thread, in turns of 100,000 instructions (a vCPU
  gives its turn up early when it halts, or spins on `pause` while others
  wait). Guest time (the TSC at 1 GHz, the APIC timer, the PIT) follows the
  host clock while the VM runs.

```sh
qemu-system-x86_64 -accel kvm -accel tcg,thread=single
```
ENDDOC

DEF("enable-kvm", 0, QEMU_OPTION_enable_kvm,
    "-enable-kvm      use KVM; the same as -machine accel=kvm\n")
DOC
Use the KVM accelerator. As in QEMU, this is `-machine accel=kvm`, not
`-accel kvm`: the last of `-enable-kvm` and `-machine accel=...` wins, and
either refuses to go with `-accel`. If `/dev/kvm` cannot be used, the
process stops with an error.
ENDDOC

DEF("cpu", HAS_ARG, QEMU_OPTION_cpu,
    "-cpu model[,+feature|-feature|feature=on|off][,vendor=STRING][,...]\n"
    "                choose the CPU model ('-cpu help' lists models and\n"
    "                features) and add or remove CPUID features\n"
    "                vendor: the 12-character CPUID vendor string\n")
DOC
Choose the CPU model the guest sees, then adjust its CPUID features:
`+feature` or `feature=on` adds one, `-feature` or `feature=off` removes it.
Models: `host` (pass the host CPU's features through; KVM only), `max`
(everything the accelerator can offer), `qemu64` (a conservative baseline).
The default is `host` under kvm and `qemu64` under tcg. Under tcg,
`qemu64` offers MMX, SSE, SSE2 and SSE3 as QEMU's does, and `max` adds
SSSE3, SSE4.1, SSE4.2, POPCNT, MOVBE, AES-NI, PCLMULQDQ and XSAVE (no
AVX); x87 is not there yet (its instructions raise #UD).
`-cpu help` lists models and feature names.

`vendor=` replaces the vendor string of CPUID leaves 0 and 0x80000000
(exactly 12 characters, e.g. `GenuineIntel` or `AuthenticAMD`). Under tcg
it also chooses how the CPU behaves where AMD and Intel processors differ
(`syscall` outside 64-bit mode, `sysenter` in long mode, `sysret` to a
non-canonical address, `rep` string instructions with a 32-bit address
size and a zero count): `GenuineIntel` behaves as Intel's, every other
string as AMD's. The models present `AuthenticAMD` under tcg, as QEMU's do.
MSRs that the software CPU does not model read as 0 and ignore writes, as
under QEMU's TCG; `-d unimp` logs each such access.

```sh
qemu-system-x86_64 -cpu host,-vmx
qemu-system-x86_64 -cpu qemu64,+ssse3,sse4.2=on
qemu-system-x86_64 -accel tcg -cpu qemu64,vendor=GenuineIntel
```
ENDDOC

DEF("smp", HAS_ARG, QEMU_OPTION_smp,
    "-smp [cpus=]n[,maxcpus=cpus][,sockets=n][,cores=n][,threads=n]\n"
    "                number of virtual CPUs and their topology\n"
    "                maxcpus: the most CPUs the guest may have (hotplug)\n"
    "                sockets, cores, threads: sockets, cores per socket,\n"
    "                threads per core\n")
DOC
Set the number of virtual CPUs (`cpus`, default 1) and how they are arranged.
`maxcpus` is the largest number the guest may have; it defaults to `cpus`.
`sockets`, `cores` (per socket) and `threads` (per core) describe the topology;
missing ones are computed from the others, and their product must equal
`maxcpus`.

```sh
qemu-system-x86_64 -smp 4,sockets=1,cores=2,threads=2
```
ENDDOC

DEF("m", HAS_ARG, QEMU_OPTION_m,
    "-m [size=]megs[,slots=n,maxmem=size]\n"
    "                guest RAM size (default 128 MiB); a plain number counts MiB,\n"
    "                or add a K, M, G or T suffix\n"
    "                slots: memory hotplug slots; maxmem: the largest total\n"
    "                RAM size with hotplugged memory\n")
DOC
Set the initial guest RAM size. A number without a suffix counts MiB; `K`,
`M`, `G` and `T` suffixes are also accepted. Default: 128 MiB. `slots` and
`maxmem` reserve room for memory hotplug and must be given together;
`maxmem` must be at least `size`. The last `-m` wins.

```sh
qemu-system-x86_64 -m 2G
qemu-system-x86_64 -m size=1G,slots=2,maxmem=4G
```
ENDDOC

DEF("object", HAS_ARG, QEMU_OPTION_object,
    "-object TYPE,id=ID[,prop=value[,...]]\n"
    "-object {\"qom-type\":TYPE,\"id\":ID[,\"prop\":value...]}\n"
    "                create an object of type TYPE with the given properties\n"
    "                ('-object help' lists types, '-object TYPE,help' their\n"
    "                properties)\n")
DOC
Create a named object. Each `-object` adds one; `id` is required and must be
unique. Types: `memory-backend-ram` (anonymous memory), `memory-backend-file`
(a file or a file made in a directory, `mem-path=`), `memory-backend-memfd`
(an anonymous `memfd`). Common properties: `size` (required), `share=on|off`,
`prealloc=on|off`, `merge=on|off`, `dump=on|off`. `-object help` lists types;
`docs/memory.md` has every property and what happens to the memory at exit.
`secret` holds a key or password: `data=TEXT` or `file=PATH`,
`format=raw|base64` (libvirt passes its master key this way).
`rng-random` is an entropy source read from `filename=` (default
`/dev/urandom`; a file, device or FIFO, opened when the object is made),
`rng-builtin` one that uses `getrandom()`; `virtio-rng-pci,rng=ID` takes
either (`docs/virtio-serial-rng.md`). The argument
may also be a JSON object, `-object '{"qom-type":"secret","id":"k",
"data":"x"}'` (strings, numbers and booleans; booleans mean on/off).

```sh
qemu-system-x86_64 -object memory-backend-memfd,id=mem0,size=1G \
    -machine memory-backend=mem0 -m 1G
```
ENDDOC

DEF("overcommit", HAS_ARG, QEMU_OPTION_overcommit,
    "-overcommit [mem-lock=on|off|on-fault][,cpu-pm=on|off]\n"
    "                mem-lock: lock guest and emulator memory in host RAM;\n"
    "                on-fault locks pages only as they are touched\n"
    "                cpu-pm: let the guest idle the host CPUs itself\n")
DOC
Control how the guest may overcommit host resources. The option may be
repeated; later keys win.

- `mem-lock=off` (default): memory may be swapped.
- `mem-lock=on`: `mlockall(MCL_CURRENT|MCL_FUTURE)` before guest RAM is
  mapped, so all of it stays resident. Needs a large enough `RLIMIT_MEMLOCK`
  (`ulimit -l`) or `CAP_IPC_LOCK`.
- `mem-lock=on-fault`: `mlockall(MCL_CURRENT|MCL_FUTURE|MCL_ONFAULT)`: memory
  is locked as it is touched, so RSS does not grow to the whole guest size.
- `cpu-pm=on|off`: let the guest run `MWAIT`/`HLT` without exiting (default
  `off`).

```sh
qemu-system-x86_64 -m 4G -overcommit mem-lock=on-fault
```
ENDDOC

DEF("mem-path", HAS_ARG, QEMU_OPTION_mem_path,
    "-mem-path FILE   back guest RAM with FILE, or with a temporary file made\n"
    "                in directory FILE (e.g. on hugetlbfs)\n")
DOC
Back guest RAM with a file instead of anonymous memory. If the path is a
directory (typically a `hugetlbfs` mount), a temporary file is created there
and unlinked at once. The mapping is private (`share=off`), so nothing the
guest writes reaches the file.

```sh
qemu-system-x86_64 -m 2G -mem-path /dev/hugepages
```
ENDDOC

DEF("mem-prealloc", 0, QEMU_OPTION_mem_prealloc,
    "-mem-prealloc    allocate all guest RAM before the guest starts\n")
DOC
Touch every page of guest RAM at startup, so the guest never waits for the
host to allocate memory and an out-of-memory condition shows at once (one
thread per vCPU).
ENDDOC

DEF("name", HAS_ARG, QEMU_OPTION_name,
    "-name [guest=]name[,debug-threads=on|off][,process=name]\n"
    "                name the guest (window titles, QMP, log messages)\n"
    "                debug-threads: name the host threads after their role\n"
    "                process: the name the host shows for this process\n")
DOC
Give the guest a name, shown by QMP `query-name` and in messages with
`-msg guest-name=on`. `debug-threads=on` names host threads (`CPU 0/KVM`, ...)
so tools such as `top -H` show their role (default `off`). `process=NAME`
sets the process name seen in `ps` (truncated to 15 bytes by Linux).

```sh
qemu-system-x86_64 -name web1,debug-threads=on
```
ENDDOC

DEF("uuid", HAS_ARG, QEMU_OPTION_uuid,
    "-uuid %08x-%04x-%04x-%04x-%012x\n"
    "                set the system UUID the guest sees\n")
DOC
Set the system UUID reported to the guest firmware and by QMP `query-uuid`.
The value must be 32 hexadecimal digits grouped 8-4-4-4-12 with dashes.
Default: all zeroes.

```sh
qemu-system-x86_64 -uuid 6a2f41a3-c54c-fe11-8b38-0a9e7c5fd53e
```
ENDDOC

DEF("global", HAS_ARG, QEMU_OPTION_global,
    "-global driver.prop=value\n"
    "-global driver=driver,property=prop,value=value\n"
    "                set the default value of a property of every device\n"
    "                of type driver\n")
DOC
Change the default of a device property for every device of one type,
including devices the machine creates itself. Each `-global` adds one
setting. The two forms are equivalent.

```sh
qemu-system-x86_64 -global isa-debugcon.iobase=0x402
```
ENDDOC

DEF("hda", HAS_ARG, QEMU_OPTION_hda,
    "-hda/-hdb file  use 'file' as hard disk 0/1 image (IDE primary master/slave)\n")
DEF("hdb", HAS_ARG, QEMU_OPTION_hdb, "")
DEF("hdc", HAS_ARG, QEMU_OPTION_hdc,
    "-hdc/-hdd file  use 'file' as hard disk 2/3 image (IDE secondary master/slave)\n")
DEF("hdd", HAS_ARG, QEMU_OPTION_hdd, "")
DOC
Use `file` as an IDE hard disk: `-hda` is `-drive file=file,index=0,media=disk`
(the primary channel's master, `ide0-hd0`), `-hdb` index 1 (`ide0-hd1`),
`-hdc` index 2 and `-hdd` index 3 (the secondary channel's master and slave).
The image's format is guessed as raw, with QEMU's warning.

```sh
qemu-system-x86_64 -hda disk.img
```
ENDDOC

DEF("cdrom", HAS_ARG, QEMU_OPTION_cdrom,
    "-cdrom file     use 'file' as CD-ROM image (IDE secondary master)\n")
DOC
Use `file` as the medium of the IDE CD-ROM: `-drive file=file,index=2,media=cdrom`
(`ide1-cd0`, the secondary channel's master), read-only. A missing or
unreadable image is one error line and exit status 1. Without `-cdrom`
(and any drive at index 2) the `pc` machine still has that CD-ROM drive,
empty, as QEMU's, unless `-nodefaults`; QMP `blockdev-change-medium`,
`eject`, `blockdev-open-tray` and `blockdev-close-tray` change its medium
(`DEVICE_TRAY_MOVED` tells when the tray moves).

```sh
qemu-system-x86_64 -cdrom debian.iso -boot d
```
ENDDOC

DEF("drive", HAS_ARG, QEMU_OPTION_drive,
    "-drive file=file[,format=raw|qcow2][,if=ide|none|virtio][,id=name]\n"
    "       [,index=i][,bus=b,unit=u][,media=disk|cdrom]\n"
    "       [,cache=writeback|none|writethrough|directsync|unsafe]\n"
    "       [,readonly=on|off][,aio=threads|io_uring|native]\n"
    "       [,file.locking=auto|on|off]\n"
    "       [,discard=ignore|unmap][,detect-zeroes=off|on|unmap]\n"
    "       [,werror=enospc|stop|report|ignore][,rerror=report|stop|ignore]\n"
    "       [,snapshot=on|off][,l2-cache-size=size][,refcount-cache-size=size]\n"
    "       [,cache-size=size][,cache-clean-interval=seconds]\n"
    "                add a disk image: a raw or qcow2 node over a file node\n")
DOC
Add a drive: a `raw` or `qcow2` format node over a `file` node for the
host file `file`, known to devices as `id` (default `none0`, `virtio0`, ... by
interface). `if=ide` (the default interface, as on QEMU's `pc`) puts the
drive on the PIIX3's IDE controller: `index=0..3` (or `bus=0|1,unit=0|1`;
without either, the first free slot) picks the channel and master or
slave, `media=cdrom` makes it a CD-ROM (read-only; without `file=` an
empty one), and the drive is named `ide<bus>-hd<unit>` or
`ide<bus>-cd<unit>`; the board adds an `ide-hd` or `ide-cd` device for
it. `if=virtio` also adds a `virtio-blk-pci` device for it;
`if=none` leaves it to `-device virtio-blk-pci,drive=ID` (or `ide-hd`,
`ide-cd`). `cache=`
chooses O_DIRECT (`none`, `directsync`), a flush after every write
(`writethrough`, `directsync`) or no flushes (`unsafe`). A missing or
unreadable image, a directory or an unknown format is one error line
and exit status 1.

Without `format=`, the format is probed as QEMU probes it: a qcow2 image
is found by its magic; anything else is raw, with QEMU's warning, and
the guest may not write a first sector that would probe as qcow2 (the
write fails, as in QEMU; `format=raw` lifts it). A
qcow2 image (version 2 or 3, as `qemu-img` makes them) may have a
backing file (qcow2 or raw, its `backing_fmt` or probed), opened
read-only below it, a name that is not absolute being relative to the
folder of the image naming it; a chain that loops is refused. Its L2
table cache is QEMU's by default (enough to map the whole disk, at most
32 MiB; `l2-cache-size`, `refcount-cache-size` or `cache-size` set it)
and `cache-clean-interval` (600 s by default) frees tables unused that
long. Allocating writes copy the rest of a cluster from the backing
file (or a compressed cluster); `write-zeroes` makes zero clusters;
with `discard=unmap` a discard frees clusters and punches holes in the
file. An image marked corrupt opens only with `readonly=on`; damaged
metadata found at run time marks it so (QEMU's message) and fails the
request. Compressed clusters (zlib or zstd) are read.

`snapshot=on` (or `-snapshot` for every drive) opens the image
read-only under a temporary qcow2 overlay that takes the guest's
writes: a file in `$TMPDIR` unlinked at once and emptied before it is
closed, so nothing reaches the image and nothing is written back.

Images are locked as QEMU locks them (`file.locking=auto|on`, the
default; `off` takes no lock): the device using a drive publishes what
it does and what it lets others do as open-file-description locks on
bytes 100-103 and 200-203, so a second writer, or a reader while
someone writes, is refused with `Failed to get "write" lock` (or
`shared "write"`), whether the holder is this emulator or QEMU.
`-device virtio-blk-pci,share-rw=on` lets other writers in.

`aio=threads` (the default) runs requests in a pool of worker threads;
`aio=io_uring` hands reads, writes and flushes to the kernel through
one io_uring whose completions the main loop reaps (discard and
write-zeroes still use the threads). `aio=native` submits reads and
writes with Linux native AIO (`io_submit`, completions on an eventfd the
main loop watches; flushes, discard and write-zeroes use the threads);
as in QEMU it needs O_DIRECT (`cache=none` or `directsync`, or
`cache.direct=on` with `-blockdev`), else it is an error.

`werror=` and `rerror=` say what happens when a write (or flush,
discard, write-zeroes) or a read fails on the host: `report` gives the
guest an I/O error (the default for reads), `ignore` tells the guest it
succeeded, `stop` stops the VM: run state `io-error`, a
`BLOCK_IO_ERROR` event (with `nospace` for ENOSPC) then `STOP`, the
request held, and `query-block` shows `io-status` `failed` or
`nospace`; `cont` runs the held requests again (the guest sees them
complete once, say, space was freed). `enospc` (the default for
writes) stops on ENOSPC, a full disk, and reports other errors; it is
not accepted for reads. `-device virtio-blk-pci,werror=...,rerror=...`
overrides the drive's (`auto`, the default, keeps it).

`discard=ignore` (the default, as QEMU's) completes the guest's
discards without touching the image; `discard=unmap` punches holes in
the file. `detect-zeroes=on` turns a write of zeroes only into a
write-zeroes request, `unmap` (with `discard=unmap`) into a discard.
`-blockdev` takes both per node.

```sh
qemu-system-x86_64 -drive file=disk.img,format=raw,if=virtio
```
ENDDOC

DEF("snapshot", 0, QEMU_OPTION_snapshot,
    "-snapshot        write to temporary files instead of disk image files\n")
DOC
Every `-drive` gets `snapshot=on` (unless it says otherwise): the guest's
writes go to a temporary overlay discarded at exit, and the images are
left as they were.
ENDDOC

DEF("blockdev", HAS_ARG, QEMU_OPTION_blockdev,
    "-blockdev driver=file|host_device,filename=path,node-name=name\n"
    "       [,read-only=on|off][,cache.direct=on|off][,cache.no-flush=on|off]\n"
    "       [,locking=auto|on|off][,aio=threads|io_uring|native]\n"
    "-blockdev driver=raw,file=node,node-name=name[,read-only=on|off]\n"
    "-blockdev driver=qcow2,file=node,node-name=name[,backing=node|null]\n"
    "       [,read-only=on|off][,l2-cache-size=size][,cache-clean-interval=s]\n"
    "                add a block node\n")
DOC
Add a block node: a protocol node (`file`: a regular file,
`host_device`: a block device) or a `raw` or `qcow2` format node over
one (`file=` names it, or `file.driver=...,file.filename=...` makes it).
A qcow2 node's `backing` names the node below it (JSON `null`: none, as
libvirt gives it); without it the image's own backing file is opened,
as with `-drive`. Devices take
a node by its `node-name` (`-device virtio-blk-pci,drive=NAME`).
`locking=` is `-drive`'s `file.locking=`. QMP `blockdev-add` takes the
same options as JSON (a nested `"file": {...}` object is `file.*`) and
`blockdev-del` removes a node nothing uses. A key outside the QMP schema's
`BlockdevOptions` (at the top, in `cache.*` or in an inline `file.*`) is
refused, in both places, as QEMU does: `Parameter 'file.bogus' is
unexpected`.
ENDDOC

DEF("device", HAS_ARG, QEMU_OPTION_device,
    "-device driver[,prop=value[,...]]\n"
    "-device {\"driver\":driver[,\"prop\":value...]}\n"
    "                add a device of type driver with the given properties\n"
    "                ('-device help' lists drivers, '-device driver,help' their\n"
    "                properties)\n")
DOC
Add a device to the machine. Each `-device` adds one; `id=ID` names it
(`/machine/peripheral/ID`). `-device help` lists drivers and
`-device DRIVER,help` lists a driver's properties. Drivers today:
`isa-serial`, `isa-debug-exit`, `isa-debugcon`, `pc-testdev`, `acpi-pm`, `pci-testdev`,
`edu`, `virtio-rng-pci`, `virtio-blk-pci`, `virtio-balloon-pci`, `virtio-serial-pci` with its
ports `virtconsole` and `virtserialport` (`docs/virtio-serial-rng.md`)
(virtio devices are modern only:
`disable-legacy=on` is implied); an unknown driver is an error. PCI devices go on `pci.0` (`bus=pci.0`) at
`addr=SLOT[.FN]` (hex; default: the first free slot), and
`multifunction=on` on function 0 lets other functions share its slot,
with QEMU's rules and messages. The argument may also be a JSON object,
`-device '{"driver":"isa-serial","chardev":"c0","id":"serial0","index":0}'`.

```sh
qemu-system-x86_64 -device isa-debug-exit,iobase=0xf4,iosize=4
```
ENDDOC

DEF("boot", HAS_ARG, QEMU_OPTION_boot,
    "-boot [order=drives][,once=drives][,menu=on|off][,splash=file]\n"
    "      [,splash-time=ms][,reboot-timeout=ms][,strict=on|off]\n"
    "                firmware boot order and boot menu\n"
    "                drives: letters, a-b floppy, c disk, d CD-ROM, n network\n"
    "                once: order for the first boot only\n"
    "                reboot-timeout: retry after ms when nothing boots (-1 never)\n"
    "                strict: do not fall back to other devices\n")
DOC
Pass boot preferences to the guest firmware. `order` and `once` are strings of
drive letters (`c` first disk, `d` first CD-ROM, `n` network, `a`/`b`
floppies); `once` applies to the first boot only. `menu=on` shows the
firmware's boot menu; `splash` is an image shown for `splash-time` ms.
`reboot-timeout` makes the firmware retry after that many ms when nothing
boots (default -1, never). `strict=on` forbids falling back to devices not
listed. Ignored when `-kernel` boots Linux directly.

The order also reaches the firmware through fw_cfg as QEMU's `pc` writes it:
`order`/`once` in the CMOS, `menu` as `FW_CFG_BOOT_MENU`, `splash-time` as
`etc/boot-menu-wait`, `reboot-timeout` as `etc/boot-fail-wait`, and the
`bootorder` file listing the devices that have a `bootindex` property
(`virtio-blk-pci`, `virtio-net-pci`), lowest index first, by firmware path
(`/pci@i0cf8/scsi@4/disk@0,0`), with a last line `HALT` under `strict=on`.
ENDDOC

DEF("rtc", HAS_ARG, QEMU_OPTION_rtc,
    "-rtc [base=utc|localtime|datetime][,clock=host|rt|vm][,driftfix=none|slew]\n"
    "                base: start the RTC at UTC, local time or a given time\n"
    "                clock: the host clock that drives it\n"
    "                driftfix: catch up lost RTC interrupts\n")
DOC
Configure the guest's real-time clock. `base` is `utc` (default), `localtime`,
or a start time such as `2006-06-17T16:01:21` or `2006-06-17`. `clock` picks
what drives it: `host` (the host's wall clock, default), `rt` (the host's
monotonic clock) or `vm` (virtual time, which stops with the guest).
`driftfix=slew` re-injects RTC interrupts the guest missed (default `none`).

```sh
qemu-system-x86_64 -rtc base=localtime,clock=vm
```
ENDDOC

DEF("audio", HAS_ARG, QEMU_OPTION_audio,
    "-audio none      no audio (the only driver in this build)\n")
DOC
Select the host audio driver. This build has no audio support, so only
`none` is accepted; any other driver is an error.
ENDDOC

DEF("audiodev", HAS_ARG, QEMU_OPTION_audiodev,
    "-audiodev [driver=]none,id=id\n"
    "-audiodev {\"driver\":\"none\",\"id\":\"id\"}\n"
    "                an audio backend that plays nothing (the only driver in\n"
    "                this build)\n")
DOC
Create an audio backend for sound devices to use. This build has no sound
devices and only the `none` driver; `id` is required. The argument may be
written as JSON, as libvirt does: `-audiodev '{"id":"audio1","driver":"none"}'`.
ENDDOC

DEF("no-acpi", 0, QEMU_OPTION_no_acpi,
    "-no-acpi         no ACPI tables and no ACPI PM device (pc)\n")
DOC
The same as `-machine acpi=off`: the `pc` machine gets no ACPI tables and no
ACPI PM device, so `system_powerdown` has no power button to press.
ENDDOC

DEF("no-hpet", 0, QEMU_OPTION_no_hpet,
    "-no-hpet        disable HPET\n")
DOC
The same as `-machine hpet=off`: the `pc` machine gets no HPET and no ACPI
HPET table.
ENDDOC

DEF("no-fd-bootchk", 0, QEMU_OPTION_no_fd_bootchk,
    "-no-fd-bootchk   do not check the boot signature of floppy disks\n")
DOC
QEMU's firmware checks the 0x55AA signature of a floppy's boot sector
before booting from it; this option tells it not to. There is no floppy
controller yet, so the option is accepted and has no effect.
ENDDOC

DEF("add-fd", HAS_ARG, QEMU_OPTION_add_fd,
    "-add-fd fd=fd,set=set[,opaque=opaque]\n"
    "                add an inherited file descriptor to fd set 'set', for\n"
    "                paths written /dev/fdset/set\n")
DOC
Take the inherited descriptor `fd` (not 0, 1 or 2) into the descriptor set
`set`. A file opened as `/dev/fdset/SET` is then a duplicate of a
descriptor of that set opened with the same access mode (read, write,
read-write; its other flags stay as they are): libvirt opens a serial port's log
file itself and passes `-add-fd set=0,fd=M,opaque=serial0-source` with
`-chardev file,path=/dev/fdset/0,append=on`. `opaque` is kept as a label.
Today `-chardev file` opens paths this way.
ENDDOC

DEF("sandbox", HAS_ARG, QEMU_OPTION_sandbox,
    "-sandbox on|off[,obsolete=allow|deny][,elevateprivileges=allow|deny|\n"
    "          children][,spawn=allow|deny][,resourcecontrol=allow|deny]\n"
    "                confine the process with a seccomp filter (needs a build\n"
    "                with libseccomp)\n")
DOC
Confine the process with a seccomp system-call filter, installed after
`-daemonize` on every thread. `on` denies the `obsolete` group (old calls
no current program needs) unless `obsolete=allow`; each other group is
allowed unless set to `deny`: `elevateprivileges` (`setuid`, `setsid`, ...;
`children` sets no_new_privs instead), `spawn` (`fork`, `vfork`, `execve`,
`clone` of processes; `clone3` answers ENOSYS so threads use `clone`) and
`resourcecontrol` (priorities, scheduler, affinity). A denied obsolete or
privilege call kills the process with SIGSYS as in QEMU; `spawn` and
`resourcecontrol` calls fail with EPERM (QEMU kills on spawn), so the
teardown's discard helper falls back to discarding in the process. A build
without libseccomp (`-Dseccomp=disabled`, or no `libseccomp-dev`) accepts
only `-sandbox off`. libvirt asks for `-sandbox on,obsolete=deny,
elevateprivileges=deny,spawn=deny,resourcecontrol=deny` when
`query-command-line-options` lists `sandbox`, which this emulator does
only where it can install the filter.
ENDDOC

DEF("L", HAS_ARG, QEMU_OPTION_L,
    "-L path         set the directory for the BIOS and option ROMs\n"
    "                (repeatable; '-L help' lists the search path)\n")
DOC
Look for firmware files (the BIOS of `-bios`, option ROMs of `romfile=`) in
`path` before the built-in firmware path, which is Debian's QEMU's:
`/usr/share/qemu`, `/usr/share/seabios`, `/usr/lib/ipxe/qemu`. Several `-L`
are searched in the order given; `-L help` prints the whole search path, one
directory a line, and exits. A file name with a `/` in it is used as it is.
ENDDOC

DEF("bios", HAS_ARG, QEMU_OPTION_bios,
    "-bios file      set the filename for the BIOS\n")
DOC
The firmware the `pc` machine runs from its reset vector when there is no
`-kernel`: `file` is looked up like `-L` says (a name with a `/` is used as
it is); the default is SeaBIOS's `bios-256k.bin` (Debian's `seabios`
package). It must be a multiple of 64 KiB and at most 16 MiB; it is mapped
read-only below 4 GiB, its last 128 KiB also at 0xe0000-0xfffff, where the
chipset's PAM registers switch between it and RAM. With `-kernel` the
kernel is booted directly and no firmware runs (QEMU runs the firmware and
its `linuxboot_dma.bin` option ROM first). See `docs/firmware.md`.

```sh
qemu-system-x86_64 -bios /usr/share/seabios/bios-256k.bin -nographic
```
ENDDOC

DEF("smbios", HAS_ARG, QEMU_OPTION_smbios,
    "-smbios type=0[,vendor=str][,version=str][,date=str][,release=%d.%d]\n"
    "              [,uefi=on|off]\n"
    "                specify SMBIOS type 0 fields\n"
    "-smbios type=1[,manufacturer=str][,product=str][,version=str][,serial=str]\n"
    "              [,uuid=uuid][,sku=str][,family=str]\n"
    "                specify SMBIOS type 1 fields\n")
DOC
Set fields of the SMBIOS tables the firmware installs (the `pc` machine
without `-kernel`; see `docs/firmware.md`). Type 0 (BIOS information) is
given to the firmware once `vendor`, `version` or `date` is set (else
SeaBIOS writes its own); type 1 (system information) defaults to QEMU's
"QEMU", "Standard PC (i440FX + PIIX, 1996)", "pc-i440fx-7.2" and the
`-uuid`. Other types and `file=` are not supported yet.

```sh
qemu-system-x86_64 -smbios type=1,manufacturer=ACME,serial=42 -nographic
```
ENDDOC

DEFHEADING(Boot a Linux kernel directly:)

DEF("kernel", HAS_ARG, QEMU_OPTION_kernel,
    "-kernel bzImage  boot this Linux kernel (or multiboot image) directly\n")
DOC
Load a Linux kernel (bzImage, through the 64-bit boot protocol), a multiboot
v1 image (ELF32 or a.out kludge) or a PVH ELF (such as an uncompressed
`vmlinux`) into guest memory and start it directly, without running the
firmware (see `-bios`): the first guest line comes within milliseconds.

```sh
qemu-system-x86_64 -kernel vmlinuz -initrd initrd.img -append console=ttyS0
```
ENDDOC

DEF("initrd", HAS_ARG, QEMU_OPTION_initrd,
    "-initrd file     use file as the initial RAM disk\n")
DOC
Load `file` as the initial RAM disk of the `-kernel` kernel; needs `-kernel`.
For a multiboot kernel it is a comma-separated list of modules, each with
its own arguments (`,,` for a literal comma).
ENDDOC

DEF("append", HAS_ARG, QEMU_OPTION_append,
    "-append cmdline  pass cmdline to the kernel as its command line\n")
DOC
Give the `-kernel` kernel its command line; needs `-kernel`. Quote it for the
shell when it holds spaces.

```sh
qemu-system-x86_64 -kernel vmlinuz -append "console=ttyS0 panic=-1"
```
ENDDOC

DEFHEADING(Display, character devices and monitor:)

DEF("display", HAS_ARG, QEMU_OPTION_display,
    "-display none    do not show the guest display (the only type for now)\n")
DOC
Select how the guest display is shown. Only `none` is available for now: the
graphics card, if any, still exists but nothing shows it. Other known types
(`gtk`, `sdl`, `vnc`, `curses`, ...) are reported as unavailable in this
build; unknown ones are an error.
ENDDOC

DEF("nographic", 0, QEMU_OPTION_nographic,
    "-nographic       no display; serial port and monitor multiplexed on stdio\n")
DOC
Run without graphics: the same as `-display none`, and unless given
otherwise, the first serial port and the monitor share the terminal
(switch between them with `Ctrl-a c`; `Ctrl-a x` quits).
ENDDOC

DEF("vga", HAS_ARG, QEMU_OPTION_vga,
    "-vga none        no graphics card (the only type for now)\n")
DOC
Choose the machine's graphics card. There is no graphics card in this build
yet, so `none` (what libvirt passes for a headless guest) is the only value
accepted; it drops the default card of `-nodefaults`' list, which changes
nothing today. QEMU's other types (`std`, `cirrus`, `vmware`, `qxl`,
`xenfb`, `tcx`, `cg3`, `virtio`) are refused with "not supported yet";
other names, as in QEMU, with "unknown vga type". `-vga help` lists the
types.
ENDDOC

DEF("serial", HAS_ARG, QEMU_OPTION_serial,
    "-serial dev      connect the next serial port to host device dev\n"
    "                (stdio, null, none, pty, file:path, unix:path[,server=on],\n"
    "                tcp:host:port[,server=on], chardev:id, mon:dev)\n")
DOC
Connect the next guest serial port (COM1 first) to a host character device:
`stdio`, `null`, `none` (no port), `pty` (a new pseudo-terminal, its path
printed as `char device redirected to /dev/pts/N (label serial0)`),
`file:PATH`, `unix:PATH[,server=on]`,
`tcp:HOST:PORT[,server=on,wait=off]`, `chardev:ID` (a `-chardev`), or
`mon:DEV` (shared with a human monitor, as `-nographic` does by default:
`Ctrl-a c` switches between the guest's console and the `(qemu) ` prompt,
`Ctrl-a x` quits, `Ctrl-a h` lists the keys). Each `-serial` adds one
port; a `-serial mon:...` also drops the default monitor of `-nographic`,
so `-nographic -serial mon:stdio` puts both on the terminal once.

```sh
qemu-system-x86_64 -serial stdio -display none
```
ENDDOC

DEF("chardev", HAS_ARG, QEMU_OPTION_chardev,
    "-chardev backend,id=id[,prop=value[,...]]\n"
    "                create a host character device for serial ports and\n"
    "                monitors; backend: null, stdio, file (path=),\n"
    "                socket (path= or host=,port= or fd=; server=on|off,\n"
    "                wait=on|off), pipe (path=), pty\n"
    "                logfile=path[,logappend=on] copy the output to a file\n")
DOC
Create a host character device that a `-serial chardev:ID`, `-mon` or `-qmp`
can use. `id` is required and unique. Backends: `null`, `stdio`
(`signal=on|off`), `file` (`path=`), `socket` (Unix `path=` or TCP
`host=`,`port=`, or `fd=N`, a socket the process inherited, listening
with `server=on`; `server=on|off`, `wait=on|off`), `pty` (a new
pseudo-terminal; its path is printed, "char device redirected to
/dev/pts/N (label ID)", and reported by `query-chardev`). `mux=on` lets
several users share it; `pipe` (`path=`, using `PATH.in`/`PATH.out` when
both exist). Every backend takes `logfile=PATH` (with `logappend=on` to
append), which gets a copy of the output; paths may be `/dev/fdset/N`
(`-add-fd`).

```sh
qemu-system-x86_64 -chardev socket,id=qmp0,path=/tmp/qmp.sock,server=on,wait=off \
    -mon chardev=qmp0,mode=control
```
ENDDOC

DEF("mon", HAS_ARG, QEMU_OPTION_mon,
    "-mon [chardev=]name[,mode=readline|control][,pretty=on|off]\n"
    "                attach a monitor to the -chardev named name\n"
    "                mode: human monitor (readline) or QMP (control)\n"
    "                pretty: indent QMP replies\n")
DOC
Attach a monitor to a `-chardev`. `mode=readline` (default) is the human
monitor, `mode=control` speaks QMP; `pretty=on` indents QMP output (default
`off`).
ENDDOC

DEF("monitor", HAS_ARG, QEMU_OPTION_monitor,
    "-monitor dev     serve the human monitor on character device dev (as for\n"
    "                -serial); none: no default monitor\n")
DOC
Serve the human monitor (HMP, the `(qemu) ` prompt) on a character device
written as for `-serial`, e.g. `stdio`, `unix:PATH,server=on,wait=off`,
`chardev:ID` or `mon:stdio`; a short form of `-chardev` plus `-mon`. Each
`-monitor` adds one monitor; `-monitor none` adds none and, like any
`-monitor`, `-mon`, `-qmp` or `-serial mon:...`, drops the default monitor
of `-nographic`. Giving stdio to two character devices is an error: to
share the terminal with the guest's serial port, use `-serial mon:stdio`.

```sh
qemu-system-x86_64 -display none -monitor stdio
```
ENDDOC

DEF("qmp", HAS_ARG, QEMU_OPTION_qmp,
    "-qmp dev         serve QMP on character device dev (as for -serial)\n")
DOC
Serve QMP, the JSON monitor protocol, on a character device written as for
`-serial`; a short form of `-chardev` plus `-mon mode=control`. See
`docs/qmp.md`.

```sh
qemu-system-x86_64 -qmp unix:/tmp/qmp.sock,server=on,wait=off
```
ENDDOC

DEF("qmp-pretty", HAS_ARG, QEMU_OPTION_qmp_pretty,
    "-qmp-pretty dev  as -qmp, with indented replies\n")
DOC
As `-qmp`, with QMP replies and events indented over several lines
(`-mon mode=control,pretty=on`).
ENDDOC

DEFHEADING(Debugging and testing:)

DEF("qtest", HAS_ARG, QEMU_OPTION_qtest,
    "-qtest dev       serve the qtest protocol on character device dev\n")
DOC
Serve the qtest protocol (`outb`, `readl`, `clock_step`, ...) on a character
device written as for `-serial`, usually with `-accel qtest`, so a test
program drives memory and devices directly. See `docs/qtest.md`.

```sh
qemu-system-x86_64 -M pc -accel qtest -display none \
    -qtest unix:/tmp/qtest.sock -qmp unix:/tmp/qmp.sock
```
ENDDOC

DEF("qtest-log", HAS_ARG, QEMU_OPTION_qtest_log,
    "-qtest-log file  log the qtest conversation to file\n")
DOC
Write every qtest command and reply to `file` (`/dev/fd/2` for stderr);
`none` logs nothing.
ENDDOC

DEF("D", HAS_ARG, QEMU_OPTION_D,
    "-D logfile       write -d output to logfile instead of stderr\n")
DOC
Send the log selected with `-d` to `logfile` instead of standard error.
ENDDOC

DEF("d", HAS_ARG, QEMU_OPTION_d,
    "-d item1[,...]   enable logging of the given items ('-d help' lists them)\n")
DOC
Enable debug logging of the listed items, comma-separated: `guest_errors`
(invalid guest accesses to devices), `unimp` (unimplemented device features
the guest used), `int` (interrupts and exceptions), `cpu_reset` (CPU state at
reset; tcg), `in_asm` (the address and length of each guest instruction as
the software CPU decodes it; there is no disassembler), `tcg_stats` (ours:
instructions the software CPU retired, at exit), `guest_ram` (ours: at exit,
one line per guest RAM block saying what the teardown did with it, how many
bytes of dirty and resident page cache it discarded or left to write back,
and who did it, the emulator or the discard helper, with its pid; the helper
writes its lines itself before it exits, so with `-D` absent it keeps stderr
open until then), `notify` (ours: at exit, one line per virtio-pci device
with how many queue notifications came through ioeventfds and how many as
MMIO exits, and how many MSI-X messages went out through the accelerator's
irqfds and how many directly). `-d help` lists them.

```sh
qemu-system-x86_64 -d guest_errors,unimp -D /tmp/qemu.log
# guest_ram: 'm' file: discard (punch-hole): 268435456 dirty, 268967936 resident bytes of page cache discarded by the discard helper (pid 4242)
qemu-system-x86_64 -d guest_ram -D /tmp/qemu.log -object memory-backend-file,...
```
ENDDOC

DEF("msg", HAS_ARG, QEMU_OPTION_msg,
    "-msg [timestamp=on|off][,guest-name=on|off]\n"
    "                timestamp: prefix error messages with the time\n"
    "                guest-name: prefix them with the -name of the guest\n")
DOC
Control the prefix of error and warning messages. `timestamp=on` adds the
UTC time, `guest-name=on` adds the name given with `-name`. Both default to
`off`.
ENDDOC

DEFHEADING(Process control:)

DEF("nodefaults", 0, QEMU_OPTION_nodefaults,
    "-nodefaults      do not create the default devices\n")
DOC
Do not create the devices the machine adds by default; only the ones the
command line asks for exist. Today these are, on `pc`, the first serial
port (on `null`, or on stdio with `-nographic`), with `-nographic` the
human monitor, QEMU's empty IDE CD-ROM (`ide1-cd0`) and the network of
`-net nic -net user` (an e1000 on slirp). An option that gives one of them
drops that default alone: `-serial` the serial port; `-monitor`, `-mon`,
`-qmp` and `-serial mon:...` the monitor; `-vga` the graphics card; any
`-net`, `-nic` or `-netdev` the network.
ENDDOC

DEF("readconfig", HAS_ARG, QEMU_OPTION_readconfig,
    "-readconfig file\n"
    "                read options from file, in QEMU's config file format\n")
DOC
Read options from `file`, as if they were given at this place on the command
line. Each `[group]` or `[group "id"]` header starts one option, its
`key = "value"` lines are that option's parameters (the id becomes `id=`),
and lines starting with `#` are comments:

```
[machine]
  type = "pc"
[memory]
  size = "256M"
[drive "disk0"]
  if = "none"
  file = "disk.img"
```

The groups are those of QEMU: `accel`, `boot-opts` (`-boot`), `chardev`,
`device`, `drive`, `global`, `machine`, `memory` (`-m`), `mon`, `msg`,
`name`, `net`, `netdev`, `object`, `overcommit`, `rtc`, `sandbox` and
`smp-opts` (`-smp`). An error is reported as `FILE:LINE: message`, at the
last parameter line of the group it concerns. As in QEMU 7.2 there is no
`-writeconfig`.
ENDDOC

DEF("no-user-config", 0, QEMU_OPTION_no_user_config,
    "-no-user-config  do not read the default configuration file\n")
DOC
Do not read the default configuration file, `qemu.conf` in the configuration
directory (`/usr/local/etc/qemu` unless meson's `prefix` or `sysconfdir` say
otherwise), which is otherwise read before the command line as with
`-readconfig`. A missing file is not an error.
ENDDOC

DEF("S", 0, QEMU_OPTION_S,
    "-S               do not start the CPUs (QMP 'cont' starts them)\n")
DOC
Create the machine but keep its CPUs stopped until a QMP `cont` command (or a
qtest client) starts them.
ENDDOC

DEF("daemonize", 0, QEMU_OPTION_daemonize,
    "-daemonize       detach from the terminal once the machine is set up\n")
DOC
Run in the background: the launching process exits with status 0 only once
the machine is set up (or with status 1 if setup failed), so errors are still
seen by the caller. Standard input and output must not be in use
(no `stdio` character devices, no `-nographic`).
ENDDOC

DEF("pidfile", HAS_ARG, QEMU_OPTION_pidfile,
    "-pidfile file    write the process ID to file\n")
DOC
Write the process ID to `file`, created and locked at startup and removed at
exit; if another running process holds the lock, startup fails.
ENDDOC

DEF("action", HAS_ARG, QEMU_OPTION_action,
    "-action reboot=reset|shutdown\n"
    "                   action when guest reboots [default=reset]\n"
    "-action shutdown=poweroff|pause\n"
    "                   action when guest shuts down [default=poweroff]\n"
    "-action panic=pause|shutdown|exit-failure|none\n"
    "                   action when guest panics [default=shutdown]\n"
    "-action watchdog=reset|shutdown|poweroff|inject-nmi|pause|debug|none\n"
    "                   action when watchdog fires [default=reset]\n")
DOC
What the guest's reboot, poweroff and panic (reported by a `pvpanic` or
`pvpanic-pci` device) and a watchdog's expiry do; QMP `set-action` changes
them at run time. `panic=pause` stops the VM in the `guest-panicked` state
(`cont` resumes it), `panic=shutdown` shuts down with reason `guest-panic`
(with `shutdown=pause` it stops as for `pause`), `panic=exit-failure` does
the same and exits with status 1, `panic=none` only sends the
`GUEST_PANICKED` event. Repeated `-action` options merge, a later value
winning; `-no-reboot` and `-no-shutdown` are `reboot=shutdown` and
`shutdown=pause`. There is no watchdog device yet: its action is only kept.
ENDDOC

DEF("no-reboot", 0, QEMU_OPTION_no_reboot,
    "-no-reboot       exit instead of rebooting\n")
DOC
Treat a guest reboot as a shutdown: the process exits (status 0) instead of
resetting the machine (`-action reboot=shutdown`).
ENDDOC

DEF("no-shutdown", 0, QEMU_OPTION_no_shutdown,
    "-no-shutdown     stop, not exit, when the guest powers off\n")
DOC
When the guest powers off, stop its CPUs and keep the process running, so
its state can still be inspected with QMP; `quit` ends it
(`-action shutdown=pause`).
ENDDOC

DEF("incoming", HAS_ARG, QEMU_OPTION_incoming,
    "-incoming uri    wait for the machine state to arrive at uri\n"
    "                (tcp:host:port, unix:path, fd:n, exec:cmd, file:path,\n"
    "                defer)\n")
DOC
Start with the CPUs stopped (run state `inmigrate`) and wait for a migration
stream at `uri` (`tcp:HOST:PORT`, `unix:PATH`, `fd:N`, `exec:COMMAND`,
`file:PATH`, or `defer` to give it later with QMP `migrate-incoming`). Once
the stream is loaded the VM runs (or pauses, with `-S`); a stream that cannot
be loaded ends the process with one line on stderr and exit status 1. See
docs/migration.md.
ENDDOC

DEFHEADING(Network options:)

DEF("netdev", HAS_ARG, QEMU_OPTION_netdev,
    "-netdev user,id=str[,net=addr[/mask]][,host=addr][,dns=addr]\n"
    "         [,dhcpstart=addr][,hostname=h][,domainname=d][,restrict=on|off]\n"
    "         [,ipv4=on|off][,ipv6=on|off][,ipv6-net=addr/len][,ipv6-host=addr]\n"
    "         [,ipv6-dns=addr][,tftp=dir][,bootfile=f]\n"
    "         [,hostfwd=rule][,guestfwd=rule]\n"
    "                a NATed user network (libslirp); hostfwd=\n"
    "                [tcp|udp]:[hostaddr]:hostport-[guestaddr]:guestport\n"
    "                guestfwd=tcp:addr:port-cmd:command\n"
    "-netdev socket,id=str,listen=[host]:port|connect=host:port\n"
    "                packets over a TCP connection (4-byte length, packet)\n"
    "-netdev socket,id=str,udp=host:port[,localaddr=host:port]\n"
    "                packets as UDP datagrams\n"
    "-netdev tap,id=str[,ifname=name][,script=file|no][,downscript=file|no]\n"
    "         [,vnet_hdr=on|off][,queues=n]\n"
    "-netdev tap,id=str,fd=h|fds=x:y:...:z\n"
    "                a host tap interface (script default /etc/qemu-ifup,\n"
    "                downscript /etc/qemu-ifdown); vnet_hdr=off: no\n"
    "                IFF_VNET_HDR (offloads), on: its lack is an error;\n"
    "                queues=n or fds=: a multiqueue tap\n")
DOC
Create a network backend that a NIC names with `netdev=ID`
(`-device virtio-net-pci,netdev=ID`). `id` is required and unique, and a
netdev serves one NIC. Types:

- `user`: a NATed network on libslirp. The guest network is `net`
  (default `10.0.2.0/24`), the gateway (the host) `host` (`10.0.2.2`),
  the DNS forwarder `dns` (`10.0.2.3`), DHCP hands out addresses from
  `dhcpstart` (`10.0.2.15`). `restrict=on` keeps the guest from reaching
  anything but the forwarded ports. `ipv6=off` (or `ipv4=off`) disables a
  family. `hostfwd=[tcp|udp]:[HOSTADDR]:HOSTPORT-[GUESTADDR]:GUESTPORT`
  (repeatable) forwards a host port to the guest (the guest address
  defaults to the first DHCP address); `guestfwd=tcp:ADDR:PORT-cmd:CMD`
  (repeatable) runs CMD for each guest connection to ADDR:PORT.
- `socket`: `listen=[HOST]:PORT` waits for one TCP connection,
  `connect=HOST:PORT` makes one; each packet is a 4-byte big-endian length
  and the frame, as QEMU sends them, so two emulators (or a test) can be
  wired together. `udp=HOST:PORT` sends each frame as a datagram, reading
  on `localaddr=HOST:PORT`. `mcast=` and `fd=` are not supported.
- `tap`: a host tap interface, made from `/dev/net/tun` as `ifname`
  (default `tapN`) or passed in as `fd=N`; `script=` runs with the
  interface's name once it exists (default `/etc/qemu-ifup`),
  `downscript=` at exit (`/etc/qemu-ifdown`); `no` runs nothing.
  With the kernel's `IFF_VNET_HDR` (used unless `vnet_hdr=off`;
  `vnet_hdr=on` makes its lack an error) frames carry a virtio-net
  header, and virtio-net passes checksum and TSO offloads through.
  `queues=N` opens a multiqueue interface with N queues (`fds=A:B:...`
  takes one descriptor per queue), which `virtio-net-pci,mq=on` maps to
  N queue pairs. `vhost=on` is refused (docs/net.md).

```sh
qemu-system-x86_64 -netdev user,id=n0,hostfwd=tcp::2222-:22 \
    -device virtio-net-pci,netdev=n0
```
ENDDOC

DEF("nic", HAS_ARG, QEMU_OPTION_nic,
    "-nic none|user|socket|tap[,model=e1000|virtio-net-pci][,mac=addr][,backend options]\n"
    "                a NIC and its backend in one option\n")
DOC
A netdev of the given type (options as for `-netdev`, without `id`) and a
NIC on it: `model` (`e1000`, the pc machine's default, or
`virtio-net-pci`, also spelled `virtio`; `model=help` lists them), `mac`
its address. `-nic none` adds nothing. As in QEMU, the pc machine has a
network by default, `-net nic -net user` (an `e1000` on hub 0 with user
networking), unless any `-nic`, `-net` or `-netdev` is given or
`-nodefaults`; the NICs of `-nic` and `-net nic` take their PCI slots
before the `-device` ones.
ENDDOC

DEF("net", HAS_ARG, QEMU_OPTION_net,
    "-net nic[,model=e1000|virtio-net-pci][,macaddr=addr][,netdev=id][,id=str]\n"
    "                a NIC on hub 0 (or on the netdev id)\n"
    "-net user|socket[,name=str][,backend options]\n"
    "                a backend on hub 0\n")
DOC
The legacy form: every `-net nic` and `-net TYPE` joins hub 0, which
passes each packet to all its other members (`-net nic -net user` is a
NIC on the user network, and the pc machine's default). `-net
nic,netdev=ID` pairs the NIC with that netdev directly instead. `-net
none` leaves the machine without a network.
ENDDOC

DEFHEADING(Options of QEMU 7.2 not supported yet:)
DOC
QEMU 7.2 has these options; this build knows them but does not implement
them yet. Each is refused with `qemu-system-x86_64: -OPTION: not supported
yet` and exit status 1, so a command line written for QEMU fails clearly
instead of looking like a typo (`invalid option` is kept for names QEMU
does not have either). The last ones, marked *other targets*, are options
QEMU 7.2 has for other targets only: as QEMU 7.2 does on x86, they are
left out of `-help` and refused with `Option not supported for this
target`.
ENDDOC

DEF("numa", HAS_ARG | UNSUPPORTED, QEMU_OPTION_numa,
    "-numa node|dist|cpu|hmat-lb|hmat-cache,...\n"
    "                NUMA nodes and their distances\n")
DEF("set", HAS_ARG | UNSUPPORTED, QEMU_OPTION_set,
    "-set group.id.arg=value\n"
    "                set one parameter of an option given with an id\n")
DEF("k", HAS_ARG | UNSUPPORTED, QEMU_OPTION_k,
    "-k language      keyboard layout of a graphical display\n")
DEF("audio-help", 0 | UNSUPPORTED, QEMU_OPTION_audio_help,
    "-audio-help      the -audiodev form of audio environment variables\n")
DEF("mtdblock", HAS_ARG | UNSUPPORTED, QEMU_OPTION_mtdblock,
    "-mtdblock file   on-board flash memory image\n")
DEF("sd", HAS_ARG | UNSUPPORTED, QEMU_OPTION_sd,
    "-sd file         SD card image\n")
DEF("pflash", HAS_ARG | UNSUPPORTED, QEMU_OPTION_pflash,
    "-pflash file     parallel flash image (UEFI firmware and its variables)\n")
DEF("fda", HAS_ARG | UNSUPPORTED, QEMU_OPTION_fda,
    "-fda/-fdb file  use 'file' as floppy disk 0/1 image\n")
DEF("fdb", HAS_ARG | UNSUPPORTED, QEMU_OPTION_fdb, "")
DEF("option-rom", HAS_ARG | UNSUPPORTED, QEMU_OPTION_option_rom,
    "-option-rom rom load a file, rom, into the option ROM space\n")
DEF("fsdev", HAS_ARG | UNSUPPORTED, QEMU_OPTION_fsdev,
    "-fsdev local|synth,id=id,...\n"
    "                a host directory for 9p file sharing\n")
DEF("virtfs", HAS_ARG | UNSUPPORTED, QEMU_OPTION_virtfs,
    "-virtfs local|synth,mount_tag=tag,...\n"
    "                9p file sharing: -fsdev and its virtio-9p device\n")
DEF("iscsi", HAS_ARG | UNSUPPORTED, QEMU_OPTION_iscsi,
    "-iscsi [user=user][,password=password][,...]\n"
    "                iSCSI initiator parameters\n")
DEF("usb", 0 | UNSUPPORTED, QEMU_OPTION_usb,
    "-usb             the machine's USB host controller\n")
DEF("usbdevice", HAS_ARG | UNSUPPORTED, QEMU_OPTION_usbdevice,
    "-usbdevice name  a USB device (tablet, mouse, keyboard, ...)\n")
DEF("spice", HAS_ARG | UNSUPPORTED, QEMU_OPTION_spice,
    "-spice [port=port][,...]\n"
    "                the SPICE remote display\n")
DEF("portrait", 0 | UNSUPPORTED, QEMU_OPTION_portrait,
    "-portrait        rotate the graphical output 90 degrees left\n")
DEF("rotate", HAS_ARG | UNSUPPORTED, QEMU_OPTION_rotate,
    "-rotate deg      rotate the graphical output deg degrees left\n")
DEF("full-screen", 0 | UNSUPPORTED, QEMU_OPTION_full_screen,
    "-full-screen     start the display in full screen\n")
DEF("vnc", HAS_ARG | UNSUPPORTED, QEMU_OPTION_vnc,
    "-vnc display     the VNC server (-display vnc=display)\n")
DEF("win2k-hack", 0 | UNSUPPORTED, QEMU_OPTION_win2k_hack,
    "-win2k-hack      IDE workaround for installing Windows 2000\n")
DEF("acpitable", HAS_ARG | UNSUPPORTED, QEMU_OPTION_acpitable,
    "-acpitable [sig=str][,...][,data|file=file1[:file2]...]\n"
    "                add an ACPI table\n")
DEF("tpmdev", HAS_ARG | UNSUPPORTED, QEMU_OPTION_tpmdev,
    "-tpmdev passthrough|emulator,id=id,...\n"
    "                a TPM backend\n")
DEF("dtb", HAS_ARG | UNSUPPORTED, QEMU_OPTION_dtb,
    "-dtb file        a device tree image\n")
DEF("compat", HAS_ARG | UNSUPPORTED, QEMU_OPTION_compat,
    "-compat [deprecated-input=accept|reject|crash][,...]\n"
    "                policy for deprecated and unstable QMP interfaces\n")
DEF("fw_cfg", HAS_ARG | UNSUPPORTED, QEMU_OPTION_fw_cfg,
    "-fw_cfg [name=]name,file=file|string=str\n"
    "                add a file to the firmware configuration device\n")
DEF("parallel", HAS_ARG | UNSUPPORTED, QEMU_OPTION_parallel,
    "-parallel dev    connect the parallel port to character device dev\n")
DEF("debugcon", HAS_ARG | UNSUPPORTED, QEMU_OPTION_debugcon,
    "-debugcon dev    connect the debug console port to character device dev\n")
DEF("singlestep", 0 | UNSUPPORTED, QEMU_OPTION_singlestep,
    "-singlestep      run the software CPU one instruction per block\n")
DEF("preconfig", 0 | UNSUPPORTED, QEMU_OPTION_preconfig,
    "-preconfig       pause before the machine is built, for QMP to configure\n")
DEF("gdb", HAS_ARG | UNSUPPORTED, QEMU_OPTION_gdb,
    "-gdb dev         accept a gdb connection on character device dev\n")
DEF("s", 0 | UNSUPPORTED, QEMU_OPTION_s,
    "-s               -gdb tcp::1234\n")
DEF("dfilter", HAS_ARG | UNSUPPORTED, QEMU_OPTION_dfilter,
    "-dfilter range,...\n"
    "                log -d output for these guest address ranges only\n")
DEF("seed", HAS_ARG | UNSUPPORTED, QEMU_OPTION_seed,
    "-seed number     seed the pseudo-random number generator\n")
DEF("loadvm", HAS_ARG | UNSUPPORTED, QEMU_OPTION_loadvm,
    "-loadvm tag|id   start from an internal snapshot of the disk images\n")
DEF("icount", HAS_ARG | UNSUPPORTED, QEMU_OPTION_icount,
    "-icount [shift=N|auto][,...]\n"
    "                guest time from the count of executed instructions\n")
DEF("watchdog-action", HAS_ARG | UNSUPPORTED, QEMU_OPTION_watchdog_action,
    "-watchdog-action reset|shutdown|poweroff|inject-nmi|pause|debug|none\n"
    "                what a watchdog does when it fires\n")
DEF("echr", HAS_ARG | UNSUPPORTED, QEMU_OPTION_echr,
    "-echr chr        the escape character of a mux instead of Ctrl-a\n")
DEF("only-migratable", 0 | UNSUPPORTED, QEMU_OPTION_only_migratable,
    "-only-migratable\n"
    "                refuse devices that cannot be migrated\n")
DEF("chroot", HAS_ARG | UNSUPPORTED, QEMU_OPTION_chroot,
    "-chroot dir      chroot to dir just before the VM starts\n")
DEF("runas", HAS_ARG | UNSUPPORTED, QEMU_OPTION_runas,
    "-runas user      change to user just before the VM starts\n")
DEF("trace", HAS_ARG | UNSUPPORTED, QEMU_OPTION_trace,
    "-trace [[enable=]pattern][,events=file][,file=file]\n"
    "                enable trace events\n")
DEF("plugin", HAS_ARG | UNSUPPORTED, QEMU_OPTION_plugin,
    "-plugin [file=]file[,argname=argvalue]\n"
    "                load a TCG plugin\n")
DEF("async-teardown", 0 | UNSUPPORTED, QEMU_OPTION_async_teardown,
    "-async-teardown  tear guest memory down in a separate process\n")
DEF("dump-vmstate", HAS_ARG | UNSUPPORTED, QEMU_OPTION_dump_vmstate,
    "-dump-vmstate file\n"
    "                write the devices' migration state layout as JSON\n")
DEF("enable-sync-profile", 0 | UNSUPPORTED, QEMU_OPTION_enable_sync_profile,
    "-enable-sync-profile\n"
    "                profile the locks and condition variables\n")

HXCOMM QEMU 7.2 refuses these for x86 ("Option not supported for this
HXCOMM target") and leaves them out of its -help; so do we.
DEF("g", HAS_ARG | OTHER_TARGET, QEMU_OPTION_g,
    "-g WxH[xDEPTH]   initial graphical resolution (PowerPC, SPARC, m68k)\n")
DEF("prom-env", HAS_ARG | OTHER_TARGET, QEMU_OPTION_prom_env,
    "-prom-env var=value\n"
    "                an OpenBIOS variable (PowerPC, SPARC)\n")
DEF("semihosting", 0 | OTHER_TARGET, QEMU_OPTION_semihosting,
    "-semihosting     semihosting (Arm, m68k, MIPS, RISC-V, Xtensa)\n")
DEF("semihosting-config", HAS_ARG | OTHER_TARGET,
    QEMU_OPTION_semihosting_config,
    "-semihosting-config [enable=on|off][,...]\n"
    "                semihosting settings (Arm, m68k, MIPS, RISC-V, Xtensa)\n")
DEF("old-param", 0 | OTHER_TARGET, QEMU_OPTION_old_param,
    "-old-param       the old parameter block for the kernel (Arm)\n")
DEF("xen-domid", HAS_ARG | OTHER_TARGET, QEMU_OPTION_xen_domid,
    "-xen-domid id    the Xen guest domain id (Xen builds)\n")
DEF("xen-attach", 0 | OTHER_TARGET, QEMU_OPTION_xen_attach,
    "-xen-attach      attach to an existing Xen domain (Xen builds)\n")
DEF("xen-domid-restrict", 0 | OTHER_TARGET, QEMU_OPTION_xen_domid_restrict,
    "-xen-domid-restrict\n"
    "                restrict the Xen operations available (Xen builds)\n")
