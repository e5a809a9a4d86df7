//! What the host adds to the record the guest sent: how QEMU ran it. The guest cannot tell
//! (an arm64 guest sees no hypervisor signature under TCG), the host can.

use super::qemu;
use syscost_record::{machine_hash, with_id, Accelerator, Emulator, Lab, RunRecord, VIRT_QEMU_TCG};

/// The guest's record with `lab` in its environment, a TCG run marked `qemu-tcg` in its
/// comparability key with the emulator (QEMU's version, the CPU model), the host's machine hash
/// (the guest's host name says nothing), a note, and its id recomputed. A guest that counted
/// instructions ran with its clock set to a fixed date: its record gets the host's `date`.
pub fn apply(mut r: RunRecord, lab: Lab, date: &str) -> RunRecord {
    let env = &mut r.environment;
    if lab.accelerator == Accelerator::Tcg {
        env.comparability.virtualization.kind = VIRT_QEMU_TCG.into();
        env.comparability
            .virtualization
            .hypervisor
            .get_or_insert_with(|| "QEMU TCG".into());
        env.comparability.emulator = Some(Emulator {
            name: "QEMU".into(),
            version: qemu::version_text(&lab.qemu)
                .unwrap_or(&lab.qemu)
                .to_string(),
            cpu_model: lab.cpu_model.clone(),
        });
        r.notes.push(if lab.icount.is_some() {
            format!(
                "instruction counts: measured in a QEMU guest whose clock advanced one tick per \
                 instruction executed ({}, -cpu {}, -icount {}): every number is instructions \
                 per operation on the emulated CPU — path length, not time: no cache misses, \
                 no mispredictions; comparable only with counts of the same emulator and CPU \
                 model, never with a time",
                lab.qemu,
                lab.cpu_model,
                lab.icount.as_deref().unwrap_or_default()
            )
        } else {
            format!(
                "emulated: measured in a QEMU guest under TCG (binary translation; {}, -cpu \
                 {}): the times are the emulator's, not any CPU's — compare them only with \
                 other TCG runs, never with hardware",
                lab.qemu, lab.cpu_model
            )
        });
    } else {
        r.notes.push(format!(
            "measured in a QEMU/KVM guest started by syscost lab ({}, -cpu {}, {} vCPUs)",
            lab.qemu, lab.cpu_model, lab.vcpus
        ));
    }
    if lab.seed.is_some() {
        r.source.date = Some(date.to_string());
    }
    let (_, node, ..) = crate::machine::uname();
    env.incidental.machine_hash = Some(machine_hash(&node));
    env.lab = Some(lab);
    with_id(r)
}
