"""The cases each suite must report, read from the sources, never typed
twice and never taken from the output.

KUnit (kunit/*.h): a file starts with `#ifdef CONFIG_X`, the Kconfig symbol
that enables its suites.  A suite is `static struct kunit_suite VAR = {
.name = "S", ... .test_cases = ARR, }` and `static struct kunit_case ARR[] =
{ KUNIT_CASE(fn), KUNIT_CASE_PARAM(fn, P_gen_params), {} }`.  KUNIT_CASE(fn)
is the case S.fn; KUNIT_CASE_PARAM(fn, P_gen_params) with
`KUNIT_ARRAY_PARAM(P, TABLE, desc)` is one case S.fn.ROW per element of
`TABLE[] = { ... }`, ROW being the element's first string literal.  A
kunitconfig run expects the suites whose CONFIG_X it sets to y.

Userspace (initramfs/plan): `case SUITE NAME ...` and `skip SUITE NAME ...`
are SUITE.NAME; `suite SUITE USER MEMLOCK TIMEOUT SYSCTL COMMAND [ARG...]` is
SUITE.ROW for each top-level element of the array `cases[]` of
uapi/COMMAND.c, ROW being its first string literal (`{ "name", ... }` or a
bare `"name"`).

Case names are full: 'suite.case' or 'suite.case.row', as results.py names
what kunit.py reported.
"""

import glob
import os
import re


class SourceError(Exception):
    """A source the expected cases cannot be read from, and why."""


STRING = re.compile(r'"((?:[^"\\\n]|\\.)*)"')


def strip_comments(src):
    """C source without its /* */ and // comments (string and character
    literals kept as they are)."""
    out, i, n = [], 0, len(src)
    while i < n:
        c = src[i]
        if c in '"\'':
            j = i + 1
            while j < n and src[j] != c and src[j] != '\n':
                j += 2 if src[j] == '\\' else 1
            out.append(src[i:j + 1])
            i = j + 1
        elif src.startswith('/*', i):
            j = src.find('*/', i + 2)
            i = n if j < 0 else j + 2
            out.append(' ')
        elif src.startswith('//', i):
            j = src.find('\n', i)
            i = n if j < 0 else j
        else:
            out.append(c)
            i += 1
    return ''.join(out)


def _skip_literal(src, i):
    """The index after the string or character literal starting at i."""
    q, j = src[i], i + 1
    while j < len(src) and src[j] != q:
        j += 2 if src[j] == '\\' else 1
    return j + 1


def _closing(src, start, what):
    """The index of the bracket that closes the one at start (comments
    already stripped; brackets in literals do not count)."""
    depth, i = 0, start
    while i < len(src):
        c = src[i]
        if c in '"\'':
            i = _skip_literal(src, i)
            continue
        depth += (c in '({[') - (c in ')}]')
        if depth == 0:
            return i
        i += 1
    raise SourceError(f'unbalanced {what} from offset {start}')


def braced(src, start):
    """The text inside the braces whose '{' is at start."""
    return src[start + 1:_closing(src, start, 'braces')]


def elements(body):
    """The top-level elements of an initializer list, split at the commas
    outside any (), [] or {}; empty ones (a trailing comma) left out."""
    parts, depth, last, i = [], 0, 0, 0
    while i < len(body):
        c = body[i]
        if c in '"\'':
            i = _skip_literal(body, i)
            continue
        if c in '({[':
            depth += 1
        elif c in ')}]':
            depth -= 1
        elif c == ',' and depth == 0:
            parts.append(body[last:i])
            last = i + 1
        i += 1
    parts.append(body[last:])
    return [p.strip() for p in parts if p.strip()]


def array(src, name):
    """The initializer of the array `name[] = { ... }` in src (comments
    stripped), or None if there is none."""
    m = re.search(r'\b%s\s*\[[^\]]*\]\s*=\s*\{' % re.escape(name), src)
    return None if m is None else braced(src, m.end() - 1)


def row_names(body):
    """The first string literal of each top-level element that has one (a
    sentinel {} has none)."""
    names = []
    for elem in elements(body):
        m = STRING.search(elem)
        if m:
            names.append(m.group(1))
    return names


# --- KUnit ---

def kunit_suites(kunit_dir):
    """suite -> (Kconfig symbol, [case names]) for every suite of
    kunit_dir/*.h."""
    files = {}
    for path in sorted(glob.glob(os.path.join(kunit_dir, '*.h'))):
        with open(path) as f:
            files[path] = strip_comments(f.read())
    everything = '\n'.join(files.values())
    params = array_params(everything)
    suites = {}
    for path, src in files.items():
        where = os.path.basename(path)
        for m in re.finditer(r'static\s+struct\s+kunit_suite\s+\w+\s*=\s*\{', src):
            body = braced(src, m.end() - 1)
            name = re.search(r'\.name\s*=\s*"([^"]*)"', body)
            arr = re.search(r'\.test_cases\s*=\s*(\w+)', body)
            config = re.search(r'^\s*#\s*if(?:def\s+|\s+IS_ENABLED\()\s*(CONFIG_\w+)',
                               src, re.M)
            if not (name and arr and config):
                raise SourceError(f'kunit/{where}: a kunit_suite without .name, '
                                  '.test_cases or a leading #ifdef CONFIG_')
            suite = name.group(1)
            if suite in suites:
                raise SourceError(f'kunit/{where}: suite {suite} defined twice')
            suites[suite] = (config.group(1),
                             _kunit_cases(everything, params, where, suite,
                                          arr.group(1)))
    return suites


