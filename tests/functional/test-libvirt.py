#!/usr/bin/env python3
"""libvirt (Debian 12's 9.0) drives the emulator: its capability probe.

The test runs a libvirtd of its own: in a private mount namespace
(unshare -m) a temporary directory is mounted over /etc/libvirt,
/run/libvirt, /var/lib/libvirt, /var/cache/libvirt and /var/log/libvirt,
with the qemu.conf a machine without systemd needs (user/group root, no
security driver, no namespaces, no cgroups). virtlogd and libvirtd are
started by hand inside it and stopped at the end; the host's own
libvirt, if any, is left alone. virsh talks to it through its socket.

Cases (TAP):
  domcapabilities --virttype kvm|qemu with the binary as --emulatorbin
  (kvm only where /dev/kvm opens), checked for what our answers make
  libvirt say;
  a domain per virt type running the guest kit's dirty.elf (multiboot,
  -kernel; with --guest-dir DIR, skipped where it was not built) in its
  sweep mode, which prints a line every 100 ms: define, start, the serial
  console through its pty (QEMU drops pty output while nobody reads, so
  a line printed once could be missed) and its <log> copy (logfile= on
  /dev/fdset/N), the seccomp filter when libvirt
  asked for -sandbox, suspend, resume, a libvirtd
  restart (the new one reconnects to the running domain), destroy; and
  one with its serial port on a file, which libvirt opens itself and
  passes with -add-fd as /dev/fdset/N; and `virsh shutdown` of one with
  ACPI running powerbutton.elf, which powers off on the button;
  with --qemu BIN the same cases run against that binary (Debian's QEMU
  7.2), as a check of the test itself.

Skips (TAP "1..0 # SKIP reason") when not root, without virsh/libvirtd
(install libvirt-daemon-system libvirt-clients) or without mount
namespaces.

Usage: test-libvirt.py BINARY [--qemu BIN] [--guest-dir DIR]
"""
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

QEMU_CONF = """\
user = "root"
group = "root"
security_driver = "none"
namespaces = []
cgroup_controllers = []
"""

MOUNTS = ('etc/libvirt', 'run/libvirt', 'var/lib/libvirt',
          'var/cache/libvirt', 'var/log/libvirt')


def skip(reason):
    print('1..0 # SKIP %s' % reason)
    sys.exit(0)


