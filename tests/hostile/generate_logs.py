#!/usr/bin/env python3
# Regenerates logs/ from the importer fixtures (run from tests/hostile/: python3 generate_logs.py).
# The outputs are committed; logs.tsv says what `syscost import` must make of each.
import os
L = 'logs/'
os.makedirs(L, exist_ok=True)
ktap = open('../../crates/import/tests/fixtures/seccomp-ktap.txt', encoding='utf-8').read()
sud = open('../../crates/import/tests/fixtures/sud-two-runs.txt', encoding='utf-8').read()
P = '<script>alert("log")</script>"\'><img src=x onerror=alert(1)>'
def w(name, text):
    with open(L + name, 'w', encoding='utf-8', newline='') as f: f.write(text)
def wb(name, b):
    with open(L + name, 'wb') as f: f.write(b)
wb('empty.txt', b'')
wb('whitespace.txt', b'\n\n   \r\n\t\n')
wb('binary.txt', bytes(range(256)) * 16)
wb('nul-bytes.txt', ktap.encode().replace(b'getpid native: 302 ns', b'getpid native: 3\x0002 ns'))
wb('latin1.txt', ktap.replace('≤', '<=').replace('≈', '~').replace('✔️', 'ok').replace('❌', 'x').replace('ci-runner-7', 'caf\u00e9').encode('latin-1', errors='replace'))
# Markup and traversal in what the log says about the machine: imported, saved inside --save.
w('markup-in-uname.txt', ktap.replace('Linux ci-runner-7 6.8.0-45-generic #45-Ubuntu',
                                      'Linux <script>alert(1)</script> 6.8.0-<img/src=x/onerror=alert(1)> #45-Ubuntu'))
w('traversal-in-uname.txt', ktap.replace('6.8.0-45-generic', '../../../../../../tmp/escaped'))
# Numbers a log should never hold.
w('huge-numbers.txt', ktap.replace('getpid native: 302 ns', 'getpid native: 99999999999999999999999999999 ns')
  .replace('Benchmarking 23486415 syscalls', 'Benchmarking 999999999999999999999999 syscalls'))
w('nan-numbers.txt', ktap.replace('getpid native: 302 ns', 'getpid native: nan ns')
  .replace('RET_ALLOW 1 filter (bitmap): 318 ns', 'RET_ALLOW 1 filter (bitmap): inf ns'))
w('negative-numbers.txt', ktap.replace('getpid native: 302 ns', 'getpid native: -302 ns'))
w('sud-absurd.txt', sud.replace('Avg syscall time 171ns.', 'Avg syscall time 1e308ns.')
  .replace('test iterations = 29100000', 'test iterations = 18446744073709551616'))
w('bpf-absurd.txt', 'Summary: hits 1e999 \u00b1 -0.000M/s (nan M/prog)\n'
  'base            :   1e400 \u00b1 NaN M/s\ntp              : -12.345 \u00b1 0.001M/s\n')
w('perf-absurd.txt', '# Running \'syscall/basic\' benchmark:\n# Executed 0 getppid() calls\n'
  '     Total time: 0.000 [sec]\n\n       inf usecs/op\n       -5 ops/sec\n')
# Quoting and line shapes that could make text cleaning slow.
w('deep-quoting.txt', ''.join('> ' * 2000 + line + '\n' for line in ktap.splitlines()))
w('lone-carriage-returns.txt', ktap.replace('\n', '\r'))
w('qp-soft-breaks.txt', '=\n' * 20000 + ktap.replace('=', '=3D'))
w('interleaved-console.txt', ''.join(f'[{i:>6}.000000][   C{i % 64}] {P}\n' + line + '\n'
                                     for i, line in enumerate(ktap.splitlines())))
w('markup-only.txt', (P + '\n') * 100)
w('control-characters.txt', ktap.replace('ci-runner-7', 'host\x1b[31m\x07\x08').replace(
    '# # Running on:', '# # Running on:\x1b]0;title\x07'))