def call_args(src, start):
    """The arguments of the call whose '(' is at start, stripped."""
    return elements(src[start + 1:_closing(src, start, 'parentheses')])


def array_params(src):
    """prefix -> table of every KUNIT_ARRAY_PARAM(prefix, table, desc) in
    src, written as such or through a macro of src that passes two of its
    parameters on as prefix and table (e.g. MM_TEST_ARRAY_PARAM(prefix,
    table))."""
    macros = {'KUNIT_ARRAY_PARAM': (0, 1)}
    for m in re.finditer(r'#\s*define\s+(\w+)\(([^)]*)\)((?:.*\\\n)*.*)', src):
        params = [p.strip() for p in m.group(2).split(',')]
        inner = re.search(r'\bKUNIT_ARRAY_PARAM\s*\(\s*(\w+)\s*,\s*(\w+)', m.group(3))
        if inner and inner.group(1) in params and inner.group(2) in params:
            macros[m.group(1)] = (params.index(inner.group(1)),
                                  params.index(inner.group(2)))
    found = {}
    for macro, (p, t) in macros.items():
        for m in re.finditer(r'\b%s\s*\(' % macro, src):
            args = call_args(src, m.end() - 1)
            if len(args) > max(p, t):
                found.setdefault(args[p], args[t])
    return found


def _kunit_cases(src, params, where, suite, arr):
    body = array(src, arr)
    if body is None:
        raise SourceError(f'kunit/{where}: {suite}: no array {arr}[]')
    cases = []
    for m in re.finditer(r'\bKUNIT_CASE(_PARAM)?\s*\(\s*(\w+)\s*(?:,\s*(\w+)\s*)?\)', body):
        param, fn, gen = m.groups()
        if not param:
            cases.append(f'{suite}.{fn}')
            continue
        if not gen.endswith('_gen_params'):
            raise SourceError(f'kunit/{where}: {suite}.{fn}: generator {gen} is '
                              'not one of KUNIT_ARRAY_PARAM')
        prefix = gen[:-len('_gen_params')]
        name = params.get(prefix)
        table = name and array(src, name)
        if table is None:
            raise SourceError(f'kunit/{where}: {suite}.{fn}: no KUNIT_ARRAY_PARAM'
                              f'({prefix}, ...) with its table')
        cases += [f'{suite}.{fn}.{row}' for row in row_names(table)]
    return cases


def kunitconfig_symbols(path):
    """The CONFIG_ symbols a .kunitconfig sets to y."""
    with open(path) as f:
        return {m.group(1) for m in (re.match(r'\s*(CONFIG_\w+)=y\s*$', line)
                                     for line in f) if m}


def kunit_expected(root, kunitconfig, arch=None):
    """suite -> [case names] expected in a run of kunitconfigs/NAME, with
    what kunitconfigs/ARCH/NAME adds on that arch, if there is one."""
    path = os.path.join(root, 'kunitconfigs', f'{kunitconfig}.kunitconfig')
    try:
        enabled = kunitconfig_symbols(path)
    except OSError as e:
        raise SourceError(f'{path}: {e.strerror}') from None
    extra = arch and os.path.join(root, 'kunitconfigs', arch,
                                  f'{kunitconfig}.kunitconfig')
    if extra and os.path.exists(extra):
        enabled |= kunitconfig_symbols(extra)
    return {suite: cases for suite, (config, cases)
            in kunit_suites(os.path.join(root, 'kunit')).items()
            if config in enabled}


# --- Userspace ---

def uapi_cases(path):
    """The case names of a uapi program: its array cases[]."""
    try:
        with open(path) as f:
            src = strip_comments(f.read())
    except OSError as e:
        raise SourceError(f'{path}: {e.strerror}') from None
    body = array(src, 'cases')
    if body is None:
        raise SourceError(f'{path}: no array cases[]')
    names = row_names(body)
    if not names:
        raise SourceError(f'{path}: cases[] names no case')
    return names


def userspace_expected(root):
    """suite -> [case names] for a run of initramfs/plan (on either kernel),
    in the plan's order; a suite whose program's cases cannot be read maps
    to the SourceError saying why."""
    plan = os.path.join(root, 'initramfs', 'plan')
    suites = {}
    try:
        with open(plan) as f:
            lines = f.readlines()
    except OSError as e:
        raise SourceError(f'{plan}: {e.strerror}') from None
    for number, line in enumerate(lines, 1):
        words = line.split()
        if not words or words[0].startswith('#'):
            continue
        if words[0] in ('case', 'skip') and len(words) >= 3:
            cases = suites.setdefault(words[1], [])
            if isinstance(cases, list):
                cases.append(f'{words[1]}.{words[2]}')
        elif words[0] == 'suite' and len(words) >= 7:
            suite = words[1]
            src = os.path.join(root, 'uapi', f'{words[6]}.c')
            try:
                names = [f'{suite}.{n}' for n in uapi_cases(src)]
            except SourceError as e:
                suites[suite] = e
                continue
            cases = suites.setdefault(suite, [])
            if isinstance(cases, list):
                cases += names
        else:
            raise SourceError(f'{plan}:{number}: not a case, skip or suite line')
    return suites
