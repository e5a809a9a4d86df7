/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * The few kernel types bpf_helper_defs.h needs, so the programs build with clang alone: no
 * kernel headers, no vmlinux.h. The programs read no kernel structure, so one object serves
 * every architecture (x86_64 and aarch64 are both 64-bit little-endian).
 */
#ifndef SYSCOST_TYPES_H
#define SYSCOST_TYPES_H

typedef unsigned char __u8;
typedef unsigned short __u16;
typedef unsigned int __u32;
typedef unsigned long long __u64;
typedef signed char __s8;
typedef short __s16;
typedef int __s32;
typedef long long __s64;
typedef __u16 __be16;
typedef __u32 __be32;
typedef __u32 __wsum;

/* Used only as a parameter type in bpf_helper_defs.h. */
enum rc_proto { RC_PROTO_UNKNOWN = 0 };

#endif
