#!/usr/bin/env python3
"""Generate the option table and docs from qemu-options.hx.

Usage:
  hxtool.py def INPUT.hx OUTPUT.def   C include: DEF(...) and DEFHEADING("...")
  hxtool.py md INPUT.hx OUTPUT.md     markdown reference (docs/options.md)
  hxtool.py names INPUT.hx            every option name -help lists, one
                                      per line

The .hx format, one construct per line group:
  HXCOMM text                comment, dropped everywhere
  DEFHEADING(text)           starts a section
  DEF("name", flags, QEMU_OPTION_name, "help" "lines")   may span lines;
                             flags is HAS_ARG or 0, optionally with
                             "| UNSUPPORTED" (an option of QEMU 7.2 that is
                             not built yet: refused with "not supported
                             yet") or "| OTHER_TARGET" (one of QEMU 7.2 for
                             other targets: refused as QEMU refuses it,
                             left out of -help); help "" marks an alias of
                             the option defined just before it
  DOC ... ENDDOC             markdown for the DEF just before it (or the option
                             an alias just before it names; or, right after a
                             DEFHEADING, an introduction to the section)
Blank lines are ignored.  Anything else is an error.
"""

import os
import re
import sys

PROG = "hxtool"

MD_INTRO = """\
Options are written `-opt arg` or, equivalently, `--opt arg`. Most arguments
are lists of `key=value` pairs separated by commas
(`-machine type=pc,accel=kvm`). Many options have an implied first key, so the
first value may be given without its key: `-machine pc` is
`-machine type=pc`, `-m 512` is `-m size=512`. A literal comma inside a value
is written `,,` (`-kernel a,,b` names the file `a,b`). A bare `key` means
`key=on`. Boolean values accept `on|off`, `yes|no` and `true|false`. Sizes
take an optional suffix `K`, `M`, `G` or `T` (powers of 1024); a plain number
given to `-m` counts MiB, so `-m 512` is 512 MiB.

When an option is given more than once, what happens depends on the option:
repeated `-machine` (and `-overcommit`) options merge, key by key, later keys
winning; each `-object`, `-device`, `-chardev` and `-global` adds one more
item; for single-valued options such as `-m`, `-kernel` or `-cpu` the last one
wins.

Errors name the option they came from and end the process with exit status 1:

```
qemu-system-x86_64: <option>: <message>
```
"""


class HxError(Exception):
    pass


FLAG_WORDS = ("UNSUPPORTED", "OTHER_TARGET")


class Option:
    def __init__(self, name, flags, enum, help_text, line):
        self.name = name
        self.flags = flags      # set of words: HAS_ARG, UNSUPPORTED, ...
        self.enum = enum
        self.help = help_text
        self.line = line
        self.aliases = []
        self.doc = None

    @property
    def is_alias(self):
        return self.help == ""

    @property
    def built(self):
        return not self.flags & {"UNSUPPORTED", "OTHER_TARGET"}


class Heading:
    def __init__(self, text, line):
        self.text = text
        self.line = line
        self.doc = None


C_ESCAPES = {"n": "\n", "t": "\t", "\\": "\\", '"': '"', "'": "'",
             "0": "\0", "a": "\a", "b": "\b", "f": "\f", "r": "\r",
             "v": "\v", "?": "?"}


