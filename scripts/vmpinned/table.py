"""The review table of mm_pin_transition: for each row, what the kernel did
(the 'transition' line the case prints, console.py) and the result on every
arch (kunit.py's JSON), and whether the row shows the series or upstream."""

import os

from . import console, results

TABLE_HEAD = ('flags before', 'operation', 'flags after', 'pinned_vm',
              'locked_vm', 'vmas', 'shows')
LEGEND = ('Pages, a letter each: . mapped, L locked, F locked on fault, '
          'P pinned, B pinned and locked, O pinned and locked on fault.')
SHOWS = ('shows: series, a row with a pin (P, B or O before or after, or the '
         'operation pin or unpin): evidence for the series; upstream, a row '
         'without one: what 6.1 already does, characterised, not evidence '
         'for the series.')
PREFIX = 'mm_pin.mm_pin_transition.'


def shows(row):
    """'series' when the row involves a pin, 'upstream' otherwise."""
    if row is None:
        return '?'
    before, op, after = row[:3]
    pinned = any(c in 'PBO' for c in before + after) or \
        op.split('(')[0] in ('pin', 'unpin')
    return 'series' if pinned else 'upstream'


def table(results_dir, arches, configs):
    """The review table, as lines: one row per transition, the measured
    change from the first arch that ran it, and each arch's result (with
    what it measured, where that differs)."""
    seen = {}           # name -> measured row, in order
    per_arch = {}       # arch -> (rows, statuses)
    for arch in arches:
        rows, stats = {}, {}
        for cfg in configs:
            base = os.path.join(results_dir, arch, cfg)
            rows.update(console.scan(base + '.log').transitions)
            stats.update({n[len(PREFIX):]: s for n, s
                          in results.statuses(base + '.json').items()
                          if n.startswith(PREFIX)})
        per_arch[arch] = (rows, stats)
        for name, row in rows.items():
            seen.setdefault(name, row)
        for name in stats:
            seen.setdefault(name, None)
    head = ['transition', *TABLE_HEAD, *arches]
    body = []
    for name, row in seen.items():
        cells = [name, *(row or ('?',) * (len(TABLE_HEAD) - 1)), shows(row)]
        for arch in arches:
            rows, stats = per_arch[arch]
            word = {'PASS': 'pass', 'SKIP': 'skip'}.get(
                stats.get(name), 'FAIL' if name in stats else 'none')
            if name in rows and rows[name] != row:
                word += ' (' + ' '.join(rows[name]) + ')'
            cells.append(word)
        body.append(cells)
    widths = [max(len(r[i]) for r in [head] + body) for i in range(len(head))]
    fmt = '  '.join(f'{{:<{w}}}' for w in widths)
    return [LEGEND, SHOWS, '', fmt.format(*head).rstrip(),
            fmt.format(*('-' * w for w in widths))] + \
        [fmt.format(*r).rstrip() for r in body]
