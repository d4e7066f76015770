"""The QMP schema: reading qapi/*.json into a checked model.

The files are QEMU's QAPI dialect: a sequence of JSON-like objects with
single-quoted strings and '#' comments. A comment block that starts and
ends with a '##' line documents the definition after it:

    ##
    # @query-status:
    #
    # What the VM is doing.
    #
    # @arg: text for one member (continuation lines indented)
    #
    # Returns: text
    #
    # Since: 0.14
    ##

Definitions (a subset of QEMU's):
    {'include': 'FILE.json'}
    {'enum': NAME, 'data': [VALUE | {'name': V, 'if': C}], 'prefix'?: P}
    {'struct': NAME, 'data': MEMBERS, 'base'?: STRUCT}
    {'union': NAME, 'base': STRUCT | MEMBERS, 'discriminator': MEMBER,
     'data': {VALUE: STRUCT}}
    {'alternate': NAME, 'data': {BRANCH: TYPE}}
    {'command': NAME, 'data'?: STRUCT | MEMBERS, 'returns'?: TYPE,
     'allow-oob'?: true, 'boxed'?: true, 'gen'?: false}
        boxed: 'data' may be a union, handed over whole; gen false: the
        arguments are not checked, the handler takes them as JSON ('data'
        only documents the members every call has)
    {'event': NAME, 'data'?: STRUCT | MEMBERS}
MEMBERS maps NAME (a leading '*' marks it optional) to TYPE or
{'type': TYPE, 'if': C, 'features': [...]}; TYPE is a name or [NAME]
(a list). Every definition may carry 'if' and 'features'. A condition C
is a config-host.h macro name ('HAVE_FOO', true when defined non-zero)
or {'all': [C...]}, {'any': [C...]}, {'not': C}.
"""

import os
import re


class SchemaError(Exception):
    pass


# name -> (JSON type for introspection, C type, C visitor suffix). The
# sized integers are held in 64 bits; their ranges are not checked.
BUILTINS = {
    'str': ('string', 'char *', 'str'),
    'int': ('int', 'int64_t', 'int'),
    'int8': ('int', 'int64_t', 'int'),
    'int16': ('int', 'int64_t', 'int'),
    'int32': ('int', 'int64_t', 'int'),
    'int64': ('int', 'int64_t', 'int'),
    'uint8': ('int', 'uint64_t', 'uint'),
    'uint16': ('int', 'uint64_t', 'uint'),
    'uint32': ('int', 'uint64_t', 'uint'),
    'uint64': ('int', 'uint64_t', 'uint'),
    'size': ('int', 'uint64_t', 'uint'),
    'number': ('number', 'double', 'number'),
    'bool': ('boolean', 'bool', 'bool'),
    'null': ('null', 'bool', 'null'),
    'any': ('value', 'JsonNode *', 'any'),
}


# ---- reading ----

TOKEN = re.compile(r"""\s*(?:(\#\#[^\n]*\n)|(\#[^\n]*)|('(?:[^'\\\n]|\\.)*')
                   |([{}\[\]:,])|(true|false)|(\S))""", re.X)


class Reader:
    """Tokens and doc blocks of one file."""

    def __init__(self, path):
        self.path = path
        with open(path, encoding='utf-8') as f:
            self.text = f.read()
        self.pos = 0
        self.doc = None         # lines of the last doc block

    def where(self):
        line = self.text.count('\n', 0, self.pos) + 1
        return '%s:%d' % (self.path, line)

    def error(self, msg):
        raise SchemaError('%s: %s' % (self.where(), msg))

    def _read_doc(self):
        lines = []
        while True:
            end = self.text.find('\n', self.pos)
            if end < 0:
                self.error("doc comment not closed by '##'")
            line = self.text[self.pos:end].strip()
            self.pos = end + 1
            if line == '##':
                return lines
            if not line.startswith('#'):
                self.error("doc comment line must start with '#'")
            lines.append(line[2:] if line.startswith('# ') else line[1:])

    def token(self):
        while True:
            m = TOKEN.match(self.text, self.pos)
            if not m or m.end() == m.start() or not m.group(0).strip():
                self.pos = len(self.text)
                return None
            self.pos = m.end()
            if m.group(1):
                if m.group(1).strip() != '##':
                    self.error("'##' starts a doc line of its own")
                self.doc = self._read_doc()
                continue
            if m.group(2):
                continue
            if m.group(3):
                return ('str', m.group(3)[1:-1].replace("\\'", "'"))
            if m.group(4):
                return ('punct', m.group(4))
            if m.group(5):
                return ('bool', m.group(5) == 'true')
            self.error("stray '%s'" % m.group(6))

    def value(self, tok=None):
        tok = tok or self.token()
        if tok is None:
            self.error('unexpected end of file')
        kind, val = tok
        if kind in ('str', 'bool'):
            return val
        if val == '{':
            obj = {}
            tok = self.token()
            if tok == ('punct', '}'):
                return obj
            while True:
                if not tok or tok[0] != 'str':
                    self.error('expected a string key')
                key = tok[1]
                if key in obj:
                    self.error("duplicate key '%s'" % key)
                if self.token() != ('punct', ':'):
                    self.error("expected ':'")
                obj[key] = self.value()
                tok = self.token()
                if tok == ('punct', '}'):
                    return obj
                if tok != ('punct', ','):
                    self.error("expected ',' or '}'")
                tok = self.token()
        if val == '[':
            arr = []
            tok = self.token()
            if tok == ('punct', ']'):
                return arr
            while True:
                arr.append(self.value(tok))
                tok = self.token()
                if tok == ('punct', ']'):
                    return arr
                if tok != ('punct', ','):
                    self.error("expected ',' or ']'")
                tok = self.token()
        self.error("unexpected '%s'" % val)

    def definitions(self):
        while True:
            self.doc = None
            tok = self.token()
            if tok is None:
                return
            doc = self.doc
            where = self.where()
            expr = self.value(tok)
            if not isinstance(expr, dict):
                self.error('a definition must be an object')
            yield expr, doc, where


