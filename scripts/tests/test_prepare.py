"""scripts/prepare and scripts/run on a small fake linux-source tarball: the
series applies with git am, reruns touch nothing, a changed patch rewrites
only its files, bad input says what is wrong and leaves the tree alone."""

import os
import shutil
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.dirname(HERE)
GIT_ID = ['-c', 'user.name=t', '-c', 'user.email=t@example.org']

SOURCES = {
    'Makefile': 'VERSION = 6\n',
    '.gitignore': '/*\n!/debian/\n',
    'mm/Kconfig': 'menu "mm"\nendmenu\n',
    'mm/mlock.c': 'int mlock_a;\nint mlock_b;\n',
    'kernel/fork.c': 'int fork_a;\n',
    'lib/untouched.c': 'int untouched;\n',
}


def sh(*cmd, cwd=None, env=None, check=True):
    return subprocess.run(cmd, cwd=cwd, env=env, check=check, text=True,
                          capture_output=True)


class PrepareTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.top = os.path.join(self.tmp, 'checkout')
        for d in ('scripts', 'src-patches', 'kunit', 'kunitconfigs', 'arch-matrix'):
            os.makedirs(os.path.join(self.top, d))
        for f in ('common.sh', 'prepare', 'run', 'setup'):
            shutil.copy(os.path.join(SCRIPTS, f), os.path.join(self.top, 'scripts'))
        for d in ('arch-matrix', 'kunitconfigs'):
            shutil.copytree(os.path.join(SCRIPTS, '..', d), os.path.join(self.top, d),
                            dirs_exist_ok=True)
        shutil.copy(os.path.join(SCRIPTS, '..', 'src-patches', 'BASE'),
                    os.path.join(self.top, 'src-patches'))
        self.write('kunit/wiring', 'Kconfig mm/Kconfig.kunit mm/Kconfig\n'
                   'mlock_test.h mm/mlock_test.h mm/mlock.c\n')
        self.write('kunit/Kconfig', 'config MM_MLOCK_KUNIT_TEST\n\tbool\n')
        self.write('kunit/mlock_test.h', '.name = "mm_mlock",\n')
        self.series = []

        # The fake package, and a repository to cut patches from.
        src = os.path.join(self.tmp, 'linux-source-6.1')
        for path, text in SOURCES.items():
            os.makedirs(os.path.dirname(os.path.join(src, path)), exist_ok=True)
            with open(os.path.join(src, path), 'w') as f:
                f.write(text)
        self.tarball = os.path.join(self.tmp, 'linux-source-6.1.tar.xz')
        sh('tar', '-cJf', self.tarball, '-C', self.tmp, 'linux-source-6.1')
        self.cut = src
        sh('git', 'init', '-q', cwd=src)
        sh('git', 'add', '-f', '-A', cwd=src)
        sh('git', *GIT_ID, 'commit', '-q', '-m', 'pristine', cwd=src)

        self.work = os.path.join(self.tmp, 'work')
        self.tree = os.path.join(self.work, 'linux')
        self.env = dict(os.environ, VM_PINNED_WORK=self.work,
                        VM_PINNED_TARBALL=self.tarball)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def write(self, path, text):
        with open(os.path.join(self.top, path), 'w') as f:
            f.write(text)

    def add_patch(self, name, path, old, new):
        """Cut a patch that replaces old by new in path, on top of the
        previous ones, and add it to the series."""
        f = os.path.join(self.cut, path)
        with open(f) as fh:
            text = fh.read()
        with open(f, 'w') as fh:
            fh.write(text.replace(old, new))
        sh('git', 'add', '-f', path, cwd=self.cut)
        sh('git', *GIT_ID, 'commit', '-q', '-m', f'{name}: change {path}', cwd=self.cut)
        patch = sh('git', 'format-patch', '-1', '--stdout', cwd=self.cut).stdout
        self.write(f'src-patches/{name}.patch', patch)
        self.series.append(f'{name}.patch')
        self.write('src-patches/series', '# order\n' + '\n'.join(self.series) + '\n')

    def prepare(self, check=True):
        return sh('bash', os.path.join(self.top, 'scripts', 'prepare'),
                  env=self.env, check=check)

    def mtimes(self):
        out = {}
        for path in SOURCES:
            out[path] = os.stat(os.path.join(self.tree, path)).st_mtime_ns
        return out

    def read_tree(self, path):
        with open(os.path.join(self.tree, path)) as f:
            return f.read()

    def test_applies_series_and_wires_suites(self):
        self.add_patch('0001-a', 'mm/mlock.c', 'mlock_a', 'mlock_A')
        self.add_patch('0002-b', 'kernel/fork.c', 'fork_a', 'fork_A')
        self.prepare()
        self.assertIn('int mlock_A;', self.read_tree('mm/mlock.c'))
        self.assertTrue(self.read_tree('mm/mlock.c').endswith('#include "mlock_test.h"\n'))
        self.assertIn('source "mm/Kconfig.kunit"', self.read_tree('mm/Kconfig'))
        self.assertIn('fork_A', self.read_tree('kernel/fork.c'))
        log = sh('git', 'log', '--format=%s', cwd=self.tree).stdout.splitlines()
        self.assertEqual(log[1:3], ['0002-b: change kernel/fork.c',
                                    '0001-a: change mm/mlock.c'])
        self.assertEqual(sh('git', 'tag', cwd=self.tree).stdout, 'pristine\nseries\n')
        self.assertEqual(sh('git', 'log', '-1', '--format=%s', 'series', cwd=self.tree).stdout,
                         '0002-b: change kernel/fork.c\n')

    def test_rerun_touches_nothing(self):
        self.add_patch('0001-a', 'mm/mlock.c', 'mlock_a', 'mlock_A')
        self.prepare()
        before = self.mtimes()
        out = self.prepare().stdout
        self.assertIn('up to date', out)
        self.assertEqual(self.mtimes(), before)

    def test_changed_patch_rewrites_only_its_files(self):
        self.add_patch('0001-a', 'mm/mlock.c', 'mlock_a', 'mlock_A')
        self.add_patch('0002-b', 'kernel/fork.c', 'fork_a', 'fork_A')
        self.prepare()
        before = self.mtimes()
        with open(os.path.join(self.top, 'src-patches/0002-b.patch')) as f:
            text = f.read()
        self.write('src-patches/0002-b.patch', text.replace('+int fork_A;', '+int fork_B;'))
        self.prepare()
        after = self.mtimes()
        self.assertIn('fork_B', self.read_tree('kernel/fork.c'))
        self.assertNotEqual(after.pop('kernel/fork.c'), before.pop('kernel/fork.c'))
        self.assertEqual(after, before)

    def test_patch_that_does_not_apply_leaves_tree(self):
        self.add_patch('0001-a', 'mm/mlock.c', 'mlock_a', 'mlock_A')
        self.prepare()
        head = sh('git', 'rev-parse', 'HEAD', cwd=self.tree).stdout
        before = self.mtimes()
        self.write('src-patches/0002-bad.patch',
                   open(os.path.join(self.top, 'src-patches/0001-a.patch')).read()
                   .replace('-int mlock_a;', '-int mlock_zz;'))
        self.series.append('0002-bad.patch')
        self.write('src-patches/series', '\n'.join(self.series) + '\n')
        r = self.prepare(check=False)
        self.assertNotEqual(r.returncode, 0)
        err = r.stderr.strip().splitlines()
        self.assertEqual(len(err), 1, r.stderr)
        self.assertIn('src-patches/0002-bad.patch does not apply', err[0])
        self.assertIn('mm/mlock.c', err[0])
        self.assertEqual(sh('git', 'rev-parse', 'HEAD', cwd=self.tree).stdout, head)
        self.assertEqual(self.mtimes(), before)

    def test_series_naming_a_missing_patch(self):
        self.write('src-patches/series', '0001-nothere.patch\n')
        r = self.prepare(check=False)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn('0001-nothere.patch, which is not in src-patches/', r.stderr)

    def run_script(self, *args):
        return sh('bash', os.path.join(self.top, 'scripts', 'run'), *args,
                  env=self.env, check=False)

    def test_setup_not_root_with_a_package_missing(self):
        fake = os.path.join(self.tmp, 'bin')
        os.makedirs(fake)
        for name, body in (('dpkg-query', 'case "$*" in *ccache*) exit 1;; esac\n'
                                          'echo "install ok installed"'),
                           ('id', 'echo 1000')):
            with open(os.path.join(fake, name), 'w') as f:
                f.write('#!/bin/sh\n' + body + '\n')
            os.chmod(os.path.join(fake, name), 0o755)
        env = dict(self.env, PATH=fake + ':' + os.environ['PATH'])
        r = sh('bash', os.path.join(self.top, 'scripts', 'setup'), env=env, check=False)
        self.assertEqual(r.returncode, 1)
        self.assertEqual(r.stderr, 'setup: packages missing: ccache; run as root: '
                         'apt-get update && apt-get install -y ccache\n')

    def test_run_unknown_arch_lists_known(self):
        r = self.run_script('--arch', 'sparc64')
        self.assertEqual(r.returncode, 1)
        self.assertEqual(r.stderr, "run: unknown arch 'sparc64'; known: arm64 x86_64\n")
        self.assertFalse(os.path.exists(self.work))

    def test_run_unknown_suite_lists_known(self):
        r = self.run_script('mm_nope*')
        self.assertEqual(r.returncode, 1)
        self.assertEqual(r.stderr, "run: no suite matches 'mm_nope*'; known suites: mm_mlock\n")
        self.assertFalse(os.path.exists(self.work))

    def test_run_unknown_kunitconfig_lists_known(self):
        r = self.run_script('--kunitconfig', 'nope')
        self.assertEqual(r.returncode, 1)
        self.assertIn("unknown kunitconfig 'nope'; known: mm", r.stderr)


if __name__ == '__main__':
    unittest.main()
