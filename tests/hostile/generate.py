#!/usr/bin/env python3
# Regenerates the record corpus (records/raw and records/fill-id) from one small base record.
# Run from tests/hostile/: python3 generate.py. The outputs are committed; records.tsv says
# what each must produce.
import json, copy, os
R = 'records/raw/'; F = 'records/fill-id/'
def base():
    return {
     "schema": 1, "id": "",
     "source": {"kind": "collected", "tool": "syscost 0.1.0", "method": "interleaved",
                "date": "2026-01-02T03:04:05Z"},
     "settings": {"budget_s": 10.0, "target_ci_pct": 1.0, "syscall": "getppid", "syscalls_per_op": 1,
                  "cpu": 1, "sample_ms": 2.0, "confidence": 0.95},
     "environment": {
       "comparability": {"arch": "x86_64", "kernel_release": "6.8.0-45-generic",
          "cpu": {"vendor": "GenuineIntel", "model_name": "Example CPU @ 2.00GHz", "logical_cpus": 2},
          "virtualization": {"kind": "vm", "hypervisor": "KVM"},
          "mitigations": {"spectre_v2": "Mitigation: Retpolines"}, "kernel_config": {}},
       "incidental": {"machine_hash": "0123456789abcdef", "clocksource": "tsc"}},
     "summary": {"rounds": 100, "duration_s": 10.5, "stop_reason": "budget", "target_reached": False,
                 "worst_ci_pct": 0.8, "worst_ci_id": "seccomp.bitmap.1", "ci_method": "order statistics"},
     "results": [
       {"id": "native", "family": "baseline", "description": "getppid()", "status": "measured",
        "median_ns": 100.0, "ci_low_ns": 99.0, "ci_high_ns": 101.0, "samples": 100, "iters_per_sample": 1000},
       {"id": "seccomp.bitmap.1", "family": "seccomp", "description": "1 bitmapped filter", "status": "measured",
        "median_ns": 150.0, "ci_low_ns": 149.0, "ci_high_ns": 151.0, "samples": 100, "iters_per_sample": 1000,
        "overhead": {"vs": "native", "median_ns": 50.0, "ci_low_ns": 49.0, "ci_high_ns": 51.0, "samples": 100,
                     "pct": 50.0, "pct_ci_low": 49.0, "pct_ci_high": 51.0},
        "params": {"filters": "1"}},
       {"id": "sud.block", "family": "sud", "description": "SUD block", "status": "skipped",
        "reason": "kernel too old"}],
     "estimates": [{"id": "entry", "label": "seccomp entry overhead", "formula": "bitmap.1 - native",
                    "median_ns": 50.0, "ci_low_ns": 49.0, "ci_high_ns": 51.0, "samples": 100}],
     "expectations": [{"id": "native_le_bitmap1", "label": "native <= 1 bitmap", "relation": "le",
                       "lhs_ns": 100.0, "rhs_ns": 150.0, "diff_median_ns": -50.0, "diff_ci_low_ns": -51.0,
                       "diff_ci_high_ns": -49.0, "tolerance_ns": 2.0, "verdict": "pass", "kernel_verdict": "pass"}],
    }
def w(path, obj):
    with open(path, 'w') as f: json.dump(obj, f, indent=1, ensure_ascii=False); f.write('\n')
def wb(path, b):
    with open(path, 'wb') as f: f.write(b)
def edit(name, fn, d=F):
    r = base(); fn(r); w(d + name, r)