# ---- doc blocks ----

class Doc:
    """A doc block: the symbol, its text, member texts and sections."""

    def __init__(self, lines, where):
        if not lines or not re.match(r'@[\w-]+:$', lines[0]):
            raise SchemaError('%s: doc block must start with @NAME:' % where)
        self.symbol = lines[0][1:-1]
        self.body = []
        self.args = {}
        self.sections = []      # (title, lines)
        cur = self.body
        for line in lines[1:]:
            m = re.match(r'@([\w-]+):\s*(.*)$', line)
            s = re.match(r'(Returns|Since|Example|Errors|Note):\s*(.*)$',
                         line)
            if m:
                cur = [m.group(2)] if m.group(2) else []
                self.args[m.group(1)] = cur
            elif s:
                cur = [s.group(2)] if s.group(2) else []
                self.sections.append((s.group(1), cur))
            else:
                cur.append(line)

    @staticmethod
    def text(lines):
        return ' '.join(l.strip() for l in lines if l.strip())


# ---- the model ----

class Entity:
    def __init__(self, meta, name, expr, doc, where):
        self.meta = meta
        self.name = name
        self.expr = expr
        self.doc = doc
        self.where = where
        self.cond = expr.get('if')
        self.features = features(expr.get('features', []))

    def error(self, msg):
        raise SchemaError('%s: %s %s: %s' % (self.where, self.meta,
                                             self.name, msg))


def features(lst):
    return [f if isinstance(f, dict) else {'name': f} for f in lst]


class Member:
    def __init__(self, key, spec):
        self.optional = key.startswith('*')
        self.name = key[1:] if self.optional else key
        if isinstance(spec, dict):
            self.type = spec['type']
            self.cond = spec.get('if')
            self.features = features(spec.get('features', []))
        else:
            self.type = spec
            self.cond = None
            self.features = []


