"""What a console log shows, each log read once: the kernel reports in it,
whether init reached the end of its plan, and the rows mm_pin_transition
printed."""

import os
import re
from dataclasses import dataclass, field

# One line of any of these in the console is a kernel report.
KERNEL_REPORTS = re.compile(
    r'(------------\[ cut here \]------------|WARNING: |BUG: |kernel BUG at|'
    r'Kernel panic|Oops|general protection fault|Unable to handle kernel|'
    r'UBSAN: |INFO: task .* blocked|possible circular locking|'
    r'inconsistent lock state|RCU stall)')

# The last line init prints once every line of its plan ran.
PLAN_DONE = '# init: plan done'

# What mm_pin_transition prints for each row: name, flags before, operation,
# flags after, change of pinned_vm and locked_vm, vmas after.
TRANSITION = re.compile(r'# mm_pin_transition: transition (\S+) (\S+) (\S+) '
                        r'(\S+) (-?\d+) (-?\d+) (\d+)\s*$')


@dataclass
class Console:
    exists: bool = False
    reports: list = field(default_factory=list)     # kernel report lines
    plan_done: bool = False
    transitions: dict = field(default_factory=dict)  # row -> (before, op, after, dp, dl, vmas)


def scan(log_path):
    """Read one console log, once."""
    con = Console()
    if not os.path.exists(log_path):
        return con
    con.exists = True
    with open(log_path, errors='replace') as f:
        for line in f:
            if KERNEL_REPORTS.search(line):
                con.reports.append(line.rstrip())
            elif line.startswith(PLAN_DONE):
                con.plan_done = True
            else:
                m = TRANSITION.search(line)
                if m:
                    name, before, op, after, dp, dl, vmas = m.groups()
                    op = op.replace('unpin(0,0)', 'unpin')
                    con.transitions[name] = (before, op, after, f'{int(dp):+d}',
                                             f'{int(dl):+d}', vmas)
    return con