# --- raw: bytes as they are --------------------------------------------------------------
wb(R+'empty.json', b'')
wb(R+'whitespace.json', b'  \n\t\n')
wb(R+'bom.json', b'\xef\xbb\xbf' + json.dumps(base()).encode())
wb(R+'latin1.json', json.dumps(base()).replace('Example CPU', 'Exampl\u00e9 CPU').encode('latin-1'))
wb(R+'truncated.json', json.dumps(base()).encode()[:300])
wb(R+'trailing-garbage.json', json.dumps(base()).encode() + b'\n}{"schema": 1}')
wb(R+'top-level-array.json', b'[' + json.dumps(base()).encode() + b']')
wb(R+'top-level-null.json', b'null')
wb(R+'nan-literal.json', json.dumps(base()).replace('"median_ns": 100.0', '"median_ns": NaN').encode())
wb(R+'infinity-literal.json', json.dumps(base()).replace('"median_ns": 100.0', '"median_ns": Infinity').encode())
wb(R+'number-overflow.json', json.dumps(base()).replace('"median_ns": 100.0', '"median_ns": 1e400').encode())
wb(R+'deep-nesting.json', b'{"schema": 1, "notes": ' + b'[' * 20000 + b']' * 20000 + b'}')
wb(R+'deep-nesting-objects.json', b'{"schema": 1, "x": ' + b'{"a":' * 20000 + b'1' + b'}' * 20000 + b'}')
wb(R+'comments.json', b'// a record\n' + json.dumps(base()).encode())
r = base(); r['schema'] = 99; w(R+'schema-future.json', r)
r = base(); r['schema'] = 0; w(R+'schema-zero.json', r)
r = base(); r['schema'] = -1; w(R+'schema-negative.json', r)
r = base(); r['schema'] = "1"; w(R+'schema-string.json', r)
r = base(); r['schema'] = 1.5; w(R+'schema-fraction.json', r)
wb(R+'schema-huge.json', json.dumps(base()).replace('"schema": 1', '"schema": 18446744073709551616').encode())
r = base(); del r['schema']; w(R+'schema-missing.json', r)
r = base(); del r['results']; w(R+'missing-results.json', r)
r = base(); del r['environment']['comparability']['arch']; w(R+'missing-arch.json', r)
r = base(); r['results'] = "many"; w(R+'wrong-type-results.json', r)
r = base(); r['results'][0]['samples'] = -3; w(R+'negative-samples.json', r)
r = base(); r['results'][0]['samples'] = 1.5; w(R+'fractional-samples.json', r)
r = base(); r['summary']['rounds'] = 18446744073709551616; w(R+'rounds-over-u64.json', r)
r = base(); r['source']['kind'] = "collected\n::error file=x::forged CI annotation\x1b[31m"; w(R+'unknown-enum-with-control-chars.json', r)
r = base(); r['id'] = "../../../../etc/passwd"; w(R+'id-traversal.json', r)
r = base(); r['id'] = "/etc/passwd"; w(R+'id-absolute.json', r)
r = base(); r['id'] = ""; w(R+'id-empty.json', r)
r = base(); r['id'] = "<script>alert(1)</script>"; w(R+'id-markup.json', r)
wb(R+'duplicate-keys.json', json.dumps(base()).replace('"schema": 1,', '"schema": 1, "schema": 1,', 1).encode())

# --- fill-id, refused for their values ---------------------------------------------------
def res0(k, v): return lambda r: r['results'][0].__setitem__(k, v)
edit('negative-median.json', res0('median_ns', -5.0))
edit('median-outside-ci.json', res0('median_ns', 500.0))
edit('ci-inverted.json', lambda r: r['results'][0].update(ci_low_ns=101.0, ci_high_ns=99.0))
edit('ci-half-open.json', lambda r: r['results'][0].pop('ci_high_ns'))
edit('huge-median.json', lambda r: r['results'][0].update(median_ns=1e300, ci_low_ns=1e299, ci_high_ns=1e301))
edit('huge-estimate.json', lambda r: r['estimates'][0].update(median_ns=-1e200, ci_low_ns=-2e200, ci_high_ns=0.0))
edit('overhead-outside-ci.json', lambda r: r['results'][1]['overhead'].update(median_ns=80.0))
edit('confidence-above-one.json', lambda r: r['settings'].update(confidence=95.0))
edit('negative-duration.json', lambda r: r['summary'].update(duration_s=-1.0))
edit('no-results.json', lambda r: r.update(results=[]))
edit('result-id-twice.json', lambda r: r['results'].append(copy.deepcopy(r['results'][0])))
edit('measured-without-median.json', lambda r: [r['results'][0].pop(k) for k in ('median_ns','ci_low_ns','ci_high_ns')])
edit('skipped-without-reason.json', lambda r: r['results'][2].pop('reason'))
edit('zero-syscalls-per-op.json', lambda r: r['settings'].update(syscalls_per_op=0))
edit('blank-arch.json', lambda r: r['environment']['comparability'].update(arch="   "))
edit('synthetic.json', lambda r: r['source'].update(kind="synthetic"))

