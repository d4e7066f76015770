#!/usr/bin/env python3
"""libvirt's probe of an emulator binary, ours against QEMU, in one run.

  domcapabilities
      `virsh domcapabilities --emulatorbin BIN --virttype kvm|qemu` on a
      fresh cache: ms for the whole call, in which libvirtd starts the
      binary (twice when it has tcg-accel), answers ~40-60 QMP commands
      and kills it. Before each run the binary's ctime is bumped (a
      chmod to its own mode) and libvirt's disk cache removed, so
      neither its memory cache nor its disk cache can answer.

  emulator's share
      with libvirtd's debug log on (log_filters="1:qemu.qemu_process" and
      log_outputs="1:file:/var/log/libvirt/libvirtd-debug.log"): the ms
      from each "Try to probe capabilities" to its "Killing QMP caps
      process", summed over the probe's processes. The rest of the call
      is libvirtd's own (in containers whose PID 1 does not reap, about
      2 s per process waiting for the killed one to go).

  virsh start to the first guest line
      with --guest ELF (the guest kit's dirty.elf): a domain of --virttype
      kvm with its serial port on a pty with <log file=.../>; ms from
      starting `virsh start` until the guest's first line ("dirty: ...")
      is in the log. QEMU goes through SeaBIOS (-kernel via its option
      ROM); ours loads the kernel directly.

Needs a running libvirtd (see tests/functional/test-libvirt.py for the
setup without systemd). Where PID 1 does not reap, start it under
bench/reaper.py (`virtlogd -d; python3 bench/reaper.py libvirtd &`), so
a killed probe process is gone when libvirtd looks, as under systemd.
Medians of --runs (default 5), interleaved.

Usage: bench/libvirt.py [--runs N] [--ours BIN] [--qemu BIN] [--guest ELF]
"""
import argparse
import datetime
import os
import re
import shutil
import statistics
import subprocess
import time

HERE = os.path.dirname(os.path.abspath(__file__))


CACHE = '/var/cache/libvirt/qemu/capabilities'
LOG = '/var/log/libvirt/libvirtd-debug.log'
STAMP = re.compile(r'^(\d+-\d+-\d+ \d+:\d+:[\d.]+)\+0000: .*'
                   r'(qemuProcessQMPLaunch|qemuProcessQMPStop)')


def emulator_ms(since):
    """Launch-to-kill time of the probe processes logged after since."""
    if not os.path.exists(LOG):
        return None
    total, start = 0.0, None
    with open(LOG, errors='replace') as f:
        f.seek(since)
        for line in f:
            m = STAMP.match(line)
            if not m:
                continue
            t = datetime.datetime.strptime(m.group(1),
                                           '%Y-%m-%d %H:%M:%S.%f')
            if m.group(2) == 'qemuProcessQMPLaunch':
                start = t
            elif start:
                total += (t - start).total_seconds() * 1000
                start = None
    return total or None


def probe_ms(binary, virttype):
    os.chmod(binary, os.stat(binary).st_mode & 0o7777)
    shutil.rmtree(CACHE, ignore_errors=True)
    since = os.path.getsize(LOG) if os.path.exists(LOG) else 0
    start = time.monotonic()
    r = subprocess.run(['virsh', 'domcapabilities', '--emulatorbin', binary,
                        '--virttype', virttype], capture_output=True,
                       text=True)
    ms = (time.monotonic() - start) * 1000
    if r.returncode != 0:
        raise SystemExit('%s --virttype %s: %s' % (binary, virttype,
                                                   r.stderr.strip()))
    return ms, emulator_ms(since)


DOMAIN = """<domain type='kvm'>
  <name>bench-libvirt</name>
  <memory unit='MiB'>64</memory>
  <vcpu>1</vcpu>
  <os>
    <type arch='x86_64' machine='pc'>hvm</type>
    <kernel>{kernel}</kernel>
    <cmdline>dirty=1</cmdline>
  </os>
  <devices>
    <emulator>{binary}</emulator>
    <controller type='usb' model='none'/>
    <memballoon model='none'/>
    <serial type='pty'><log file='{log}'/><target port='0'/></serial>
  </devices>
</domain>
"""


def start_ms(binary, kernel, workdir):
    """virsh start until the guest's first line is in the serial log."""
    log = os.path.join(workdir, 'serial.log')
    xml = os.path.join(workdir, 'dom.xml')
    with open(xml, 'w') as f:
        f.write(DOMAIN.format(kernel=kernel, binary=binary, log=log))
    subprocess.run(['virsh', 'define', xml], capture_output=True, check=True)
    if os.path.exists(log):
        os.unlink(log)
    start = time.monotonic()
    subprocess.run(['virsh', 'start', 'bench-libvirt'], capture_output=True,
                   check=True)
    ms = None
    while time.monotonic() - start < 30:
        if os.path.exists(log) and b'dirty: ' in open(log, 'rb').read():
            ms = (time.monotonic() - start) * 1000
            break
        time.sleep(0.002)
    subprocess.run(['virsh', 'destroy', 'bench-libvirt'], capture_output=True)
    subprocess.run(['virsh', 'undefine', 'bench-libvirt'],
                   capture_output=True)
    if ms is None:
        raise SystemExit('%s: no guest line within 30 s' % binary)
    return ms


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--runs', type=int, default=5)
    ap.add_argument('--ours', default=os.path.join(
        HERE, '..', 'build', 'qemu-system-x86_64'))
    ap.add_argument('--qemu', default='/usr/bin/qemu-system-x86_64')
    ap.add_argument('--guest', help="the guest kit's dirty.elf")
    args = ap.parse_args()
    results = {}
    for _ in range(args.runs):
        for name, binary in (('ours', args.ours), ('qemu', args.qemu)):
            for vt in ('kvm', 'qemu'):
                total, emu = probe_ms(os.path.realpath(binary), vt)
                results.setdefault((name, vt), []).append(total)
                if emu is not None:
                    results.setdefault((name, vt, 'emu'), []).append(emu)
    if args.guest:
        import tempfile
        with tempfile.TemporaryDirectory(prefix='bench-libvirt-') as d:
            os.chmod(d, 0o755)
            for _ in range(args.runs):
                for name, binary in (('ours', args.ours), ('qemu', args.qemu)):
                    results.setdefault((name, 'start'), []).append(
                        start_ms(os.path.realpath(binary),
                                 os.path.realpath(args.guest), d))
    print('| virsh domcapabilities, fresh cache | ours | QEMU 7.2 | ratio |')
    print('|---|---|---|---|')
    for vt in ('kvm', 'qemu'):
        for key, what in (((vt,), 'whole call'),
                          ((vt, 'emu'), "emulator's share")):
            o = results.get(('ours',) + key)
            q = results.get(('qemu',) + key)
            if not o or not q:
                continue
            o, q = statistics.median(o), statistics.median(q)
            print('| --virttype %s, %s | %.0f ms | %.0f ms | %.2f |'
                  % (vt, what, o, q, o / q))
    if ('ours', 'start') in results:
        o = statistics.median(results[('ours', 'start')])
        q = statistics.median(results[('qemu', 'start')])
        print('| virsh start to the first guest line (kvm) | %.0f ms | '
              '%.0f ms | %.2f |' % (o, q, o / q))


if __name__ == '__main__':
    main()
