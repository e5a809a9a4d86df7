//! The checks of a record's environment and lab facts.

use super::*;

pub(super) fn environment(c: &mut Checker, r: &RunRecord) {
    let env = &r.environment.comparability;
    let p = "environment.comparability";
    if !is_arch(&env.arch) {
        c.push(format!("{p}.arch"), arch_message(&env.arch));
    }
    if !is_kernel_release(&env.kernel_release) {
        c.push(
            format!("{p}.kernel_release"),
            release_message(&env.kernel_release),
        );
    }
    c.opt_text(Lazy(|| format!("{p}.kernel_version")), &env.kernel_version);
    let cpu = &env.cpu;
    for (name, v) in [
        ("vendor", &cpu.vendor),
        ("model_name", &cpu.model_name),
        ("family", &cpu.family),
        ("model", &cpu.model),
        ("stepping", &cpu.stepping),
        ("microcode", &cpu.microcode),
    ] {
        c.opt_text(Lazy(|| format!("{p}.cpu.{name}")), v);
    }
    for (name, v) in [
        ("logical_cpus", cpu.logical_cpus),
        ("physical_cores", cpu.physical_cores),
    ] {
        match v {
            Some(0) => c.push(format!("{p}.cpu.{name}"), "must be at least 1"),
            Some(n) if n > CPU_MAX + 1 => c.push(
                format!("{p}.cpu.{name}"),
                format!("{n} is out of range: at most {}", CPU_MAX + 1),
            ),
            _ => {}
        }
    }
    if let Some(e) = &env.emulator {
        for (name, v) in [
            ("name", &e.name),
            ("version", &e.version),
            ("cpu_model", &e.cpu_model),
        ] {
            c.text(Lazy(|| format!("{p}.emulator.{name}")), v);
        }
        if env.virtualization.kind != crate::VIRT_QEMU_TCG {
            c.push(
                format!("{p}.emulator"),
                format!(
                    "is set for a run whose virtualization is {:?}: only a run emulated under \
                     TCG (\"{}\") has an emulator",
                    env.virtualization.kind,
                    crate::VIRT_QEMU_TCG
                ),
            );
        }
    }
    let icount = r.environment.lab.as_ref().and_then(|l| l.icount.as_ref());
    if (env.clock() == crate::Clock::Instructions) != icount.is_some() {
        c.push(
            format!("{p}.clock"),
            format!(
                "is {:?} and environment.lab.icount is {}: a clock counts instructions exactly \
                 when its QEMU guest ran with -icount",
                env.clock(),
                if icount.is_some() { "set" } else { "absent" }
            ),
        );
    }
    if let Some(lab) = &r.environment.lab {
        lab_facts(c, lab);
        let tcg = lab.accelerator == crate::Accelerator::Tcg;
        if lab.icount.is_some() && !tcg {
            c.push(
                format!("{p}.clock"),
                "counts instructions under KVM: QEMU counts instructions only under TCG",
            );
        }
        if tcg != (env.virtualization.kind == crate::VIRT_QEMU_TCG) {
            c.push(
                format!("{p}.virtualization.kind"),
                format!(
                    "is {:?} for a lab run under {}: a TCG run is \"{}\" and only a TCG run is",
                    env.virtualization.kind,
                    lab.accelerator.name(),
                    crate::VIRT_QEMU_TCG
                ),
            );
        }
    }
    kernel_state(c, env);
    incidental(c, &r.environment.incidental);
}