# --- fill-id, refused for names and numbers the site would use as they are ----------------
# arch, kernel release, ids, keys, hashes and dates have a grammar; numbers a range; texts a
# length (docs/record-format.md, "Rules"). A record breaking one is refused, not sanitised.
def P(field): return f'<script>alert("{field}")</script>"\'><img src=x onerror=alert(1)>{{{{7777*7777}}}}]]></title></desc><!--'
def markup_in_names(r):
    s = r['source']
    s.update(commit=P('commit'), format=P('format'), date=P('date'), text_sha256=P('sha'))
    st = r['settings']; st.update(syscall=P('syscall'), only=[P('only')], skip=[P('skip')])
    c = r['environment']['comparability']
    c.update(arch=P('arch'), kernel_release=P('kernel'),
             mitigations={P('mitkey'): 'x'}, kernel_config={P('cfgkey'): 'y'})
    c['virtualization'].update(kind=P('virt'))
    r['environment']['incidental'].update(machine_hash=P('machine'))
    r['summary'].update(worst_ci_id=P('worst'))
    for n, x in enumerate(r['results']):
        x.update(family=P(f'family{n}'))
    r['results'][2]['id'] = P('resultid')
    r['results'][1]['overhead']['vs'] = P('vs')
    r['estimates'].append(dict(r['estimates'][0], id=P('estid')))
    r['expectations'].append(dict(r['expectations'][0], id=P('expid')))
edit('markup-in-names.json', markup_in_names)
def traversal(r):
    c = r['environment']['comparability']
    c.update(arch='../../../../../tmp/escaped', kernel_release='/etc/passwd')
    r['results'][2]['id'] = '../../../index'
    r['environment']['incidental']['machine_hash'] = '../../etc'
edit('traversal-in-names.json', traversal)
# Names the site uses for its own pages: runs/index.html, kernels/page-2.html.
edit('arch-named-like-a-page.json', lambda r: r['environment']['comparability'].update(arch='index.html'))
edit('kernel-named-like-a-page.json', lambda r: r['environment']['comparability'].update(kernel_release='index.html'))
edit('kernel-named-like-page-2.json', lambda r: r['environment']['comparability'].update(kernel_release='page-2.html'))
def extremes(r):
    x = r['results'][0]
    x.update(median_ns=1e12, ci_low_ns=0.0, ci_high_ns=1e12, samples=18446744073709551615,
             iters_per_sample=18446744073709551615, min_ns=5e-324, mad_ns=0.0, outliers=18446744073709551615)
    r['results'][1].update(median_ns=5e-324, ci_low_ns=0.0, ci_high_ns=1e-300)
    r['results'][1]['overhead'].update(median_ns=-1e12, ci_low_ns=-1e12, ci_high_ns=1e12, pct=-1e12, pct_ci_low=-1e12, pct_ci_high=1e12)
    r['summary'].update(rounds=18446744073709551615, duration_s=1.7976931348623157e308)
    r['settings'].update(budget_s=1.7976931348623157e308, cpu=4294967295, syscalls_per_op=4294967295, confidence=1e-300)
    r['estimates'][0].update(median_ns=-1e12, ci_low_ns=-1e12, ci_high_ns=1e12, samples=0)
edit('extreme-numbers.json', extremes)
edit('negative-budget.json', lambda r: r['settings'].update(budget_s=-30.0))
edit('huge-duration.json', lambda r: r['summary'].update(duration_s=1e308))
edit('negative-sample-ms.json', lambda r: r['settings'].update(sample_ms=-2.0))
edit('negative-loadavg.json', lambda r: r['environment']['incidental'].update(loadavg_start=[-1.0, 0.5, 0.5]))
edit('huge-tolerance.json', lambda r: r['expectations'][0].update(tolerance_ns=1e308))
edit('date-in-9999.json', lambda r: r['source'].update(date='9999-12-31T23:59:59Z'))
edit('date-not-rfc3339.json', lambda r: r['source'].update(date='yesterday'))
def controls_in_kernel(r):
    r['environment']['comparability']['kernel_release'] = '6.8\u0000-rc1\u001b]0;title\u0007'
