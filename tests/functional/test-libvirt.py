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
  <memoryBacking><locked/> (libvirt's -overcommit mem-lock=on) with a
  <memtune><hard_limit> no higher than this process's RLIMIT_MEMLOCK
  hard limit, as a container without CAP_SYS_RESOURCE needs (libvirt
  sets RLIMIT_MEMLOCK to the hard_limit, or raises it to unlimited
  without one, which prlimit refuses there; CAP_IPC_LOCK lets mlockall
  lock more than the limit): the guest's RAM is locked and resident; and
  mem-lock=on-fault through <qemu:commandline> (ours only: QEMU 7.2
  has no on-fault): locked but not made resident, on the first virt type;
  with --linux-dir DIR (or $LINUX_GUEST_DIR; scripts/fetch-linux-guest.sh,
  skipped without it or without its button/evdev modules) Debian's Linux
  under tcg with /init's libvirt=1: start, the shell through the pty,
  suspend (nothing echoed or answered) and resume, a libvirtd restart,
  virsh console, reboot (libvirt's ACPI powerdown, then system_reset: a
  second boot), shutdown by the power button ("shut off (shutdown)"),
  and destroy of a second start ($LINUX_BOOT_TIMEOUT, default 300 s, a
  boot);
  with --qemu BIN the same cases run against that binary (Debian's QEMU
  7.2), as a check of the test itself.

Skips (TAP "1..0 # SKIP reason") when not root, without virsh/libvirtd
(install libvirt-daemon-system libvirt-clients) or without mount
namespaces.

Usage: test-libvirt.py BINARY [--qemu BIN] [--guest-dir DIR] [--linux-dir DIR]
"""
import os
import re
import resource
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
        # A host with libvirt installed but never started (no systemd)
        # may lack /run/libvirt: make the mount points first.
        mounts = ' && '.join('mkdir -p /%s && mount --bind %s/%s /%s'
                             % (m, self.dir, m, m) for m in MOUNTS)
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
            # On stderr too: a failing test's stderr is what meson shows.
            print('not ok %d %s' % (self.n, name), file=sys.stderr)
            for line in diag.splitlines()[-40:]:
                print('# ' + line)
                print('# ' + line, file=sys.stderr)
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


class Pty:
    """A domain's serial pty, open from the host's side."""

    def __init__(self, path):
        self.fd = os.open(path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        self.got = b''

    def pull_until(self, want, seconds):
        """Read into got until want (None: nothing) is in it or time is
        up."""
        import select
        end = time.monotonic() + seconds
        while (want is None or want.encode() not in self.got) and \
                time.monotonic() < end:
            r, _, _ = select.select([self.fd], [], [],
                                    min(0.5, max(0, end - time.monotonic())))
            if r:
                try:
                    self.got += os.read(self.fd, 4096)
                except OSError:
                    time.sleep(0.1)

    def read(self, seconds):
        """Everything that arrives within seconds."""
        before = len(self.got)
        self.pull_until(None, seconds)
        return self.got[before:].decode(errors='replace')

    def wait(self, want, seconds):
        """True once want arrived; got then keeps what followed it."""
        self.pull_until(want, seconds)
        found = want.encode() in self.got
        if found:
            self.got = self.got[self.got.index(want.encode()) +
                                len(want):]
        return found

    def text(self):
        return self.got.decode(errors='replace')

    def send(self, line):
        # A pty whose emulator is gone fails the wait that follows, not
        # the whole run.
        try:
            os.write(self.fd, line.encode() + b'\r')
        except OSError:
            pass

    def close(self):
        os.close(self.fd)


def read_pty(path, want, seconds=20):
    """What the pty at path shows until want appears (or time is up)."""
    con = Pty(path)
    try:
        con.pull_until(want, seconds)
        return con.text()
    finally:
        con.close()


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


def define_and_start(lv, name, binary, virttype, kernel, old, new,
                     template=None):
    """DOMAIN_XML (or template) with old replaced by new, defined and
    started: the result of virsh start and the domain's log path."""
    xml = os.path.join(lv.dir, name + '.xml')
    text = (template or DOMAIN_XML).format(virttype=virttype, name=name,
                                           kernel=kernel, binary=binary)
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


def proc_status_kib(pid, field):
    try:
        with open('/proc/%d/status' % pid) as f:
            for line in f:
                if line.startswith(field + ':'):
                    return int(line.split()[1])
    except (OSError, TypeError, ValueError):
        pass
    return None


# QEMU's mem-lock=on-fault; libvirt 9.0 has no syntax of its own for it.
ON_FAULT_ARGS = ("<qemu:commandline><qemu:arg value='-overcommit'/>"
                 "<qemu:arg value='mem-lock=on-fault'/></qemu:commandline>")
QEMU_NS = " xmlns:qemu='http://libvirt.org/schemas/domain/qemu/1.0'"


def asan_build(binary):
    """Whether binary was built with AddressSanitizer (-Db_sanitize)."""
    try:
        with open(binary, 'rb') as f:
            return b'__asan_init' in f.read()
    except OSError:
        return False


def check_locked(tap, lv, binary, virttype, who, kernel):
    """<locked/> and on-fault: VmLck and VmRSS of the started process.

    The guest has 64 MiB; Linux counts a locked mapping whole in VmLck,
    so both modes show at least the guest's RAM there, and VmRSS tells
    them apart: mlockall populates it, on-fault does not.
    """
    guest_kib = 64 << 10
    hard = resource.getrlimit(resource.RLIMIT_MEMLOCK)[1]
    limit_kib = 8192 if hard == resource.RLIM_INFINITY else hard >> 10
    locked = ("<memoryBacking><locked/></memoryBacking><memtune>"
              "<hard_limit unit='KiB'>%d</hard_limit></memtune>" % limit_kib)
    modes = [('locked', '<vcpu>1</vcpu>', '<vcpu>1</vcpu>' + locked,
              'mem-lock=on')]
    if who == 'ours':
        modes.append(('on-fault', '</devices>', '</devices>' + ON_FAULT_ARGS,
                      'mem-lock=on-fault'))
    for mode, old, new, arg in modes:
        name = 'qapi-%s-%s-%s' % (who, virttype, mode)
        case = '%s/domain/%s/%s' % (who, virttype, mode)
        if mode == 'on-fault':
            new_xml = DOMAIN_XML.replace("type='{virttype}'>",
                                         "type='{virttype}'%s>" % QEMU_NS)
            r, log = define_and_start(lv, name, binary, virttype, kernel,
                                      old, new, new_xml)
        else:
            r, log = define_and_start(lv, name, binary, virttype, kernel,
                                      old, new)
        text = open(log, errors='replace').read() \
            if os.path.exists(log) else ''
        pid = Libvirt._pid(os.path.join(lv.dir, 'run/libvirt/qemu',
                                        name + '.pid'))
        # The guest's RAM is mapped (and, for on, populated) before the
        # monitor answers; let a loaded host settle.
        time.sleep(1)
        lck = proc_status_kib(pid, 'VmLck')
        rss = proc_status_kib(pid, 'VmRSS')
        # The last -overcommit counts (on-fault comes after libvirt's).
        ok = (r.returncode == 0 and state_is(lv, name, 'running') and
              re.findall(r'-overcommit (\S+)', text)[-1:] == [arg])
        if ok and asan_build(binary):
            # The domain started with the mode; what it locked cannot be
            # measured: ASan's shadow mappings make mlockall() lock
            # nothing (its interceptor), as the unit tests skip too.
            case += ' # SKIP VmLck is not measurable under ASan'
        elif mode == 'locked':
            ok = ok and lck is not None and lck >= guest_kib and \
                rss >= guest_kib
        else:
            ok = ok and lck is not None and lck >= guest_kib and \
                rss < guest_kib
        tap.ok(ok, case, 'VmLck %s kB VmRSS %s kB; %s%s' % (
            lck, rss, r.stderr, text[-2000:]))
        lv.virsh('destroy', name)
        lv.virsh('undefine', name)


# A Linux domain: DOMAIN_XML with 256 MiB, ACPI, the initrd and /init's
# libvirt=1.
LINUX_XML = DOMAIN_XML.replace(
    "<memory unit='MiB'>64</memory>",
    "<memory unit='MiB'>256</memory>").replace(
    "    <cmdline>sweep=1 seconds=600</cmdline>\n",
    "    <initrd>{initrd}</initrd>\n"
    "    <cmdline>console=ttyS0 panic=-1 libvirt=1</cmdline>\n").replace(
    "  </os>\n", "  </os>\n  <features><acpi/></features>\n")


def virsh_console(lv, name, line, want, seconds):
    """`virsh console --force` on a pty of its own: line typed, what
    the console showed until want appeared (or time ran out)."""
    import pty
    import select
    master, slave = pty.openpty()
    p = subprocess.Popen(['virsh', '-c', lv.uri, 'console', '--force',
                          name], stdin=slave, stdout=slave, stderr=slave,
                         start_new_session=True)
    os.close(slave)
    got = b''
    sent = False
    end = time.monotonic() + seconds
    try:
        while want.encode() not in got and time.monotonic() < end:
            r, _, _ = select.select([master], [], [], 0.5)
            if r:
                try:
                    got += os.read(master, 4096)
                except OSError:
                    break
            # virsh is attached once it says how to leave.
            if not sent and b'Escape character' in got:
                time.sleep(0.5)
                os.write(master, line.encode() + b'\r')
                sent = True
        os.write(master, b'\x1d')        # ^], virsh's escape
        p.wait(timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        p.kill()
        p.wait()
    os.close(master)
    return got.decode(errors='replace')


def linux_guest(guest_dir, tmpdir):
    """The Linux guest's kernel and an initrd with its modules, or the
    reason they are missing."""
    if not guest_dir:
        return None, None, 'no Linux guest directory given'
    files = [os.path.join(guest_dir, n)
             for n in ('bzImage', 'initramfs.cpio', 'modules.cpio')]
    for f in files:
        if not os.path.isfile(f):
            return None, None, 'no %s: run scripts/fetch-linux-guest.sh' % f
    with open(files[2], 'rb') as f:
        mods = f.read()
    if b'button.ko' not in mods or b'evdev.ko' not in mods:
        return None, None, ('%s has no button/evdev modules: rerun '
                            'scripts/fetch-linux-guest.sh' % files[2])
    initrd = os.path.join(tmpdir, 'linux-initrd.cpio')
    with open(initrd, 'wb') as out:
        for f in files[1:]:
            with open(f, 'rb') as i:
                out.write(i.read())
    return os.path.realpath(files[0]), initrd, None


def check_linux(tap, lv, binary, who, kernel, initrd, boot_s):
    """Debian's Linux under tcg: the shell on the console, suspend and
    resume, a libvirtd restart, reboot, shutdown by the ACPI power
    button; then destroy of a second start. Two boots."""
    name = 'linux-%s' % who
    case = '%s/linux' % who
    xml = os.path.join(lv.dir, name + '.xml')
    with open(xml, 'w') as f:
        f.write(LINUX_XML.format(virttype='qemu', name=name, kernel=kernel,
                                 initrd=initrd, binary=binary))
    r = lv.virsh('define', xml)
    tap.ok(r.returncode == 0, case + '/define', r.stderr)
    r = lv.virsh('start', name)
    log = os.path.join(lv.dir, 'var/log/libvirt/qemu', name + '.log')

    def qlog():
        return open(log, errors='replace').read()[-3000:] \
            if os.path.exists(log) else ''
    tap.ok(r.returncode == 0 and state_is(lv, name, 'running'),
           case + '/start', r.stderr + qlog())
    if r.returncode != 0:
        lv.virsh('undefine', name)
        return
    src = ET.fromstring(lv.virsh('dumpxml', name).stdout).find(
        './devices/serial/source')
    con = Pty(src.get('path'))
    try:
        booted = con.wait('init: started', boot_s) and \
            con.wait('init: power button on /dev/input/event', 30) and \
            con.wait('guest# ', 30)
        tap.ok(booted, case + '/boot', con.text()[-3000:] + qlog())
        con.send('echo hello-$((6*7))')
        tap.ok(con.wait('hello-42', 30), case + '/console', con.text())
        # Paused, the guest neither echoes nor answers; resumed, it does.
        con.read(1)
        r = lv.virsh('suspend', name)
        ok = r.returncode == 0 and state_is(lv, name, 'paused')
        con.send('echo paused-$((2*3))')
        quiet = con.read(3)
        tap.ok(ok and 'paused-6' not in quiet and 'echo' not in quiet,
               case + '/suspend', r.stderr + repr(quiet))
        r = lv.virsh('resume', name)
        tap.ok(r.returncode == 0 and state_is(lv, name, 'running') and
               con.wait('paused-6', 30), case + '/resume',
               r.stderr + con.text())
        # A new libvirtd reconnects to the running guest.
        ok = lv.restart_libvirtd() and state_is(lv, name, 'running')
        con.send('echo again-$((3*3))')
        tap.ok(ok and con.wait('again-9', 30), case + '/libvirtd-restart',
               con.text() + lv.log()[-3000:])
        con.close()
        con = None
        # virsh console itself: libvirtd's stream on the same pty.
        out = virsh_console(lv, name, 'echo virsh-$((5*5))', 'virsh-25', 30)
        tap.ok('virsh-25' in out, case + '/virsh-console', out)
        con = Pty(src.get('path'))
        # reboot: libvirt presses the power button, the guest powers off
        # and libvirt resets it (-no-shutdown kept the process) and lets
        # it run: a second boot.
        r = lv.virsh('reboot', name)
        ok = r.returncode == 0 and \
            con.wait('init: power button pressed', 60)
        ok = ok and con.wait('init: started', boot_s) and \
            con.wait('guest# ', 60) and state_is(lv, name, 'running')
        tap.ok(ok, case + '/reboot', r.stderr + con.text()[-3000:] + qlog())
        # The new boot's shell (the old one's would answer as well).
        con.send('echo rebooted-$((4*4))')
        tap.ok(ok and con.wait('rebooted-16', 30), case + '/reboot-console',
               con.text())
        # shutdown: the button again, S5, libvirt ends the process. The
        # guest's "pressed" line may be lost with the pty when the
        # emulator exits before this reader gets to it (a loaded host):
        # "shut off (shutdown)", which only the guest's power-off after
        # the button gives, is what counts.
        r = lv.virsh('shutdown', name)
        for _ in range(600):
            con.pull_until(None, 0.1)
            if lv.virsh('domstate', name).stdout.strip() == 'shut off':
                break
        pressed = 'init: power button pressed' in con.text()
        r2 = lv.virsh('domstate', name, '--reason')
        tap.ok(r.returncode == 0 and
               r2.stdout.strip() == 'shut off (shutdown)',
               case + '/shutdown', r.stderr + r2.stdout + con.text()[-2000:]
               + qlog())
        if not pressed:
            print('# %s/shutdown: the pty closed before the guest\'s '
                  '"power button pressed" line was read' % case)
    finally:
        if con:
            con.close()
    # destroy: a second start, ended while the kernel boots.
    lv.virsh('destroy', name)
    r = lv.virsh('start', name)
    ok = r.returncode == 0 and state_is(lv, name, 'running')
    r = lv.virsh('destroy', name)
    r2 = lv.virsh('domstate', name, '--reason')
    tap.ok(ok and r.returncode == 0 and
           r2.stdout.strip() == 'shut off (destroyed)', case + '/destroy',
           r.stderr + r2.stdout + qlog())
    # A sanitizer build reports into the domain's log (libvirt passes
    # no ASAN_OPTIONS, so UBSan only prints).
    text = open(log, errors='replace').read() if os.path.exists(log) else ''
    tap.ok('runtime error:' not in text and 'Sanitizer' not in text,
           case + '/no-sanitizer-report', text[-4000:])
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
    # $LINUX_GUEST_DIR lets several build trees share one fetched guest.
    linux_dir = os.environ.get('LINUX_GUEST_DIR') or (
        argv[argv.index('--linux-dir') + 1] if '--linux-dir' in argv
        else None)
    try:
        boot_s = int(os.environ.get('LINUX_BOOT_TIMEOUT', '0')) or 300
    except ValueError:
        boot_s = 300
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
    linux_kernel, linux_initrd, no_linux = linux_guest(linux_dir, lv.dir)
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
                    if vt == virttypes[0]:
                        check_locked(tap, lv, b, vt, who, kernel)
                if button and os.path.exists(button):
                    check_shutdown(tap, lv, b, vt, who, button)
            if no_linux:
                tap.ok(True, '%s/linux # SKIP %s' % (who, no_linux))
            else:
                check_linux(tap, lv, b, who, linux_kernel, linux_initrd,
                            boot_s)
    finally:
        lv.stop()
    print('1..%d' % tap.n)
    return 1 if tap.failed else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