class Libvirt:
    """A libvirtd and virtlogd of the test's own, in a mount namespace."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix='test-libvirt-')
        for m in MOUNTS:
            os.makedirs(os.path.join(self.dir, m))
        etc = os.path.join(self.dir, 'etc/libvirt')
        for name in ('libvirt.conf', 'virtlogd.conf'):
            if os.path.exists('/etc/libvirt/' + name):
                shutil.copy('/etc/libvirt/' + name, etc)
        with open(os.path.join(etc, 'qemu.conf'), 'w') as f:
            f.write(QEMU_CONF)
        with open(os.path.join(etc, 'libvirtd.conf'), 'w') as f:
            f.write('log_filters="1:qemu.qemu_monitor 1:qemu.qemu_process '
                    '3:*"\nlog_outputs="1:file:/var/log/libvirt/'
                    'libvirtd.log"\n')
        self.pids = [os.path.join(self.dir, n)
                     for n in ('virtlogd.pid', 'libvirtd.pid')]
        mounts = ' && '.join('mount --bind %s/%s /%s' % (self.dir, m, m)
                             for m in MOUNTS)
        script = ('set -e; mount --make-rprivate / && %s && '
                  'virtlogd -d -p %s && libvirtd -d -p %s'
                  % (mounts, self.pids[0], self.pids[1]))
        r = subprocess.run(['unshare', '-m', 'sh', '-c', script],
                           capture_output=True, text=True)
        if r.returncode != 0:
            self.stop()
            skip('cannot start libvirtd in a mount namespace: %s'
                 % r.stderr.strip())
        self.uri = 'qemu:///system?socket=%s/run/libvirt/libvirt-sock' \
            % self.dir
        for _ in range(100):
            if self.virsh('version').returncode == 0:
                return
            time.sleep(0.1)
        self.stop()
        skip('libvirtd did not answer')

    @staticmethod
    def _pid(path):
        try:
            with open(path) as f:
                return int(f.read().strip())
        except (OSError, ValueError):
            return None

    def restart_libvirtd(self):
        """Stop libvirtd and start a new one in the same namespace."""
        pid = self._pid(self.pids[1])
        if pid:
            os.kill(pid, signal.SIGTERM)
            for _ in range(100):
                try:
                    os.kill(pid, 0)
                except OSError:
                    break
                time.sleep(0.1)
        r = subprocess.run(['nsenter', '-t', str(self._pid(self.pids[0])),
                            '-m', 'libvirtd', '-d', '-p', self.pids[1]],
                           capture_output=True, text=True)
        for _ in range(100):
            if r.returncode == 0 and self.virsh('version').returncode == 0:
                return True
            time.sleep(0.1)
        return False

    def virsh(self, *args):
        return subprocess.run(['virsh', '-c', self.uri] + list(args),
                              capture_output=True, text=True, timeout=120)

    def log(self):
        try:
            with open(os.path.join(self.dir, 'var/log/libvirt/libvirtd.log'),
                      errors='replace') as f:
                return f.read()
        except OSError:
            return ''

    def stop(self):
        for path in reversed(self.pids):
            try:
                with open(path) as f:
                    pid = int(f.read().strip())
                os.kill(pid, signal.SIGTERM)
                for _ in range(50):
                    os.kill(pid, 0)
                    time.sleep(0.1)
            except (OSError, ValueError):
                pass
        shutil.rmtree(self.dir, ignore_errors=True)


class Tap:
    def __init__(self):
        self.n = 0
        self.failed = 0

    def ok(self, cond, name, diag=''):
        self.n += 1
        print('%s %d %s' % ('ok' if cond else 'not ok', self.n, name))
        if not cond:
            self.failed += 1
            for line in diag.splitlines()[-40:]:
                print('# ' + line)
        sys.stdout.flush()


def check_domcaps(tap, lv, binary, virttype, who):
    r = lv.virsh('domcapabilities', '--emulatorbin', binary, '--virttype',
                 virttype)
    name = '%s/domcapabilities/%s' % (who, virttype)
    if r.returncode != 0:
        tap.ok(False, name, r.stderr + '\n' + lv.log()[-6000:])
        return
    caps = ET.fromstring(r.stdout)
    tap.ok(caps.findtext('domain') == virttype and
           caps.findtext('arch') == 'x86_64' and
           caps.findtext('path') == binary, name, r.stdout)
    # What our answers make libvirt say: a pc machine, the vCPU limit of
    # query-machines, the CPU models of query-cpu-definitions.
    machine = caps.findtext('machine') or ''
    vcpu = caps.find('vcpu')
    tap.ok(machine.startswith('pc-i440fx-') and vcpu is not None and
           int(vcpu.get('max')) >= 255, name + '/machine', r.stdout)
    custom = [m for m in caps.iter('mode') if m.get('name') == 'custom']
    models = [m.text for m in custom[0].iter('model')] if custom else []
    tap.ok('qemu64' in models, name + '/cpu-models', r.stdout)


DOMAIN_XML = """\
<domain type='{virttype}'>
  <name>{name}</name>
  <memory unit='MiB'>64</memory>
  <vcpu>1</vcpu>
  <os>
    <type arch='x86_64' machine='pc'>hvm</type>
    <kernel>{kernel}</kernel>
    <cmdline>sweep=1 seconds=600</cmdline>
  </os>
  <devices>
    <emulator>{binary}</emulator>
    <controller type='usb' model='none'/>
    <memballoon model='none'/>
    <serial type='pty'><target port='0'/></serial>
  </devices>
