"""scripts/vmpinned/boot.py: the QEMU command scripts/userspace boots each
arch's kernels with, built by the tree's kunit_kernel, and the run around it
(console copied, timeout, exit status), without booting anything.

A fake tree (the parts of 6.1's kunit_kernel that boot.py uses, with fake
qemu_configs and a fake qemu-system-* on PATH) checks what boot.py adds to
kunit_kernel for every arch of arch-matrix/.  With the real tree present
($VM_PINNED_WORK/linux, by default ~/.cache/vm-pinned/linux), its
kunit_kernel must also give, for every arch, the command scripts/userspace
typed itself before boot.py (the arch's qemu_configs entry plus -initrd,
-append, -smp), options in kunit_kernel's order; without the tree that test
is not defined."""

import collections
import os
import shlex
import subprocess
import sys
import tempfile
import textwrap
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
BOOT = os.path.join(TOP, 'scripts', 'vmpinned', 'boot.py')
TREE = os.path.join(os.environ.get('VM_PINNED_WORK',
                                   os.path.expanduser('~/.cache/vm-pinned')), 'linux')

# What scripts/userspace passes besides the arch's own parameters.
PARAMS = ['kunit.enable=0', 'panic=-1', 'secretmem.enable=1', 'VM_KERNEL=pristine',
          'MODEL_STEPS=2000']


def arch_matrix():
    """ARCH -> (QEMU_CONFIG, VCPUS, TIMEOUT) of every arch-matrix entry, as
    scripts/common.sh's load_arch reads them."""
    out = subprocess.run(
        ['bash', '-c', '. scripts/common.sh; for a in $(known_arches); do load_arch "$a"; '
         'printf "%s\\t%s\\t%s\\t%s\\n" "$ARCH" "$QEMU_CONFIG" "$VCPUS" "$TIMEOUT"; done'],
        cwd=TOP, text=True, capture_output=True, check=True).stdout
    return {a: (q, v, t) for a, q, v, t in (line.split('\t') for line in out.splitlines())}


def boot(tree, arch, qemu_config='', *, dry_run=True, log=None, timeout=300, smp='2',
         params=PARAMS, env=None):
    what = ['--dry-run'] if dry_run else ['--log', log]
    return subprocess.run(
        [sys.executable, BOOT, '--tree', tree, '--arch', arch, '--qemu-config', qemu_config,
         '--kernel-dir', '/build/' + arch, '--initrd', '/userspace/initramfs.cpio',
         '--smp', smp, '--timeout', str(timeout), *what, '--', *params],
        text=True, capture_output=True, env=env)


def printed_command(stdout):
    """The command start() printed: the line after 'Running tests with:'."""
    lines = stdout.splitlines()
    i = lines.index('Running tests with:')
    return shlex.split(lines[i + 1][2:])


# The parts of 6.1's tools/testing/kunit/kunit_kernel.py boot.py uses, in
# small: LinuxSourceTreeOperationsQemu (appending kunit_shutdown=reboot to
# the arch's kernel command line, start() printing its command and running
# it), _default_qemu_config_path() and _get_qemu_ops().
FAKE_KUNIT_KERNEL = '''
import importlib.util
import collections
import os
import shlex
import subprocess

import qemu_config

QEMU_CONFIGS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'qemu_configs')


class ConfigError(Exception):
    pass


class LinuxSourceTreeOperationsQemu:
    def __init__(self, p, cross_compile):
        self._qemu_arch = p.qemu_arch
        self._kernel_path = p.kernel_path
        self._kernel_command_line = p.kernel_command_line + ' kunit_shutdown=reboot'
        self._extra_qemu_params = p.extra_qemu_params

    def start(self, params, build_dir):
        command = ['qemu-system-' + self._qemu_arch,
                   '-kernel', os.path.join(build_dir, self._kernel_path),
                   '-append', ' '.join(params + [self._kernel_command_line])]
        command += self._extra_qemu_params
        print('Running tests with:\\n$', ' '.join(shlex.quote(a) for a in command))
        return subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True,
                                errors='backslashreplace')


def _default_qemu_config_path(arch):
    path = os.path.join(QEMU_CONFIGS_DIR, arch + '.py')
    if os.path.isfile(path):
        return path
    raise ConfigError(arch + ' is not a valid arch')


def _get_qemu_ops(config_path, extra_qemu_args, cross_compile):
    spec = importlib.util.spec_from_file_location('qemu_arch_config', config_path)
    config = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(config)
    params = config.QEMU_ARCH
    if extra_qemu_args:
        params.extra_qemu_params.extend(extra_qemu_args)
    return params.linux_arch, LinuxSourceTreeOperationsQemu(params, cross_compile)
'''

FAKE_QEMU_CONFIG = '''
from collections import namedtuple
QemuArchParams = namedtuple('QemuArchParams', ['linux_arch', 'kconfig', 'qemu_arch',
                            'kernel_path', 'kernel_command_line', 'extra_qemu_params'])
'''

