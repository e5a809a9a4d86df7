/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * syscost's BPF programs: one per attach type, each counting the calls made by the measuring
 * worker. The loader enables only the program a scenario needs, fills `cfg` before loading, and
 * attaches it only while that worker takes its sample.
 *
 * Regenerate the committed object with scripts/gen-bpf after any change here.
 */
#include "types.h"
#include "bpf_helpers.h"

/* Must match `Config` in collector/src/scenarios/bpf/object.rs. Read-only data is frozen at
 * load, so the verifier knows these values and the tgid test costs one compare. */
struct syscost_cfg {
	__u32 tgid;  /* the worker process; everyone else's calls are ignored */
	__u32 pad;
	__s64 nr;    /* syscall number the raw tracepoint filters on */
	__s64 ret;   /* what fmod_ret makes the syscall return for the worker (-EINVAL) */
};
const volatile struct syscost_cfg cfg = { .nr = -1 };

/* Hits by the worker. One writer only (the worker is single-threaded and pinned to one CPU),
 * so a plain increment is exact and avoids a locked instruction in the measured path. */
__u64 hits = 0;

static __always_inline int mine(void)
{
	return (bpf_get_current_pid_tgid() >> 32) == cfg.tgid;
}

static __always_inline void count(void)
{
	if (mine())
		hits++;
}

/* tracepoint syscalls/sys_enter_<probe> */
SEC("tracepoint")
int syscost_tp(void *ctx)
{
	count();
	return 0;
}

/* raw tracepoint sys_enter: every syscall, so filter on the id (args[1]) */
SEC("raw_tp")
int syscost_rawtp(__u64 *ctx)
{
	if (ctx[1] == (__u64)cfg.nr)
		count();
	return 0;
}

SEC("kprobe")
int syscost_kprobe(void *ctx)
{
	count();
	return 0;
}

SEC("kretprobe")
int syscost_kretp(void *ctx)
{
	count();
	return 0;
}

SEC("kprobe.multi")
int syscost_kpmulti(void *ctx)
{
	count();
	return 0;
}

SEC("fentry")
int syscost_fentry(void *ctx)
{
	count();
	return 0;
}

SEC("fexit")
int syscost_fexit(void *ctx)
{
	count();
	return 0;
}

/* Non-zero skips the syscall body and becomes its return value: only ever for the worker,
 * everyone else's calls run normally. */
SEC("fmod_ret")
int syscost_fmodret(void *ctx)
{
	if (!mine())
		return 0;
	hits++;
	return cfg.ret;
}

SEC("uprobe")
int syscost_uprobe(void *ctx)
{
	count();
	return 0;
}

SEC("uretprobe")
int syscost_uretp(void *ctx)
{
	count();
	return 0;
}

char LICENSE[] SEC("license") = "Dual MIT/GPL";