</domain>
"""


def read_pty(path, want, seconds=20):
    """What the pty at path shows until want appears (or time is up)."""
    import select
    fd = os.open(path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
    got = b''
    end = time.monotonic() + seconds
    try:
        while want.encode() not in got and time.monotonic() < end:
            r, _, _ = select.select([fd], [], [], 0.2)
            if r:
                try:
                    got += os.read(fd, 4096)
                except BlockingIOError:
                    pass
    finally:
        os.close(fd)
    return got.decode(errors='replace')


def wait_file_text(path, want, seconds=30):
    """The file's text once want is in it (or when time is up)."""
    text = ''
    for _ in range(seconds * 10):
        if os.path.exists(path):
            with open(path, errors='replace') as f:
                text = f.read()
        if want in text:
            break
        time.sleep(0.1)
    return text


def state_is(lv, name, want):
    for _ in range(50):
        r = lv.virsh('domstate', name)
        if r.stdout.strip() == want:
            return True
        time.sleep(0.1)
    return False


def check_domain(tap, lv, binary, virttype, who, kernel):
    name = 'qapi-%s-%s' % (who, virttype)
    case = '%s/domain/%s' % (who, virttype)
    xml = os.path.join(lv.dir, name + '.xml')
    serial_log = os.path.join(lv.dir, name + '-serial.log')
    with open(xml, 'w') as f:
        # <log>: -add-fd and -chardev pty,logfile=/dev/fdset/N
        f.write(DOMAIN_XML.format(virttype=virttype, name=name,
                                  kernel=kernel, binary=binary).replace(
            "<serial type='pty'>",
            "<serial type='pty'><log file='%s'/>" % serial_log))
    r = lv.virsh('define', xml)
    tap.ok(r.returncode == 0, case + '/define', r.stderr)
    r = lv.virsh('start', name)
    log = os.path.join(lv.dir, 'var/log/libvirt/qemu', name + '.log')
    tap.ok(r.returncode == 0 and state_is(lv, name, 'running'),
           case + '/start', r.stderr + (open(log).read()
                                         if os.path.exists(log) else ''))
    if r.returncode == 0:
        dom = ET.fromstring(lv.virsh('dumpxml', name).stdout)
        src = dom.find("./devices/serial/source")
        pty = src.get('path') if src is not None else None
        out = read_pty(pty, 'sweep: t=') if pty else ''
        tap.ok('sweep: t=' in out, case + '/console', 'pty %s: %r'
               % (pty, out))
        logged = wait_file_text(serial_log, 'sweep: t=')
        tap.ok('sweep: t=' in logged, case + '/console-log', logged[-500:])
        # libvirt asks for -sandbox where query-command-line-options lists
        # it; then the kernel must count a filter on the process.
        with open(log, errors='replace') as f:
            cmdline = f.read()
        sandboxed = '-sandbox on' in cmdline
        # object-add's schema (qom-type with a secret branch) makes
        # libvirt write -object as JSON.
        tap.ok('-object \'{"qom-type":"secret"' in cmdline,
               case + '/json-object', cmdline[-3000:])
        # ... and device_add's json-cli-hotplug, -device as JSON.
        tap.ok('-device \'{"driver":"isa-serial"' in cmdline,
               case + '/json-device', cmdline[-3000:])
        if sandboxed:
            pid = Libvirt._pid(os.path.join(lv.dir, 'run/libvirt/qemu',
                                            name + '.pid'))
            try:
                with open('/proc/%d/status' % pid) as f:
                    status = f.read()
            except (OSError, TypeError):
                status = ''
            tap.ok('\nSeccomp:\t2\n' in status, case + '/sandbox', status)
        r = lv.virsh('suspend', name)
        tap.ok(r.returncode == 0 and state_is(lv, name, 'paused'),
               case + '/suspend', r.stderr)
        r = lv.virsh('resume', name)
        tap.ok(r.returncode == 0 and state_is(lv, name, 'running'),
               case + '/resume', r.stderr)
        # A new libvirtd reconnects to the running domain and queries it.
        ok = lv.restart_libvirtd() and state_is(lv, name, 'running')
        r = lv.virsh('suspend', name)
        tap.ok(ok and r.returncode == 0 and state_is(lv, name, 'paused') and
               lv.virsh('resume', name).returncode == 0,
               case + '/libvirtd-restart', r.stderr + lv.log()[-4000:])
        r = lv.virsh('destroy', name)
        tap.ok(r.returncode == 0 and state_is(lv, name, 'shut off'),
               case + '/destroy', r.stderr)
    lv.virsh('undefine', name)