# A qemu_configs entry: qemu_arch 'fake-ARCH', so that the QEMU started is
# the fake one below.
CONFIG = '''
from qemu_config import QemuArchParams
QEMU_ARCH = QemuArchParams(linux_arch={arch!r}, kconfig='', qemu_arch={qemu!r},
                           kernel_path='boot/{arch}.img',
                           kernel_command_line={cmdline!r},
                           extra_qemu_params=['-machine', 'fake-{arch}'])
'''

# The fake QEMU: prints its arguments and a line of its stdin (none: it is
# closed), then does what FAKE_QEMU says: exit N, or sleep.
FAKE_QEMU = '''#!/bin/sh
printf 'arg: %s\\n' "$@"
read -r line && echo "stdin: $line" || echo 'stdin: closed'
echo 'error output' >&2
case $FAKE_QEMU in
sleep) echo 'hanging'; exec sleep 60 ;;
*) exit "$FAKE_QEMU" ;;
esac
'''


class FakeTreeTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.tree = os.path.join(cls.tmp.name, 'linux')
        kunit = os.path.join(cls.tree, 'tools', 'testing', 'kunit')
        os.makedirs(os.path.join(kunit, 'qemu_configs'))
        cls.write(os.path.join(kunit, 'kunit_kernel.py'), FAKE_KUNIT_KERNEL)
        cls.write(os.path.join(kunit, 'qemu_config.py'), FAKE_QEMU_CONFIG)
        cls.arches = arch_matrix()
        for arch in list(cls.arches) + ['boot']:
            cls.write(os.path.join(kunit, 'qemu_configs', arch + '.py'),
                      CONFIG.format(arch=arch, qemu='fake-' + arch,
                                    cmdline='console=fake-' + arch))
        cls.write(os.path.join(kunit, 'qemu_configs', 'halt.py'),
                  CONFIG.format(arch='halt', qemu='fake-halt',
                                cmdline='console=x kunit_shutdown=halt'))
        cls.own = os.path.join(cls.tmp.name, 'own.py')
        cls.write(cls.own, CONFIG.format(arch='x86_64', qemu='own', cmdline='console=own'))
        bindir = os.path.join(cls.tmp.name, 'bin')
        os.mkdir(bindir)
        cls.write(os.path.join(bindir, 'qemu-system-fake-boot'), FAKE_QEMU)
        os.chmod(os.path.join(bindir, 'qemu-system-fake-boot'), 0o755)
        cls.env = dict(os.environ, PATH=bindir + os.pathsep + os.environ['PATH'])

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    @staticmethod
    def write(path, text):
        with open(path, 'w') as f:
            f.write(text)

    def test_every_arch_of_the_matrix(self):
        for arch, (qemu_config, vcpus, _) in self.arches.items():
            with self.subTest(arch=arch):
                p = boot(self.tree, arch, qemu_config, smp=vcpus)
                self.assertEqual(p.returncode, 0, p.stderr)
                self.assertEqual(printed_command(p.stdout), [
                    'qemu-system-fake-' + arch,
                    '-kernel', f'/build/{arch}/boot/{arch}.img',
                    '-append', ' '.join(PARAMS + ['console=fake-' + arch]),
                    '-machine', 'fake-' + arch,
                    '-initrd', '/userspace/initramfs.cpio', '-smp', vcpus])

    def test_a_qemu_config_of_ones_own(self):
        p = boot(self.tree, 'x86_64', self.own)
        self.assertEqual(p.returncode, 0, p.stderr)
        command = printed_command(p.stdout)
        self.assertEqual(command[0], 'qemu-system-own')
        self.assertEqual(command[command.index('-append') + 1],
                         ' '.join(PARAMS + ['console=own']))

    def test_no_kunit_shutdown_reaches_the_kernel(self):
        p = boot(self.tree, 'halt')
        self.assertEqual(p.returncode, 125)
        self.assertEqual(p.stdout.count('Running tests with:'), 1)
        self.assertIn('kunit_shutdown', p.stderr)
        self.assertIn('reboot before init runs', p.stderr)

    def test_unknown_arch(self):
        p = boot(self.tree, 'sparc')
        self.assertEqual(p.returncode, 125)
        self.assertEqual(p.stdout, '')
        self.assertEqual(len(p.stderr.splitlines()), 1, p.stderr)
        self.assertIn('sparc is not a valid arch', p.stderr)

    def test_no_tree(self):
        p = boot(os.path.join(self.tmp.name, 'nothing'), 'x86_64')
        self.assertEqual(p.returncode, 125)
        self.assertEqual(len(p.stderr.splitlines()), 1, p.stderr)
        self.assertIn('kunit_kernel.py: no such file', p.stderr)

    def run_fake_qemu(self, what, timeout=300):
        log = os.path.join(self.tmp.name, f'console-{what}.log')
        t = time.monotonic()
        p = boot(self.tree, 'boot', dry_run=False, log=log, timeout=timeout,
                 env=dict(self.env, FAKE_QEMU=what))
        with open(log) as f:
            return p, f.read().splitlines(), time.monotonic() - t

    def test_console_and_exit_status(self):
        p, console, _ = self.run_fake_qemu('3')
        self.assertEqual(p.returncode, 3, p.stderr)
        self.assertEqual(printed_command(p.stdout)[0], 'qemu-system-fake-boot')
        self.assertIn('arg: ' + ' '.join(PARAMS + ['console=fake-boot']), console)
        self.assertIn('stdin: closed', console)
        self.assertIn('error output', console)
        p, _, _ = self.run_fake_qemu('0')
        self.assertEqual(p.returncode, 0, p.stderr)

    def test_stopped_after_the_timeout(self):
        p, console, took = self.run_fake_qemu('sleep', timeout=1)
        self.assertEqual(p.returncode, 124, p.stderr)
        self.assertEqual(console[-1], 'hanging')
        self.assertLess(took, 30)

    def test_qemu_missing(self):
        p = boot(self.tree, 'x86_64', dry_run=False,
                 log=os.path.join(self.tmp.name, 'missing.log'))
        self.assertEqual(p.returncode, 127)
        self.assertIn('cannot run QEMU', p.stderr)


