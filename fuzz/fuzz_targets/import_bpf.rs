//! The bpf importer on arbitrary logs: never panics, and whatever it accepts is a valid record
//! that saves under a safe path.
#![no_main]

use libfuzzer_sys::fuzz_target;
use syscost_import::Format as ImportFormat;

fuzz_target!(|data: &[u8]| {
    syscost_fuzz::check_import(data, ImportFormat::BpfBench);
});