# Numbers no run prints: each refused with its line and reason, the rest of the run imported.
w('seccomp-refused-numbers.txt', ktap.replace('getpid native: 302 ns', 'getpid native: 1e999 ns')
  .replace('RET_ALLOW 1 filter (bitmap): 318 ns', 'RET_ALLOW 1 filter (bitmap): -318 ns')
  .replace('RET_ALLOW 2 filters (bitmap): 319 ns', 'RET_ALLOW 2 filters (bitmap): \uff13\uff11\uff19 ns')
  .replace('RET_ALLOW 3 filters (full): 356 ns', 'RET_ALLOW 3 filters (full): 18446744073709551616 ns'))
w('seccomp-zero-ns.txt', ktap.replace('getpid native: 302 ns', 'getpid native: 0 ns'))
# 10^12 syscalls in 7.1 s cannot take 302 ns each.
w('seccomp-contradicting-timing.txt', ktap.replace('Benchmarking 23486415 syscalls', 'Benchmarking 1000000000000 syscalls'))
w('sud-zero-ns.txt', sud.replace('Avg syscall time 171ns.', 'Avg syscall time 0ns.'))
w('perf-zero-usecs.txt', '# Running \'syscall/basic\' benchmark:\n# Executed 10,000,000 getppid() calls\n'
  '     Total time: 1.750 [sec]\n\n       0.000000 usecs/op\n       5,714,285 ops/sec\n')
# Issue 42. A log captured from a terminal: colours around every line (and a title set).
w('ansi-colours.txt', '\x1b]0;ci-runner-7: ~\x07' + ''.join(f'\x1b[32m{line}\x1b[0m\n' for line in ktap.splitlines()))
# A release named like one of the site's pages: recorded as unknown, never a directory name.
w('uname-named-like-a-page.txt', ktap.replace('6.8.0-45-generic', '6.9.1-index.html'))
# Figures the benchmark computes from others, contradicting them beyond any rounding: refused.
untimed = '\n'.join(l for l in ktap.splitlines() if ' - ' not in l or ' = ' not in l) + '\n'
w('seccomp-estimate-contradicts-scenarios.txt', ktap + untimed.replace(
    'getpid RET_ALLOW 3 filters (full): 356 ns', 'getpid RET_ALLOW 3 filters (full): 250 ns'))
w('seccomp-total-contradicts-overhead.txt', ktap
  .replace('overhead for 1 bitmapped filter: 16 ns', 'overhead for 1 bitmapped filter: 999 ns')
  .replace('Estimated seccomp entry overhead: 15 ns', 'Estimated seccomp entry overhead: 900 ns'))
w('seccomp-compare-contradicts-scenarios.txt', ktap.replace('(302 ≤ 318)', '(302 ≤ 999)'))
w('sud-overhead-contradicts-averages.txt', sud.replace('Avg syscall time 171ns.', 'Avg syscall time 170ns.')
  .replace('Avg syscall time 239ns.', 'Avg syscall time 240ns.')
  .replace('Interception overhead: 39.8% (+68ns).', 'Interception overhead: 9999.9% (+99999ns).'))
w('sud-percent-contradicts-averages.txt', sud.replace('Interception overhead: 39.8% (+68ns).',
                                                      'Interception overhead: 99.8% (+68ns).'))
w('perf-rate-contradicts-usecs.txt', '# Running \'syscall/basic\' benchmark:\n# Executed 10,000,000 getppid() calls\n'
  '     Total time: 0.500 [sec]\n\n       0.050000 usecs/op\n          1,000 ops/sec\n')
w('bpf-scaling-contradicts-total.txt', 'uprobe-nop      ( 1 cpus):    0.907 \u00b1 0.003M/s  (  0.907M/s/cpu)\n'
  'uprobe-nop      ( 4 cpus):    3.210 \u00b1 0.003M/s  (  0.100M/s/cpu)\n')
