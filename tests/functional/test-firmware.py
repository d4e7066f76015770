#!/usr/bin/env python3
"""The pc machine's firmware: SeaBIOS (Debian's seabios package) runs
from the reset vector when there is no -kernel.

Cases (TAP), each for our binary and, where --qemu BIN is given and the
case is cheap, for that binary too (Debian's QEMU 7.2, a check of the
test itself):
  banner: the bare default machine under tcg with -nographic prints
    SeaBIOS's banner and walks its boot order to "No bootable device."
    (QEMU with -net none: its default NIC's iPXE would try the network),
    with one vCPU and with two (SeaBIOS starts the second);
  reset: QMP system_reset after that runs the firmware again (a second
    banner);
  no-reboot: a 64 KiB -bios that prints "B" on COM1 and resets the
    machine through port 0xcf9: with -no-reboot the emulator exits with
    status 0 after one "B", without it the firmware runs again and again;
  bad-bios: a missing, empty, odd-sized (not a multiple of 64 KiB) or
    over-16-MiB -bios file, and a directory: one line, exit status 1;
  kvm-banner: the banner under KVM, and the boot order walk again after
    system_reset (skipped where /dev/kvm does not open; real mode may be
    emulated slowly there);
  linux-disk: with --linux-dir DIR (build/guest-linux,
    scripts/fetch-linux-guest.sh) and the tools of
    scripts/make-boot-media.sh, a raw disk image holding the Debian
    guest's kernel and initramfs boots through SeaBIOS from virtio-blk
    (-drive if=virtio) under tcg to the guest's shell, which answers a
    command.

Usage: test-firmware.py BINARY [--qemu BIN] [--linux-dir DIR]
         [--boot-media SCRIPT]
"""
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

BANNER = "SeaBIOS (version"
NO_BOOT = "No bootable device."
BOOT_TIMEOUT = float(os.environ.get("LINUX_BOOT_TIMEOUT", "300"))