def c_unescape(body, where):
    out = []
    i = 0
    while i < len(body):
        c = body[i]
        if c == "\\":
            if i + 1 >= len(body):
                raise HxError("%s: stray backslash in string" % where)
            e = body[i + 1]
            if e not in C_ESCAPES:
                raise HxError("%s: unsupported escape \\%s in string"
                              % (where, e))
            out.append(C_ESCAPES[e])
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def c_quote(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


TOKEN_RE = re.compile(r'''
    \s+                              # whitespace
  | (?P<str>"(?:[^"\\\n]|\\.)*")     # string literal
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*|[0-9]+)
  | (?P<punct>[(),|])
''', re.VERBOSE)


def tokenize(text, where):
    tokens = []
    pos = 0
    while pos < len(text):
        m = TOKEN_RE.match(text, pos)
        if not m:
            raise HxError("%s: cannot parse DEF near %r"
                          % (where, text[pos:pos + 20]))
        pos = m.end()
        for kind in ("str", "ident", "punct"):
            if m.group(kind) is not None:
                tokens.append((kind, m.group(kind)))
    return tokens


def def_complete(text):
    """True once the DEF( ... ) text has its closing parenthesis."""
    depth = 0
    in_str = False
    i = 0
    while i < len(text):
        c = text[i]
        if in_str:
            if c == "\\":
                i += 1
            elif c == '"':
                in_str = False
        elif c == '"':
            in_str = True
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return text[i + 1:].strip() == ""
        i += 1
    return False


def parse_def(text, where):
    toks = tokenize(text, where)
    if toks[:2] != [("ident", "DEF"), ("punct", "(")] or \
            toks[-1] != ("punct", ")"):
        raise HxError("%s: expected DEF(name, flags, enum, help)" % where)
    args = [[]]
    for tok in toks[2:-1]:
        if tok == ("punct", ","):
            args.append([])
        elif tok == ("punct", "|") and len(args) == 2:
            args[-1].append(tok)
        elif tok[0] == "punct":
            raise HxError("%s: unexpected %r in DEF" % (where, tok[1]))
        else:
            args[-1].append(tok)
    if len(args) != 4 or any(not a for a in args):
        raise HxError("%s: DEF needs exactly 4 arguments: "
                      "name, flags, enum, help" % where)
    name_a, flags_a, enum_a, help_a = args
    if len(name_a) != 1 or name_a[0][0] != "str":
        raise HxError("%s: DEF name must be one string literal" % where)
    name = c_unescape(name_a[0][1][1:-1], where)
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_-]*", name):
        raise HxError("%s: bad option name %r (no leading dash)"
                      % (where, name))
    words = [t[1] for t in flags_a[0::2]]
    if any(t != ("punct", "|") for t in flags_a[1::2]) or \
            len(flags_a) % 2 == 0 or words[0] not in ("HAS_ARG", "0") or \
            any(w not in FLAG_WORDS for w in words[1:]) or \
            len(set(words)) != len(words) or \
            set(FLAG_WORDS) <= set(words):
        raise HxError("%s: -%s: flags must be HAS_ARG or 0, optionally "
                      "| UNSUPPORTED or | OTHER_TARGET" % (where, name))
    flags = set(words) - {"0"}
    if len(enum_a) != 1 or enum_a[0][0] != "ident":
        raise HxError("%s: -%s: enum must be an identifier" % (where, name))
    enum = enum_a[0][1]
    want = "QEMU_OPTION_" + name.replace("-", "_")
    if enum != want:
        raise HxError("%s: -%s: enum is %s, expected %s"
                      % (where, name, enum, want))
    if any(t[0] != "str" for t in help_a):
        raise HxError("%s: -%s: help must be string literals" % (where, name))
    help_text = "".join(c_unescape(t[1][1:-1], where) for t in help_a)
    if help_text and not help_text.endswith("\n"):
        raise HxError("%s: -%s: help text must end with \\n" % (where, name))
    if help_text and help_text[0].isspace():
        raise HxError("%s: -%s: help text must start with the synopsis"
                      % (where, name))
    return Option(name, flags, enum, help_text, where)