/// The virtualisation, mitigations, kernel configuration and command line of a run.
fn kernel_state(c: &mut Checker, env: &crate::Comparability) {
    let p = "environment.comparability";
    // Empty is read as unknown.
    if !env.virtualization.kind.is_empty() {
        c.ident(
            Lazy(|| format!("{p}.virtualization.kind")),
            &env.virtualization.kind,
        );
    }
    c.opt_text(
        Lazy(|| format!("{p}.virtualization.hypervisor")),
        &env.virtualization.hypervisor,
    );
    c.opt_text(
        Lazy(|| format!("{p}.virtualization.product")),
        &env.virtualization.product,
    );
    c.entries(Lazy(|| format!("{p}.mitigations")), env.mitigations.len());
    for (k, v) in &env.mitigations {
        c.ident(Lazy(|| format!("{p}.mitigations key")), k);
        c.text(Lazy(|| format!("{p}.mitigations.{}", short(k))), v);
    }
    c.entries(
        Lazy(|| format!("{p}.kernel_config")),
        env.kernel_config.len(),
    );
    for (k, v) in &env.kernel_config {
        c.ident(Lazy(|| format!("{p}.kernel_config key")), k);
        c.text(Lazy(|| format!("{p}.kernel_config.{}", short(k))), v);
    }
    for (name, v) in [
        ("cmdline", &env.cmdline),
        ("bpf_jit_enable", &env.bpf_jit_enable),
        ("bpf_jit_harden", &env.bpf_jit_harden),
        ("seccomp_actions_avail", &env.seccomp_actions_avail),
    ] {
        c.opt_text(Lazy(|| format!("{p}.{name}")), v);
    }
}

/// What a run's environment says that does not make runs comparable or not.
fn incidental(c: &mut Checker, inc: &crate::Incidental) {
    let p = "environment.incidental";
    if let Some(m) = &inc.machine_hash {
        if !is_hex(m, 1, 64) {
            c.push(
                format!("{p}.machine_hash"),
                format!("{} is not a hash (lower-case hex digits)", quoted(m)),
            );
        }
    }
    c.opt_text(Lazy(|| format!("{p}.clocksource")), &inc.clocksource);
    c.opt_text(Lazy(|| format!("{p}.governor")), &inc.governor);
    for (name, v) in [
        ("loadavg_start", inc.loadavg_start),
        ("loadavg_end", inc.loadavg_end),
    ] {
        for (i, x) in v.iter().flatten().enumerate() {
            c.range(
                Lazy(|| format!("{p}.{name}[{i}]")),
                Some(*x),
                0.0,
                false,
                LOADAVG_MAX,
                "",
            );
        }
    }
    c.text_map(&format_args!("{p}.other"), &inc.other);
}

pub(super) fn lab_facts(c: &mut Checker, lab: &crate::Lab) {
    let p = "environment.lab";
    for (name, v) in [
        ("qemu", &lab.qemu),
        ("machine", &lab.machine),
        ("cpu_model", &lab.cpu_model),
    ] {
        c.text(&format!("{p}.{name}"), v);
    }
    c.opt_text(&format!("{p}.kvm_fallback"), &lab.kvm_fallback);
    c.opt_text(&format!("{p}.icount"), &lab.icount);
    if let Some(k) = &lab.kernel_package {
        c.text(&format!("{p}.kernel_package.name"), &k.name);
        c.text(&format!("{p}.kernel_package.version"), &k.version);
        c.opt_text(&format!("{p}.kernel_package.suite"), &k.suite);
    }
    for (name, v) in [("vcpus", lab.vcpus), ("memory_mib", lab.memory_mib)] {
        if v == 0 {
            c.push(format!("{p}.{name}"), "must be at least 1");
        }
    }
    c.count(
        &format!("{p}.vcpus"),
        Some(u64::from(lab.vcpus)),
        u64::from(CPU_MAX + 1),
    );
    for (name, h) in [
        ("kernel_sha256", Some(&lab.kernel_sha256)),
        ("kernel_config_sha256", lab.kernel_config_sha256.as_ref()),
    ] {
        if let Some(h) = h {
            if !is_hex(h, 64, 64) {
                c.push(
                    format!("{p}.{name}"),
                    "must be 64 lower-case hex digits (a SHA-256)",
                );
            }
        }
    }
    c.range(
        &format!("{p}.boot_s"),
        lab.boot_s,
        0.0,
        false,
        DURATION_MAX_S,
        " s",
    );
}