edit('control-characters-in-kernel.json', controls_in_kernel)
def longs(r):
    c = r['environment']['comparability']
    c['kernel_release'] = '6.' + '9' * 5000
    c['arch'] = 'a' * 3000
    c['cpu']['model_name'] = 'M' * 20000
    r['notes'] = ['n' * 20000] * 5
edit('long-strings.json', longs)

# --- fill-id, published: nothing in them may become markup -------------------------------
def xss(r):
    s = r['source']
    s.update(tool=P('tool'), url='javascript:alert(document.cookie)//' + P('url'), note=P('note'))
    c = r['environment']['comparability']
    c.update(kernel_version=P('kver'), cmdline=P('cmdline'),
             bpf_jit_enable=P('jit'), bpf_jit_harden=P('harden'), seccomp_actions_avail=P('actions'),
             mitigations={'spectre_v2': P('mitval')}, kernel_config={'CONFIG_X': P('cfgval')})
    c['cpu'].update(vendor=P('vendor'), model_name=P('cpu'), family=P('family'), model=P('model'),
                    stepping=P('stepping'), microcode=P('microcode'))
    c['virtualization'].update(hypervisor=P('hyp'), product=P('product'))
    i = r['environment']['incidental']
    i.update(clocksource=P('clock'), governor=P('gov'), other={P('otherkey'): P('otherval')})
    r['summary'].update(ci_method=P('cimethod'))
    for n, x in enumerate(r['results']):
        x.update(description=P(f'desc{n}'))
        x['params'] = {P(f'pkey{n}'): P(f'pval{n}')}
    r['results'][2]['reason'] = P('reason')
    r['results'][1]['verification'] = {"what": P('what'), "expected": 10, "observed": 10}
    r['estimates'][0].update(label=P('estlabel'), formula=P('formula'))
    r['expectations'][0].update(label=P('explabel'))  # relation is an enum: markup cannot parse
    r['notes'] = [P('note0'), P('note1')]
edit('markup-in-every-string.json', xss)
def limits(r):
    # Every number at the edge of its range, published as it is.
    x = r['results'][0]
    x.update(median_ns=1e12, ci_low_ns=0.01, ci_high_ns=1e12, samples=1000000000,
             iters_per_sample=1000000000000, min_ns=0.0, mad_ns=0.0, outliers=1000000000)
    r['results'][1].update(median_ns=0.01, ci_low_ns=0.01, ci_high_ns=0.01)
    r['results'][1]['overhead'].update(median_ns=-1e12, ci_low_ns=-1e12, ci_high_ns=1e12, pct=-1e12, pct_ci_low=-1e12, pct_ci_high=1e12)
    r['summary'].update(rounds=1000000000, duration_s=604800.0)
    r['settings'].update(budget_s=86400.0, cpu=8191, syscalls_per_op=1000, confidence=0.5)
    r['estimates'][0].update(median_ns=-1e12, ci_low_ns=-1e12, ci_high_ns=1e12, samples=0)
    r['expectations'][0].update(tolerance_ns=1e12)
edit('extreme-numbers-in-range.json', limits)
def unicode(r):
    c = r['environment']['comparability']
    c['cpu']['model_name'] = 'CPU \u202eevil\u202c \u200b\ufeff \u0000nul \u0007bell \u001b[31mred \ufffe\uffff \U0001F600'
    r['notes'] = ['\u0000\u0001\u0002\u0003\u0008\u000b\u000c\u001f\u007f\u0085\u2028\u2029',
                  'isolates \u2066LRI \u2067RLI \u2068FSI\u2069 \u202aLRE \u202bRLE \u202dLRO\u202c']
    r['source']['url'] = 'https://example.org/\u0000"onmouseover="alert(1)'
edit('control-and-bidi-characters.json', unicode)
def longest(r):
    c = r['environment']['comparability']
    c['kernel_release'] = '6.' + '9' * 62
    c['arch'] = 'a' * 32
    c['cpu']['model_name'] = 'M' * 4096
    r['notes'] = ['n' * 4096] * 5
edit('longest-strings.json', longest)