class Schema:
    def __init__(self, main_file):
        self.entities = []              # in definition order
        self.by_name = {}
        self.files = []
        self._read(main_file)
        self._check()

    def _read(self, path):
        path = os.path.normpath(path)
        if path in self.files:
            return
        self.files.append(path)
        reader = Reader(path)
        for expr, doc_lines, where in reader.definitions():
            if 'include' in expr:
                self._read(os.path.join(os.path.dirname(path),
                                        expr['include']))
                continue
            if 'pragma' in expr:
                continue
            meta = next((k for k in ('enum', 'struct', 'union',
                                     'alternate', 'command', 'event')
                         if k in expr), None)
            if not meta:
                raise SchemaError('%s: unknown definition' % where)
            name = expr[meta]
            doc = Doc(doc_lines, where) if doc_lines else None
            if doc and doc.symbol != name:
                raise SchemaError("%s: doc block is for '%s', not '%s'"
                                  % (where, doc.symbol, name))
            ent = Entity(meta, name, expr, doc, where)
            if name in self.by_name:
                ent.error('defined twice')
            self.by_name[name] = ent
            self.entities.append(ent)

    def lookup(self, name):
        return self.by_name.get(name)

    def of(self, meta):
        return [e for e in self.entities if e.meta == meta]

    # Commands and events with inline 'data' get an implicit struct,
    # as QEMU's q_obj_NAME_arg.
    def _members(self, ent, spec, what):
        if spec is None:
            return []
        if isinstance(spec, str):
            base = self.lookup(spec)
            # A command may take a union as a whole ('boxed': true).
            boxed = ent.meta == 'command' and ent.expr.get('boxed')
            if not base or (base.meta != 'struct' and
                            not (boxed and base.meta == 'union')):
                ent.error("%s '%s' is not a struct" % (what, spec))
            return self.all_members(base)
        if not isinstance(spec, dict):
            ent.error('%s must be a struct name or an object' % what)
        return [Member(k, v) for k, v in spec.items()]

    def all_members(self, ent):
        """Members of a struct or a union's base, base members first."""
        if ent.meta == 'struct':
            base = ent.expr.get('base')
            own = [Member(k, v) for k, v in ent.expr['data'].items()]
            return (self._members(ent, base, 'base') if base else []) + own
        if ent.meta == 'union':
            return self._members(ent, ent.expr['base'], 'base')
        return self._members(ent, ent.expr.get('data'), 'data')

    def _check_type(self, ent, t):
        if isinstance(t, list):
            if len(t) != 1 or not isinstance(t[0], str):
                ent.error('a list type is [NAME]')
            t = t[0]
        if t not in BUILTINS and not self.lookup(t):
            ent.error("unknown type '%s'" % t)
        if t in self.by_name and self.by_name[t].meta in ('command', 'event'):
            ent.error("'%s' is not a type" % t)

    def _check(self):
        for ent in self.entities:
            if not ent.doc:
                ent.error('has no doc block')
            if ent.meta == 'enum':
                ent.values = [v if isinstance(v, dict) else {'name': v}
                              for v in ent.expr['data']]
                continue
            if ent.meta == 'alternate':
                for t in ent.expr['data'].values():
                    self._check_type(ent, t)
                continue
            ent.members = self.all_members(ent)
            for m in ent.members:
                self._check_type(ent, m.type)
                if ent.doc and m.name not in ent.doc.args and \
                        ent.meta != 'union':
                    own = ent.meta != 'struct' or \
                        m.name in [k.lstrip('*')
                                   for k in ent.expr['data']]
                    if own and not isinstance(ent.expr.get('data'), str):
                        ent.error("member '%s' is not documented" % m.name)
            if ent.meta == 'union':
                disc = ent.expr['discriminator']
                tag = next((m for m in ent.members if m.name == disc), None)
                if not tag or not self.lookup(tag.type) or \
                        self.lookup(tag.type).meta != 'enum':
                    ent.error('discriminator must be an enum member')
                ent.tag = tag
                values = [v['name'] for v in self.lookup(tag.type).values]
                for case, t in ent.expr['data'].items():
                    t = t['type'] if isinstance(t, dict) else t
                    if case not in values:
                        ent.error("'%s' is not a value of %s"
                                  % (case, tag.type))
                    if not self.lookup(t) or self.lookup(t).meta != 'struct':
                        ent.error("branch '%s' must be a struct" % case)
            if ent.meta == 'command' and 'returns' in ent.expr:
                self._check_type(ent, ent.expr['returns'])


# ---- names ----

def c_name(name):
    return re.sub(r'[^A-Za-z0-9_]', '_', name)


def camel_to_upper(name):
    out = ''
    for i, ch in enumerate(name):
        if ch.isupper() and i > 0 and (
                name[i - 1].islower() or
                (i + 1 < len(name) and name[i + 1].islower() and
                 name[i - 1].isupper())):
            out += '_'
        out += ch
    return c_name(out).upper()


def enum_const(ent, value):
    prefix = ent.expr.get('prefix', camel_to_upper(ent.name))
    return '%s_%s' % (prefix, c_name(value).upper())


def cond_expr(cond):
    """The C preprocessor test for a condition, or None."""
    if cond is None:
        return None
    if isinstance(cond, str):
        if not re.match(r'[A-Z_][A-Z0-9_]*$', cond):
            raise SchemaError("bad condition '%s'" % cond)
        return '(defined(%s) && %s)' % (cond, cond)
    if 'all' in cond:
        return '(' + ' && '.join(cond_expr(c) for c in cond['all']) + ')'
    if 'any' in cond:
        return '(' + ' || '.join(cond_expr(c) for c in cond['any']) + ')'
    if 'not' in cond:
        return '!' + cond_expr(cond['not'])
    raise SchemaError('bad condition %r' % (cond,))


def cond_text(cond):
    """The condition as the docs print it."""
    if isinstance(cond, str):
        return cond
    if 'all' in cond:
        return ' and '.join(cond_text(c) for c in cond['all'])
    if 'any' in cond:
        return ' or '.join(cond_text(c) for c in cond['any'])
    return 'not ' + cond_text(cond['not'])