def define_and_start(lv, name, binary, virttype, kernel, old, new):
    """DOMAIN_XML with old replaced by new, defined and started: the
    result of virsh start and the domain's log path."""
    xml = os.path.join(lv.dir, name + '.xml')
    text = DOMAIN_XML.format(virttype=virttype, name=name, kernel=kernel,
                             binary=binary)
    with open(xml, 'w') as f:
        f.write(text.replace(old, new))
    lv.virsh('define', xml)
    r = lv.virsh('start', name)
    return r, os.path.join(lv.dir, 'var/log/libvirt/qemu', name + '.log')


def check_file_serial(tap, lv, binary, virttype, who, kernel):
    """A serial port on a file libvirt opens: -add-fd and /dev/fdset/N."""
    name = 'qapi-%s-%s-file' % (who, virttype)
    case = '%s/domain/%s/serial-file' % (who, virttype)
    out = os.path.join(lv.dir, name + '-serial.log')
    r, log = define_and_start(lv, name, binary, virttype, kernel,
                              "<serial type='pty'><target port='0'/></serial>",
                              "<serial type='file'><source path='%s'/>"
                              "<target port='0'/></serial>" % out)
    got = wait_file_text(out, 'sweep: t=')
    cmdline = open(log, errors='replace').read() if os.path.exists(log) \
        else ''
    tap.ok(r.returncode == 0 and 'sweep: t=' in got and
           '/dev/fdset/' in cmdline, case, r.stderr + cmdline[-3000:])
    lv.virsh('destroy', name)
    lv.virsh('undefine', name)


def check_disk(tap, lv, binary, virttype, who, kernel):
    """A virtio disk: libvirt's -blockdev nodes, domblkstat
    (query-blockstats), blockresize (block_resize) and the image lock."""
    name = 'qapi-%s-%s-disk' % (who, virttype)
    case = '%s/domain/%s/disk' % (who, virttype)
    img = os.path.join(lv.dir, name + '.img')
    with open(img, 'wb') as f:
        f.truncate(1 << 20)
    usb = "<controller type='usb' model='none'/>"
    r, log = define_and_start(lv, name, binary, virttype, kernel, usb,
                              usb + "<disk type='file' device='disk'>"
                              "<driver name='qemu' type='raw'/>"
                              "<source file='%s'/><target dev='vda' "
                              "bus='virtio'/></disk>" % img)
    tap.ok(r.returncode == 0 and state_is(lv, name, 'running'),
           case + '/start', r.stderr + (open(log).read()
                                         if os.path.exists(log) else ''))
    if r.returncode == 0:
        r = lv.virsh('domblkstat', name, 'vda')
        tap.ok(r.returncode == 0 and 'vda rd_req' in r.stdout and
               'vda wr_bytes' in r.stdout, case + '/domblkstat',
               r.stdout + r.stderr)
        r = lv.virsh('blockresize', name, 'vda', '2M')
        tap.ok(r.returncode == 0 and os.path.getsize(img) == 2 << 20,
               case + '/blockresize', r.stderr)
        r = lv.virsh('domblkinfo', name, 'vda')
        tap.ok(r.returncode == 0 and 'Capacity:       2097152' in r.stdout,
               case + '/domblkinfo', r.stdout + r.stderr)
        # The image is locked: a second writer is refused.
        try:
            q = subprocess.run([binary, '-M', 'pc', '-accel', 'tcg', '-S',
                                '-display', 'none', '-nodefaults',
                                '-kernel', kernel, '-drive',
                                'file=%s,format=raw,if=virtio' % img],
                               capture_output=True, text=True, timeout=30)
            ok, err = q.returncode == 1, q.stderr
        except subprocess.TimeoutExpired:
            ok, err = False, 'a second writer started'
        tap.ok(ok and 'Failed to get "write" lock' in err,
               case + '/image-lock', err)
    lv.virsh('destroy', name)
    lv.virsh('undefine', name)


