"""The counts of every run, the regressions, summary.md and the last lines.

The final line 'N passed, N failed' counts the product's tests only:

- kunit: every KUnit case of every arch x kunitconfig;
- userspace (patched): the userspace cases of the patched kernel of every
  arch;
- regressions: each case of the patched kernel that passes on the pristine
  one and fails, errs or is skipped on the patched one, or that the
  pristine kernel reported and the patched one did not: one failure each,
  added only when the patched run did not count it failed already;
- scripts' tests: RESULTS/selftest.json.

Each run is checked as results.py says.  The pristine kernel's userspace run
is the baseline: checked the same way and counted on a line of its own
('baseline (pristine)'), never in the final line; what went wrong there is a
problem of the baseline.  Skipped cases are counted on the line before the
final one, never as passed.
"""

import json
import os
from dataclasses import dataclass

from . import console, expected, results

BASELINE = 'pristine'
MAX_NAMED = 10          # failed cases named per run


@dataclass
class Tally:
    passed: int = 0
    failed: int = 0
    skipped: int = 0

    def add(self, p, f, s=0):
        self.passed += p
        self.failed += f
        self.skipped += s

    def __str__(self):
        return f'{self.passed} passed, {self.failed} failed, {self.skipped} skipped'


def check_run(base, want, plan_end):
    """One run: base.json against want (suite -> cases), base.log, base.rc,
    base.booted (why the console is not of the kernel just built)."""
    try:
        leaves = results.read(base + '.json')
        why = None
    except (OSError, ValueError) as e:
        leaves, why = [], f'no kunit.py results ({e.__class__.__name__})'
    run = results.count(want, leaves)
    if not why and not any(name for _, name, _ in leaves):
        why = 'the kernel reported no test case'
    if why:
        run.stopped(f'{why}: none of the {run.expected_count} expected cases')
    rc = results.read_rc(base + '.rc')
    if rc not in (None, 0) and not run.case_failures:
        run.fail(f'kunit.py exited {rc}')
    try:            # scripts/run's and userspace's booted check, if it failed
        with open(base + '.booted') as f:
            stale = f.read().strip()
    except OSError:
        stale = ''
    if stale:
        run.fail(stale.removeprefix('FAILED: '))
    con = console.scan(base + '.log')
    if not con.exists:
        run.fail('no console log')
    else:
        if con.reports:
            run.fail('kernel reports in the console: ' + ' | '.join(con.reports[:5]))
        if plan_end and not con.plan_done:
            run.stopped("the kernel stopped before the end of init's plan "
                        '(crashed, hung or panicked)')
    return run


def regressions(arch, patched, pristine):
    """(lines, regressions, failures to add) for the patched run of an arch
    against its pristine one."""
    lines, count, added = [], 0, 0
    for name, before in pristine.statuses.items():
        after = patched.statuses.get(name)
        if before == 'PASS' and after in ('FAIL', 'ERROR'):
            what = 'fails'
        elif before == 'PASS' and after == 'SKIP':
            what = 'is skipped'
        elif after is None:
            what = 'is missing'
        elif before not in ('PASS', 'SKIP') and after not in ('PASS', 'SKIP'):
            lines.append(f'{arch}: {name} fails on the pristine kernel too')
            continue
        else:
            continue
        was = {'PASS': 'passes', 'SKIP': 'is skipped'}.get(before, 'fails')
        lines.append(f'{arch}: regression: {name} {was} on the pristine kernel '
                     f'and {what} on the patched one')
        count += 1
        added += name not in patched.failed_cases
    missing = sum(len(s.missing) for s in pristine.suites.values())
    if missing:
        lines.append(f'{arch}: the baseline misses {missing} cases: regressions '
                     'are checked on the cases it reported only')
    return lines, count, added


def run_lines(run, is_base):
    """What to say of a run beyond its counts: its failed cases by name (at
    most MAX_NAMED), then its problems."""
    whys = [f'{"baseline " if is_base else ""}{run.statuses[n]} {n}'
            for n in run.statuses if n in run.failed_cases]
    if len(whys) > MAX_NAMED:
        whys[MAX_NAMED:] = [f'and {len(whys) - MAX_NAMED} more failed cases']
    prefix = 'baseline problem' if is_base else 'FAILED'
    return whys + [f'{prefix}: {why}' for why in run.problems]