class Vm:
    """An emulator process whose stdout (the serial console) is kept."""

    def __init__(self, binary, args, qmp=None):
        self.qmp_path = qmp
        argv = [binary] + args
        if qmp:
            argv += ["-qmp", "unix:%s,server=on,wait=off" % qmp]
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE)
        self.out = b""
        self.err = b""
        self.lock = threading.Lock()
        self.threads = [threading.Thread(target=self._pump, args=(f, n),
                                         daemon=True)
                        for f, n in ((self.proc.stdout, "out"),
                                     (self.proc.stderr, "err"))]
        for t in self.threads:
            t.start()

    def _pump(self, f, name):
        while True:
            data = os.read(f.fileno(), 65536)
            if not data:
                return
            with self.lock:
                setattr(self, name, getattr(self, name) + data)

    def text(self):
        with self.lock:
            return self.out.decode("latin-1")

    def wait_for(self, pattern, timeout, count=1):
        """Until pattern was printed count times; False on timeout/exit."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.text().count(pattern) >= count:
                return True
            if self.proc.poll() is not None:
                time.sleep(0.2)
                return self.text().count(pattern) >= count
            time.sleep(0.05)
        return False

    def send(self, data):
        self.proc.stdin.write(data.encode())
        self.proc.stdin.flush()

    def qmp(self, command):
        s = socket.socket(socket.AF_UNIX)
        s.connect(self.qmp_path)
        f = s.makefile("rw")
        f.readline()
        f.write('{"execute": "qmp_capabilities"}\n')
        f.flush()
        f.readline()
        f.write('{"execute": "%s"}\n' % command)
        f.flush()
        while True:
            line = f.readline()
            if not line or '"return"' in line or '"error"' in line:
                break
        s.close()
        return line

    def wait(self, timeout):
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            if self.wait(10) is None:
                self.proc.kill()
                self.proc.wait()
        for t in self.threads:
            t.join(5)


class Tap:
    def __init__(self):
        self.n = 0
        self.failed = 0

    def ok(self, good, name, diag=""):
        self.n += 1
        if not good:
            self.failed += 1
            for line in diag.splitlines()[-40:]:
                print("# " + line)
        print("%s %d - %s" % ("ok" if good else "not ok", self.n, name))
        sys.stdout.flush()

    def skip(self, name, why):
        self.n += 1
        print("ok %d - %s # SKIP %s" % (self.n, name, why))
        sys.stdout.flush()


def extra_args(binary, ours):
    # The default NIC (an e1000 with iPXE's ROM) would try the network
    # before "No bootable device."; these cases walk the disks alone.
    return ["-net", "none"]


def case_banner(tap, binary, ours, tmp, smp=1):
    vm = Vm(binary, ["-accel", "tcg", "-nographic", "-smp", str(smp)] +
            extra_args(binary, ours))
    t0 = time.monotonic()
    seen = vm.wait_for(NO_BOOT, 60)
    elapsed = time.monotonic() - t0
    vm.stop()
    out = vm.text()
    good = seen and BANNER in out and \
        out.index(BANNER) < out.index(NO_BOOT) and \
        "Booting from Hard Disk..." in out
    tap.ok(good, "banner -smp %d %s (%.1f s)" % (smp, binary, elapsed),
           out + vm.err.decode("latin-1"))


def case_reset(tap, binary, ours, tmp):
    qmp = os.path.join(tmp, "qmp-%d.sock" % tap.n)
    vm = Vm(binary, ["-accel", "tcg", "-nographic"] +
            extra_args(binary, ours), qmp=qmp)
    good = vm.wait_for(NO_BOOT, 60)
    if good:
        reply = vm.qmp("system_reset")
        good = '"return"' in reply and vm.wait_for(BANNER, 60, 2) and \
            vm.wait_for(NO_BOOT, 60, 2)
    vm.stop()
    tap.ok(good, "reset runs the firmware again %s" % binary,
           vm.text() + vm.err.decode("latin-1"))


def write_reset_bios(path):
    """64 KiB at 0xf0000: print "B\\n" on COM1, reset through 0xcf9."""
    code = bytes([
        0xba, 0xf8, 0x03,       # mov dx, 0x3f8
        0xb0, 0x42, 0xee,       # mov al, 'B'; out dx, al
        0xb0, 0x0a, 0xee,       # mov al, 10; out dx, al
        0xba, 0xf9, 0x0c,       # mov dx, 0xcf9
        0xb0, 0x06, 0xee,       # mov al, 6 (hard reset); out dx, al
        0xf4, 0xeb, 0xfd,       # hlt; jmp hlt
    ])
    rom = bytearray(b"\xf4" * 0x10000)
    rom[0:len(code)] = code
    rom[0xfff0:0xfff5] = bytes([0xea, 0x00, 0x00, 0x00, 0xf0])  # f000:0000
    with open(path, "wb") as f:
        f.write(rom)


def case_no_reboot(tap, binary, ours, tmp):
    bios = os.path.join(tmp, "reset.bin")
    write_reset_bios(bios)
    base = ["-accel", "tcg", "-display", "none", "-serial", "stdio",
            "-bios", bios] + extra_args(binary, ours)
    vm = Vm(binary, base + ["-no-reboot"])
    status = vm.wait(30)
    vm.stop()
    good = status == 0 and vm.text().count("B\n") == 1
    tap.ok(good, "-no-reboot exits at the firmware's reset %s (status %s)"
           % (binary, status), vm.text() + vm.err.decode("latin-1"))
    vm = Vm(binary, base)
    good = vm.wait_for("B\n", 30, 3)
    vm.stop()
    tap.ok(good, "a reset runs -bios again %s" % binary,
           vm.text() + vm.err.decode("latin-1"))


def case_bad_bios(tap, binary, ours, tmp):
    files = {
        "missing": os.path.join(tmp, "no-such-bios.bin"),
        "empty": os.path.join(tmp, "empty.bin"),
        "odd-size": os.path.join(tmp, "odd.bin"),
        "directory": tmp,
    }
    open(files["empty"], "wb").close()
    with open(files["odd-size"], "wb") as f:
        f.write(b"\0" * 100000)
    if ours:
        # QEMU 7.2 maps a 17 MiB BIOS (and runs zeros).
        files["over-16-MiB"] = os.path.join(tmp, "big.bin")
        with open(files["over-16-MiB"], "wb") as f:
            f.truncate(17 << 20)
    for what, path in files.items():
        if not ours and what == "directory":
            continue
        r = subprocess.run([binary, "-accel", "tcg", "-display", "none",
                            "-bios", path], capture_output=True, timeout=30)
        err = r.stderr.decode("latin-1")
        lines = err.splitlines()
        good = r.returncode == 1 and len(lines) == 1 and \
            "could not load PC BIOS '%s'" % path in lines[0]
        if ours:
            good = good and lines[0].startswith("qemu-system-x86_64: ")
        tap.ok(good, "bad -bios (%s) %s: %s" % (what, binary, err.strip()),
               err)


def kvm_usable():
    try:
        fd = os.open("/dev/kvm", os.O_RDWR)
        os.close(fd)
        return True
    except OSError:
        return False


def case_kvm_banner(tap, binary, ours, tmp):
    if not kvm_usable():
        tap.skip("banner under kvm %s" % binary, "/dev/kvm does not open")
        tap.skip("reset under kvm %s" % binary, "/dev/kvm does not open")
        return
    qmp = os.path.join(tmp, "qmp-kvm-%d.sock" % tap.n)
    vm = Vm(binary, ["-accel", "kvm", "-nographic"] +
            extra_args(binary, ours), qmp=qmp)
    t0 = time.monotonic()
    good = vm.wait_for(BANNER, 120)
    elapsed = time.monotonic() - t0
    tap.ok(good, "banner under kvm %s (%.1f s)" % (binary, elapsed),
           vm.text() + vm.err.decode("latin-1"))
    # The read-only slots and PAM windows come back at a reset.
    good = good and vm.wait_for(NO_BOOT, 120) and \
        '"return"' in vm.qmp("system_reset") and \
        vm.wait_for(BANNER, 120, 2) and vm.wait_for(NO_BOOT, 120, 2)
    vm.stop()
    tap.ok(good, "reset under kvm runs the firmware again %s" % binary,
           vm.text() + vm.err.decode("latin-1"))


def case_linux_disk(tap, binary, ours, tmp, linux_dir, script):
    name = "Linux from a disk through SeaBIOS %s" % binary
    need = [os.path.join(linux_dir or "", f)
            for f in ("bzImage", "initramfs.cpio", "modules.cpio")]
    if not linux_dir or not all(os.path.exists(p) for p in need):
        tap.skip(name, "no Linux guest (scripts/fetch-linux-guest.sh)")
        return
    if not all(shutil.which(t) for t in ("sfdisk", "mformat", "syslinux")):
        tap.skip(name, "no sfdisk/mtools/syslinux (scripts/setup-debian.sh)")
        return
    img = os.path.join(tmp, "disk-%d.img" % tap.n)
    r = subprocess.run([script, img, need[0], need[1] + ":" + need[2],
                        "console=ttyS0 libvirt=1"], capture_output=True)
    if r.returncode != 0:
        tap.ok(False, name, r.stderr.decode("latin-1"))
        return
    vm = Vm(binary, ["-accel", "tcg", "-nographic", "-m", "512M",
                     "-drive", "file=%s,format=raw,if=virtio" % img] +
            extra_args(binary, ours))
    t0 = time.monotonic()
    good = vm.wait_for("guest# ", BOOT_TIMEOUT)
    elapsed = time.monotonic() - t0
    if good:
        vm.send("echo fw-$((6*7))\n")
        good = vm.wait_for("fw-42", 60)
    vm.stop()
    out = vm.text()
    good = good and out.find(BANNER) < out.find("SYSLINUX") < \
        out.find("Linux version")
    tap.ok(good, "%s (shell after %.1f s)" % (name, elapsed),
           out + vm.err.decode("latin-1"))


def main():
    args = sys.argv[1:]
    if not args:
        print(__doc__, file=sys.stderr)
        return 2
    ours = args.pop(0)
    qemu = linux_dir = None
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                          "..", "..", "scripts", "make-boot-media.sh")
    while args:
        opt = args.pop(0)
        if opt == "--qemu":
            qemu = args.pop(0)
        elif opt == "--linux-dir":
            linux_dir = args.pop(0)
        elif opt == "--boot-media":
            script = args.pop(0)
    linux_dir = linux_dir or os.environ.get("LINUX_GUEST_DIR")
    binaries = [(ours, True)]
    if qemu and os.access(qemu, os.X_OK):
        binaries.append((qemu, False))
    if not os.path.exists("/usr/share/seabios/bios-256k.bin"):
        print("1..0 # SKIP no SeaBIOS (apt-get install seabios)")
        return 0
    tap = Tap()
    with tempfile.TemporaryDirectory() as tmp:
        for binary, is_ours in binaries:
            case_banner(tap, binary, is_ours, tmp)
            # SeaBIOS starts the APs and spins on a lock with pause.
            case_banner(tap, binary, is_ours, tmp, smp=2)
            case_reset(tap, binary, is_ours, tmp)
            case_no_reboot(tap, binary, is_ours, tmp)
            case_bad_bios(tap, binary, is_ours, tmp)
        case_kvm_banner(tap, ours, True, tmp)
        case_linux_disk(tap, ours, True, tmp, linux_dir, script)
    print("1..%d" % tap.n)
    return 1 if tap.failed else 0


if __name__ == "__main__":
    sys.exit(main())
