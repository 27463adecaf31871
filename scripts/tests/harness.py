"""What the scripts' tests share: load a script of scripts/ (no .py) as a
module, and, for the bad-input tests, run one with a temporary, empty work
directory and check it refused in one line on stderr, printed nothing else
and left the work directory untouched."""

import importlib.machinery
import importlib.util
import os
import subprocess
import tempfile
import unittest

SCRIPTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load_script(name):
    """scripts/NAME, a Python script without .py, as a module."""
    loader = importlib.machinery.SourceFileLoader(name, os.path.join(SCRIPTS, name))
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader(name, loader))
    loader.exec_module(module)
    return module


class BadInputCase(unittest.TestCase):
    script = None           # the name of a file of scripts/

    def run_script(self, *args):
        with tempfile.TemporaryDirectory() as work:
            env = dict(os.environ, VM_PINNED_WORK=work)
            p = subprocess.run([os.path.join(SCRIPTS, self.script), *args],
                               env=env, text=True, capture_output=True)
            left = os.listdir(work)
        return p, left

    def check_refused(self, args, says):
        """The script refuses args with one line containing says; that line."""
        p, left = self.run_script(*args)
        self.assertEqual(p.returncode, 1, p.stderr)
        lines = p.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, p.stderr)
        self.assertIn(says, lines[0])
        self.assertEqual(p.stdout, '')
        self.assertEqual(left, [], 'the work directory was touched')
        return lines[0]