def scripts_tests(path):
    """(Tally, line) of the scripts' own tests, from scripts/selftest's JSON."""
    tally = Tally()
    if not os.path.exists(path):
        return tally, "scripts' tests: not run (no selftest.json)"
    with open(path) as f:
        st = json.load(f)
    tally.add(st['passed'], st['failed'], st.get('skipped', 0))
    return tally, (f"scripts' tests: {tally.passed} passed, {tally.failed} failed" +
                   (f', {tally.skipped} skipped' if tally.skipped else ''))


def suite_table(table, arches):
    """The suite x arch table of summary.md, from 'cfg: suite' -> arch ->
    [passed, failed, skipped]."""
    md = ['| kunitconfig: suite | ' + ' | '.join(arches) + ' |',
          '|---|' + '---|' * len(arches)]
    for suite in sorted(table):
        row = []
        for arch in arches:
            p, f, s = table[suite].get(arch, [0, 0, 0])
            word = 'FAIL' if f else ('pass' if p else 'none')
            row.append(f'{word} {p}/{p + f + s}' + (f', {s} skipped' if s else ''))
        md.append(f'| {suite} | ' + ' | '.join(row) + ' |')
    return md


def summarise(results_dir, arches, configs, kernels=(), sources='.', out=print):
    """Check every run, print one line each (and why it failed), write
    summary.md; return the product's Tally (regressions included)."""
    kunit, userspace, baseline = Tally(), Tally(), Tally()
    table = {}          # 'cfg: suite' -> arch -> [p, f, s]
    problems, regressed = [], []
    reg_count = reg_added = 0
    patched = [k for k in kernels if k != BASELINE]
    want_kunit = {(cfg, arch): expected.kunit_expected(sources, cfg, arch)
                  for cfg in configs for arch in arches}
    want_user = expected.userspace_expected(sources) if kernels else {}
    for arch in arches:
        runs = {}
        for name, want, plan_end in \
                [(cfg, want_kunit[cfg, arch], False) for cfg in configs] + \
                [(f'userspace-{k}', want_user, True) for k in kernels]:
            is_base = name == f'userspace-{BASELINE}'
            run = runs[name] = check_run(os.path.join(results_dir, arch, name),
                                         want, plan_end)
            tally = baseline if is_base else userspace if plan_end else kunit
            tally.add(run.passed, run.failed, run.skipped)
            for suite, s in run.suites.items():
                table.setdefault(f'{name}: {suite}', {})[arch] = \
                    [s.passed, s.failures, s.skipped]
            out(f'{arch}/{name}{" (baseline)" if is_base else ""}: {run.passed} '
                f'passed, {run.failed} failed, {run.skipped} skipped')
            for why in run_lines(run, is_base):
                out(f'  {arch}/{name}: {why}')
                problems.append(f'- {arch}/{name}: {why}')
        base = runs.get(f'userspace-{BASELINE}')
        for k in patched:
            if base is None or not base.statuses:
                lines = [f'{arch}: no baseline (userspace-{BASELINE}.json): '
                         f'regressions of userspace-{k} not checked']
            else:
                lines, n, added = regressions(arch, runs[f'userspace-{k}'], base)
                reg_count += n
                reg_added += added
            for line in lines:
                out(f'  {line}')
            regressed += [f'- {line}' for line in lines]

    scripts, st_line = scripts_tests(os.path.join(results_dir, 'selftest.json'))
    breakdown = [f'kunit: {kunit}']
    if patched:
        breakdown += [f'userspace ({" ".join(patched)}): {userspace}',
                      f'regressions (against the {BASELINE} kernel): {reg_count}, '
                      f'{reg_added} of them not already a failed case']
    breakdown.append(st_line)
    if BASELINE in kernels:
        breakdown.append(f'baseline ({BASELINE}): {baseline} (not in the count)')
    for line in breakdown:
        out(line)

    total = Tally()
    for t in (kunit, userspace, scripts):
        total.add(t.passed, t.failed, t.skipped)
    total.failed += reg_added

    md = ['# Results', ''] + suite_table(table, arches)
    md += [''] + [f'- {line}' for line in breakdown]
    md += ['', '## Problems', ''] + (problems or ['- none'])
    if kernels:
        md += ['', '## Regressions', ''] + (regressed or ['- none'])
    md += ['', f'Total: {total}']
    with open(os.path.join(results_dir, 'summary.md'), 'w') as f:
        f.write('\n'.join(md) + '\n')
    return total
