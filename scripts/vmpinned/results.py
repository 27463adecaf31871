"""kunit.py's JSON as cases, and one run checked against the cases the
sources define (expected.py).

kunit.py --json (kunit_json.py): a top group "KUnit Test Group" whose
sub_groups are the suites; a suite's test_cases are its plain cases, its
sub_groups its parameterised cases, whose test_cases are the rows.  A test
with no subtest is a test_case: a suite that printed no case shows as a
top-level test_case named after it, and a subtest that its parent's plan
announced and that never came as a nameless test_case with status ERROR.

The counting rule, for one run (an arch x kunitconfig, or an arch x
userspace kernel), suite by suite:

- an expected case reported PASS is passed, SKIP skipped, anything else
  (FAIL, ERROR) failed;
- an expected case that is not reported is missing: one failure;
- a reported entry that is not an expected case is unexpected: kunit.py's
  nameless ERROR, a parameterised case that printed no row, a name the
  sources do not have.  Such entries stand for missing cases, so they fail
  only beyond them.  A suite fails

      failed + max(missing, unexpected)

  so one missing case is one failure however kunit.py shows it.
- A top-level entry named after an expected suite is an unexpected entry of
  that suite; nameless top-level entries stand for the expected suites that
  reported nothing and fail only beyond their number; every entry of a suite
  the sources do not define is unexpected.
- A suite whose cases the sources cannot give (a uapi program without its
  cases[] array) fails once, and its named cases count as reported.

Then the run as a whole (summary.py): a kernel that stopped (no JSON, no
case, init's plan unfinished) fails once if no case counted the stop
already; a kernel report in the console, a missing console and a
non-zero exit status of kunit.py (NAME.rc) while no case failed and a
console of another kernel than the one just built (NAME.booted) fail once
each.
"""

import json
from dataclasses import dataclass, field


def _leaves(group, here):
    for case in group.get('test_cases', []):
        name = case.get('name') or ''
        yield (f'{here}.{name}' if name else ''), case.get('status') or 'ERROR'
    for sub in group.get('sub_groups', []):
        yield from _leaves(sub, f'{here}.{sub.get("name") or ""}')


def read(json_path):
    """[(suite, name, status)] for every leaf of a kunit.py JSON file, in
    the JSON's order (a suite's plain cases before its parameterised ones).  name is the full 'suite.case[.row]', or '' for a nameless
    entry; suite is '' for a leaf at the top (a suite that printed no case,
    or a nameless ERROR), then name is the suite's.  Raises OSError or
    ValueError."""
    with open(json_path) as f:
        top = json.load(f)
    out = [('', c.get('name') or '', c.get('status') or 'ERROR')
           for c in top.get('test_cases', [])]
    for sub in top.get('sub_groups', []):
        suite = sub.get('name') or ''
        out += [(suite, name, status) for name, status in _leaves(sub, suite)]
    return out


def statuses(json_path):
    """name -> status of every named case of a kunit.py JSON file ({} if it
    cannot be read)."""
    try:
        return {name: status for _, name, status in read(json_path) if name}
    except (OSError, ValueError):
        return {}


def read_rc(path):
    """kunit.py's exit status written next to its JSON: an int, the text
    if it is not a number, None if there is no such file."""
    try:
        with open(path) as f:
            text = f.read().strip()
    except OSError:
        return None
    try:
        return int(text)
    except ValueError:
        return repr(text)


@dataclass
class Suite:
    cases: list = None          # expected case names; None: not known
    passed: int = 0
    failed: int = 0             # expected cases reported FAIL or ERROR
    skipped: int = 0
    seen: list = field(default_factory=list)        # expected, reported
    unexpected: list = field(default_factory=list)  # '' for a nameless one
    missing: list = field(default_factory=list)
    unknown: int = 0            # 1 when its cases cannot be known
    foreign: bool = False       # a suite the sources do not define

    @property
    def failures(self):
        return self.failed + max(len(self.missing), len(self.unexpected)) + \
            self.unknown