# Today's command, as scripts/userspace typed it before boot.py: the arch's
# qemu_configs entry loaded the way kunit.py loads it, then
#   qemu-system-$qarch -nodefaults -m 1024 -kernel "$bdir/$kpath"
#     -initrd "$out/initramfs.cpio"
#     -append "kunit.enable=0 panic=-1 secretmem.enable=1 $cmdline$env"
#     -no-reboot -nographic -serial stdio "${extra[@]}" -smp "$VCPUS"
BEFORE = '''
import importlib.util, os, sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[1])
import kunit_kernel
path = sys.argv[3] or os.path.join(kunit_kernel.QEMU_CONFIGS_DIR, sys.argv[2] + '.py')
name = '.' + os.path.join(os.path.basename(kunit_kernel.QEMU_CONFIGS_DIR),
                          os.path.basename(path))
spec = importlib.util.spec_from_file_location(name, path)
config = importlib.util.module_from_spec(spec)
spec.loader.exec_module(config)
p = config.QEMU_ARCH
print(repr((p.qemu_arch, p.kernel_path, p.kernel_command_line, p.extra_qemu_params)))
'''


def command_before(arch, qemu_config, vcpus):
    out = subprocess.run([sys.executable, '-c', BEFORE,
                          os.path.join(TREE, 'tools', 'testing', 'kunit'), arch, qemu_config],
                         text=True, capture_output=True, check=True).stdout
    qarch, kpath, cmdline, extra = eval(out)
    env = ' ' + ' '.join(PARAMS[3:])
    return (['qemu-system-' + qarch, '-nodefaults', '-m', '1024',
             '-kernel', os.path.join(f'/build/{arch}', kpath),
             '-initrd', '/userspace/initramfs.cpio',
             '-append', 'kunit.enable=0 panic=-1 secretmem.enable=1 ' + cmdline + env,
             '-no-reboot', '-nographic', '-serial', 'stdio'] + extra + ['-smp', vcpus])


def options(command):
    """A QEMU command as its program and the multiset of its options with
    their values (the words of -append sorted: their order matters neither
    to the kernel nor, for these words, to init)."""
    flags = {'-nodefaults', '-no-reboot', '-nographic'}
    opts, i = collections.Counter(), 1
    while i < len(command):
        if command[i] in flags:
            opts[(command[i],)] += 1
            i += 1
            continue
        value = command[i + 1]
        if command[i] == '-append':
            value = tuple(sorted(value.split()))
        opts[(command[i], value)] += 1
        i += 2
    return command[0], opts


if os.path.isfile(os.path.join(TREE, 'tools', 'testing', 'kunit', 'kunit_kernel.py')):
    class RealTreeTest(unittest.TestCase):
        """With the tree's own kunit_kernel: the command of every arch."""

        def test_same_command_as_before_boot_py(self):
            for arch, (qemu_config, vcpus, _) in arch_matrix().items():
                with self.subTest(arch=arch):
                    p = boot(TREE, arch, qemu_config, smp=vcpus)
                    self.assertEqual(p.returncode, 0, p.stderr)
                    after = printed_command(p.stdout)
                    before = command_before(arch, qemu_config, vcpus)
                    self.assertEqual(options(after), options(before))
                    # kunit_kernel's order: its own options, -append with
                    # scripts/userspace's words first, the arch's extra
                    # parameters, then -initrd and -smp.
                    kernel = before[before.index('-kernel') + 1]
                    cmdline = before[before.index('-append') + 1]
                    arch_words = cmdline[len('kunit.enable=0 panic=-1 secretmem.enable=1 '):
                                         cmdline.index(' VM_KERNEL=')]
                    extra = before[before.index('stdio') + 1:before.index('-smp')]
                    self.assertEqual(after, [
                        before[0], '-nodefaults', '-m', '1024', '-kernel', kernel,
                        '-append', ' '.join(PARAMS + [arch_words]),
                        '-no-reboot', '-nographic', '-serial', 'stdio'] + extra +
                        ['-initrd', '/userspace/initramfs.cpio', '-smp', vcpus])


if __name__ == '__main__':
    unittest.main()
