//! What the host adds to the record the guest sent: how QEMU ran it. The guest cannot tell
//! (an arm64 guest sees no hypervisor signature under TCG), the host can.

use syscost_record::{machine_hash, with_id, Accelerator, Lab, RunRecord, VIRT_QEMU_TCG};

/// The guest's record with `lab` in its environment, a TCG run marked `qemu-tcg` in its
/// comparability key, the host's machine hash (the guest's host name says nothing), a note,
/// and its id recomputed.
pub fn apply(mut r: RunRecord, lab: Lab) -> RunRecord {
    let env = &mut r.environment;
    if lab.accelerator == Accelerator::Tcg {
        env.comparability.virtualization.kind = VIRT_QEMU_TCG.into();
        env.comparability
            .virtualization
            .hypervisor
            .get_or_insert_with(|| "QEMU TCG".into());
        r.notes.push(format!(
            "emulated: measured in a QEMU guest under TCG (binary translation; {}, -cpu {}): \
             the times are the emulator's, not any CPU's — compare them only with other TCG \
             runs, never with hardware",
            lab.qemu, lab.cpu_model
        ));
    } else {
        r.notes.push(format!(
            "measured in a QEMU/KVM guest started by syscost lab ({}, -cpu {}, {} vCPUs)",
            lab.qemu, lab.cpu_model, lab.vcpus
        ));
    }
    let (_, node, ..) = crate::machine::uname();
    env.incidental.machine_hash = Some(machine_hash(&node));
    env.lab = Some(lab);
    with_id(r)
}