def parse(path):
    """Return (items, def_lines): items are Heading/Option in file order."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
    except OSError as e:
        raise HxError("%s: %s" % (path, e.strerror))
    if lines and lines[-1] == "":
        lines.pop()

    items = []
    def_lines = []
    names = {}
    last = None         # item a DOC block may attach to
    i = 0
    while i < len(lines):
        line = lines[i]
        where = "%s:%d" % (path, i + 1)
        stripped = line.strip()
        if line.startswith("HXCOMM"):
            i += 1
            continue
        if stripped == "":
            i += 1
            continue
        if stripped == "DOC":
            start = i
            body = []
            i += 1
            while i < len(lines) and lines[i].strip() != "ENDDOC":
                if lines[i].strip() == "DOC" or lines[i].startswith("DEF"):
                    raise HxError("%s:%d: DOC opened at line %d has no ENDDOC"
                                  % (path, i + 1, start + 1))
                body.append(lines[i].rstrip())
                i += 1
            if i >= len(lines):
                raise HxError("%s: unterminated DOC (no ENDDOC)" % where)
            if last is None:
                raise HxError("%s: DOC must follow a DEF or DEFHEADING"
                              % where)
            if isinstance(last, Option) and last.is_alias:
                last = last.primary     # aliases share their option's DOC
            if last.doc is not None:
                raise HxError("%s: second DOC block for %s"
                              % (where, last.line))
            while body and body[0] == "":
                body.pop(0)
            while body and body[-1] == "":
                body.pop()
            last.doc = "\n".join(body)
            last = None
            i += 1
            continue
        if stripped == "ENDDOC":
            raise HxError("%s: ENDDOC without DOC" % where)
        if line.startswith("DEFHEADING"):
            m = re.fullmatch(r"DEFHEADING\((.*)\)\s*", line)
            if not m or not m.group(1).strip():
                raise HxError("%s: expected DEFHEADING(text)" % where)
            h = Heading(m.group(1).strip(), where)
            items.append(h)
            def_lines.append("DEFHEADING(%s)" % c_quote(h.text))
            last = h
            i += 1
            continue
        if line.startswith("DEF("):
            start = i
            text = line
            while not def_complete(text):
                i += 1
                if i >= len(lines) or lines[i].startswith(("DEF", "DOC",
                                                           "HXCOMM")):
                    raise HxError("%s: unterminated DEF(" % where)
                text += "\n" + lines[i]
            opt = parse_def(text, where)
            if opt.name in names:
                raise HxError("%s: duplicate option -%s (first at %s)"
                              % (where, opt.name, names[opt.name]))
            names[opt.name] = where
            if opt.is_alias:
                prev = items[-1] if items else None
                if not isinstance(prev, Option):
                    raise HxError("%s: alias -%s must directly follow the "
                                  "DEF it aliases" % (where, opt.name))
                target = prev
                while target.is_alias:
                    target = target.primary
                opt.primary = target
                target.aliases.append(opt.name)
            items.append(opt)
            def_lines.extend(lines[start:i + 1])
            last = opt
            i += 1
            continue
        raise HxError("%s: unexpected line: %s" % (where, line))
    if not items:
        raise HxError("%s: no options defined" % path)
    return items, def_lines


def gen_def(items, def_lines, src):
    out = ["/* generated from %s by scripts/hxtool.py; do not edit */"
           % os.path.basename(src)]
    out.extend(def_lines)
    return "\n".join(out) + "\n"


def gen_md(items, src):
    out = ["# Command-line options", "",
           "<!-- generated from %s by scripts/hxtool.py; do not edit -->"
           % os.path.basename(src), "", MD_INTRO.rstrip("\n")]
    for item in items:
        if isinstance(item, Heading):
            out += ["", "## " + item.text.rstrip(":")]
            if item.doc:
                out += ["", item.doc]
            continue
        if item.is_alias:
            continue
        if not item.built:
            # One bullet: the synopsis, then what the help says.
            lines = item.help.rstrip("\n").split("\n")
            synopsis = lines[0][:16].rstrip() if len(lines[0]) > 16 \
                and lines[0][15] == " " else lines[0]
            words = [lines[0][len(synopsis):].strip()] + \
                [l.strip() for l in lines[1:]]
            text = " ".join(w for w in words if w)
            if "OTHER_TARGET" in item.flags:
                text += " (*other targets*)"
            out += ["- `%s`%s" % (synopsis, ": " + text if text else "")]
            if item.doc:
                raise HxError("%s: -%s: an option not built has no DOC"
                              % (item.line, item.name))
            continue
        # explanation lines are indented 16 columns; the rest (including
        # continued synopsis lines such as -boot's) is the synopsis
        synopsis = [l for l in item.help.split("\n")
                    if l and not l.startswith(" " * 16)]
        out += ["", "### -" + item.name, "", "```"] + synopsis + ["```"]
        if item.aliases:
            out += ["", "Alias: " + ", ".join("`-%s`" % a
                                              for a in item.aliases) + "."]
        if item.doc:
            out += ["", item.doc]
    return "\n".join(out) + "\n"


def write_file(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
    os.replace(tmp, path)


def usage():
    sys.stderr.write("usage: %s def INPUT.hx OUTPUT.def\n"
                     "       %s md INPUT.hx OUTPUT.md\n"
                     "       %s check-md INPUT.hx DOC.md\n"
                     "       %s names INPUT.hx\n" % ((sys.argv[0],) * 4))
    return 1


def main(argv):
    if len(argv) < 2:
        return usage()
    mode, args = argv[1], argv[2:]
    want = {"def": 2, "md": 2, "check-md": 2, "names": 1}
    if mode not in want or len(args) != want[mode]:
        return usage()
    try:
        items, def_lines = parse(args[0])
        if mode == "def":
            write_file(args[1], gen_def(items, def_lines, args[0]))
        elif mode == "md":
            write_file(args[1], gen_md(items, args[0]))
        elif mode == "check-md":
            with open(args[1], encoding="utf-8") as f:
                if f.read() != gen_md(items, args[0]):
                    sys.stderr.write("%s: %s is out of date; run: python3 "
                                     "scripts/hxtool.py md %s %s\n"
                                     % (PROG, args[1], args[0], args[1]))
                    return 1
        else:
            # the options -help lists
            sys.stdout.write("".join("-%s\n" % o.name for o in items
                                     if isinstance(o, Option) and
                                     "OTHER_TARGET" not in o.flags))
    except HxError as e:
        sys.stderr.write("%s: %s\n" % (PROG, e))
        return 1
    except OSError as e:
        sys.stderr.write("%s: %s: %s\n"
                         % (PROG, e.filename or "", e.strerror))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
