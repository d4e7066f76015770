"""What the bench scripts share: a binary's short label, medians, the
first line of an error, a minimal QMP client, /proc/PID/status figures,
and the writing of a measured block into docs/performance.md."""
import json
import os
import re
import socket
import statistics
import subprocess
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DOC = os.path.join(ROOT, "docs", "performance.md")


def version(binary):
    """A short label: "qemu-lean 0.1.0", "QEMU 7.2.22 (Debian)"."""
    try:
        out = subprocess.run([binary, "-version"], capture_output=True,
                             text=True, timeout=30).stdout
    except OSError as e:
        return "%s (%s)" % (binary, e.strerror)
    m = re.search(r"version (\S+)(?: \((.*?)\))?", out)
    if not m:
        return binary
    if m.group(2) and m.group(2).startswith("qemu-lean"):
        return m.group(2)
    if m.group(2) and "Debian" in m.group(2):
        return "QEMU %s (Debian)" % m.group(1)
    return "QEMU %s" % m.group(1)


def short_error(line):
    return re.sub(r"^[^:]*qemu-system-[^:]*: ", "", line).replace("|", "\\|")


def med(runs, key):
    vals = [r[key] for r in runs if r.get(key) is not None]
    return statistics.median(vals) if vals else None


def status(pid, keys=("VmRSS", "VmLck")):
    figures = {}
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            key, _, rest = line.partition(":")
            if key in keys:
                figures[key] = int(rest.split()[0]) / 1024.0
    return figures


class Qmp:
    """A QMP client on a unix socket; events are kept in order."""

    def __init__(self, path, deadline):
        while True:
            try:
                self.sock = socket.socket(socket.AF_UNIX)
                self.sock.connect(path)
                break
            except OSError:
                self.sock.close()
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        self.buf = b""
        self.events = []
        self.recv()
        self.cmd("qmp_capabilities")

    def recv(self):
        while b"\n" not in self.buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError("QMP closed")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def cmd(self, name, **args):
        self.sock.sendall(json.dumps({"execute": name,
                                      "arguments": args}).encode() + b"\n")
        while True:
            msg = self.recv()
            if "event" in msg:
                self.events.append(msg)
                continue
            if "error" in msg:
                raise RuntimeError("%s: %s" % (name, msg["error"]["desc"]))
            return msg["return"]

    def wait_event(self, name, timeout=60):
        self.sock.settimeout(timeout)
        try:
            while True:
                for i, ev in enumerate(self.events):
                    if ev["event"] == name:
                        return self.events.pop(i)
                self.events.append(self.recv())
        finally:
            self.sock.settimeout(None)


def write_doc(text, script, section):
    """Replace the measured block of bench/SCRIPT in the section (between
    the markers), keeping the section's prose; add the section or block
    if missing."""
    begin = "<!-- bench/%s: begin -->" % script
    end = "<!-- bench/%s: end -->" % script
    block = begin + "\n" + text.rstrip("\n") + "\n" + end + "\n"
    doc = open(DOC).read()
    if begin in doc and end in doc:
        doc = doc[:doc.index(begin)] + block + \
            doc[doc.index(end) + len(end) + 1:]
    else:
        start = doc.find("\n" + section + "\n")
        if start < 0:
            doc = doc.rstrip("\n") + "\n\n" + section + "\n\n" + block
        else:
            nxt = doc.find("\n## ", start + 1)
            if nxt < 0:
                doc = doc.rstrip("\n") + "\n\n" + block
            else:
                doc = doc[:nxt + 1] + block + "\n" + doc[nxt + 1:]
    with open(DOC, "w") as f:
        f.write(doc)
