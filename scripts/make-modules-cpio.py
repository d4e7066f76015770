#!/usr/bin/env python3
"""Write an initramfs archive (cpio "newc") of kernel modules, with what
they depend on, for the Linux test guest.

The modules come from an unpacked linux-image package (ROOT/lib/modules/
VERSION/...); Debian ships no modules.dep (depmod makes it when the
package is installed), so the dependencies are read from each module's
own .modinfo ("depends=..."). The archive holds the modules under
/lib/modules/ and /lib/modules/load-order, their names in an order that
loads each after what it needs, which /init insmods when present.

Usage: make-modules-cpio.py ROOT OUT MODULE...
"""
import os
import re
import sys



def entry(out, ino, name, mode, data=b""):
    name_b = name.encode() + b"\0"
    nlink = 2 if mode & 0o040000 else 1
    hdr = "070701" + "".join("%08X" % v for v in (
        ino, mode, 0, 0, nlink, 0, len(data), 0, 0, 0, 0,
        len(name_b), 0))
    out.write(hdr.encode() + name_b)
    out.write(b"\0" * (-(110 + len(name_b)) % 4))
    out.write(data)
    out.write(b"\0" * (-len(data) % 4))


def index(root):
    """Module name (dashes as underscores) -> path of its .ko."""
    found = {}
    for d, _, files in os.walk(root):
        for f in files:
            if f.endswith(".ko"):
                found[f[:-3].replace("-", "_")] = os.path.join(d, f)
    return found


def depends(path):
    data = open(path, "rb").read()
    m = re.search(rb"(?:^|\0)depends=([^\0]*)\0", data)
    if not m or not m.group(1):
        return []
    return [n.decode().replace("-", "_") for n in m.group(1).split(b",")]


def main():
    if len(sys.argv) < 4:
        sys.exit("usage: make-modules-cpio.py ROOT OUT MODULE...")
    root, out_path, wanted = sys.argv[1], sys.argv[2], sys.argv[3:]
    mods = index(os.path.join(root, "lib", "modules"))
    order = []

    def visit(name, chain):
        name = name.replace("-", "_")
        if name in order:
            return
        if name in chain:
            sys.exit("make-modules-cpio.py: dependency loop at " + name)
        if name not in mods:
            sys.exit("make-modules-cpio.py: no module " + name)
        for dep in depends(mods[name]):
            visit(dep, chain + [name])
        order.append(name)

    for w in wanted:
        visit(w, [])
    with open(out_path, "wb") as out:
        ino = 1
        for d in ("lib", "lib/modules"):
            entry(out, ino, d, 0o040755)
            ino += 1
        for name in order:
            with open(mods[name], "rb") as f:
                entry(out, ino, "lib/modules/%s.ko" % name, 0o100644,
                      f.read())
            ino += 1
        entry(out, ino, "lib/modules/load-order", 0o100644,
              ("\n".join(order) + "\n").encode())
        entry(out, 0, "TRAILER!!!", 0)
    print(" ".join(order))


main()