@dataclass
class Run:
    suites: dict = field(default_factory=dict)      # name -> Suite
    statuses: dict = field(default_factory=dict)    # name -> status reported
    failed_cases: set = field(default_factory=set)  # FAIL, ERROR or missing
    problems: list = field(default_factory=list)
    extra: int = 0              # failures outside the suites

    @property
    def passed(self):
        return sum(s.passed for s in self.suites.values())

    @property
    def skipped(self):
        return sum(s.skipped for s in self.suites.values())

    @property
    def expected_count(self):
        return sum(len(s.cases or []) for s in self.suites.values()
                   if not s.foreign)

    @property
    def case_failures(self):
        return sum(s.failures for s in self.suites.values())

    @property
    def failed(self):
        return self.case_failures + self.extra

    def fail(self, why):
        """One failure beyond the cases, and why."""
        self.problems.append(why)
        self.extra += 1

    def stopped(self, why):
        """The kernel stopped early: one failure unless cases counted it."""
        self.problems.append(why)
        if not self.case_failures:
            self.extra += 1


def count(expected, leaves):
    """Check leaves (from read()) against expected (suite -> [case names],
    or an exception saying why they are not known)."""
    run = Run()
    for suite, cases in expected.items():
        known = isinstance(cases, list)
        run.suites[suite] = Suite(cases=cases if known else None)
        if not known:
            run.suites[suite].unknown = 1
            run.problems.append(f'{suite}: its cases cannot be checked: {cases}')
    nameless_top = 0
    order = []
    for suite, name, status in leaves:
        if not suite:
            if not name:
                nameless_top += 1
                continue
            suite, name = name, ''      # a suite that printed no case
        s = run.suites.setdefault(suite, Suite(cases=[], foreign=True))
        if suite not in order:
            order.append(suite)
        if name:
            run.statuses.setdefault(name, status)
        if name and name not in s.seen and (s.cases is None or name in s.cases):
            s.seen.append(name)
            if status == 'PASS':
                s.passed += 1
            elif status == 'SKIP':
                s.skipped += 1
            else:
                s.failed += 1
                run.failed_cases.add(name)
        else:
            s.unexpected.append(name)
    for suite, s in run.suites.items():
        s.missing = [c for c in s.cases or [] if c not in s.seen]
        run.failed_cases.update(s.missing)
        if order:       # else the run's own problem says nothing came
            run.problems += _suite_problems(suite, s, order)
    silent = sum(1 for s in run.suites if s not in order)
    if nameless_top > silent:
        run.extra += nameless_top - silent
        run.problems.append(f'{nameless_top} nameless results outside any suite '
                            f'(missing suites), {silent} suites reported nothing')
    return run


def _short(suite, name):
    return name[len(suite) + 1:] if name.startswith(suite + '.') else name


def _suite_problems(suite, s, order):
    out = []
    if s.foreign:
        out.append(f'{suite}: not a suite of the sources, {len(s.unexpected)} '
                   'results')
        return out
    if s.missing:
        # kunit.py's JSON lists a suite's plain cases before its
        # parameterised ones: the order of the sources is the order they ran.
        ran = [c for c in s.cases if c in s.seen]
        line = f'{suite}: {len(ran)} of {len(s.cases)} cases reported'
        if ran:
            line += f', the last seen {_short(suite, ran[-1])}'
        if order[-1] == suite and ran == s.cases[:len(ran)]:
            line += '; the kernel stopped in this suite'
        elif ran:
            names = [_short(suite, c) for c in s.missing]
            line += '; missing ' + ', '.join(names[:5]) + \
                (f' and {len(names) - 5} more' if len(names) > 5 else '')
        out.append(line)
    # A parameterised case that printed no row shows as a case of its own.
    started = [n for n in s.unexpected
               if n and any(c.startswith(n + '.') for c in s.cases or [])]
    if started:
        out.append(f'{suite}: ' + ', '.join(_short(suite, n) for n in started) +
                   ' started and reported no row')
    named = [_short(suite, n) for n in s.unexpected if n and n not in started]
    if named:
        out.append(f'{suite}: reported, not in the sources: ' + ', '.join(named[:5]) +
                   (f' and {len(named) - 5} more' if len(named) > 5 else ''))
    if len(s.unexpected) > len(s.missing):
        nameless = len(s.unexpected) - len(named)
        if nameless:
            out.append(f'{suite}: {nameless} nameless results (a subtest that '
                       'never came)')
    return out