def check_shutdown(tap, lv, binary, virttype, who, kernel):
    """virsh shutdown: the power button, the guest's S5, then the end.

    libvirt sends system_powerdown, waits for the SHUTDOWN event (with
    -no-shutdown the emulator stays, paused, until then) and ends the
    process; the guest kit's powerbutton.elf powers off on the button.
    """
    name = 'qapi-%s-%s-acpi' % (who, virttype)
    case = '%s/domain/%s/shutdown' % (who, virttype)
    xml = os.path.join(lv.dir, name + '.xml')
    text = DOMAIN_XML.format(virttype=virttype, name=name, kernel=kernel,
                             binary=binary)
    text = text.replace("    <cmdline>sweep=1 seconds=600</cmdline>\n", "")
    text = text.replace("  </os>\n", "  </os>\n  <features><acpi/></features>\n")
    with open(xml, 'w') as f:
        f.write(text)
    lv.virsh('define', xml)
    r = lv.virsh('start', name)
    ok = r.returncode == 0 and state_is(lv, name, 'running')
    if ok:
        pty = ET.fromstring(lv.virsh('dumpxml', name).stdout).find(
            './devices/serial/source').get('path')
        # The guest is polling once it prints; under QEMU SeaBIOS comes first.
        ok = 'powerbutton: waiting' in read_pty(pty, 'powerbutton: waiting',
                                                 60)
        r = lv.virsh('shutdown', name)
        ok = ok and r.returncode == 0
        for _ in range(300):
            if lv.virsh('domstate', name).stdout.strip() == 'shut off':
                break
            time.sleep(0.1)
        ok = ok and lv.virsh('domstate', name).stdout.strip() == 'shut off'
    log = os.path.join(lv.dir, 'var/log/libvirt/qemu', name + '.log')
    tap.ok(ok, case, r.stderr + (open(log, errors='replace').read()[-3000:]
                                 if os.path.exists(log) else ''))
    lv.virsh('destroy', name)
    lv.virsh('undefine', name)


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    binary = os.path.realpath(argv[1])
    qemu = argv[argv.index('--qemu') + 1] if '--qemu' in argv else None
    guest_dir = argv[argv.index('--guest-dir') + 1] \
        if '--guest-dir' in argv else None
    kernel = os.path.realpath(os.path.join(guest_dir, 'dirty.elf')) \
        if guest_dir else None
    button = os.path.realpath(os.path.join(guest_dir, 'powerbutton.elf')) \
        if guest_dir else None
    if os.geteuid() != 0:
        skip('needs root (libvirtd runs domains as root here)')
    for tool in ('virsh', 'libvirtd', 'virtlogd', 'unshare', 'nsenter'):
        if not shutil.which(tool):
            skip('%s not installed (apt-get install libvirt-daemon-system '
                 'libvirt-clients)' % tool)
    try:
        os.close(os.open('/dev/kvm', os.O_RDWR))
        virttypes = ['kvm', 'qemu']
    except OSError:
        virttypes = ['qemu']
    lv = Libvirt()
    tap = Tap()
    try:
        binaries = [('ours', binary)]
        if qemu and os.path.exists(qemu):
            binaries.append(('qemu', os.path.realpath(qemu)))
        for who, b in binaries:
            for vt in virttypes:
                check_domcaps(tap, lv, b, vt, who)
                if kernel and os.path.exists(kernel):
                    check_domain(tap, lv, b, vt, who, kernel)
                    check_file_serial(tap, lv, b, vt, who, kernel)
                    check_disk(tap, lv, b, vt, who, kernel)
                if button and os.path.exists(button):
                    check_shutdown(tap, lv, b, vt, who, button)
    finally:
        lv.stop()
    print('1..%d' % tap.n)
    return 1 if tap.failed else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
