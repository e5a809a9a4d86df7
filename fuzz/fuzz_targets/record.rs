//! Record files as strangers send them: parsing, diagnosis and validation never panic; a
//! record that validates round-trips through its canonical JSON with the same id, saves under
//! a safe path and renders a run page (alone and next to itself as the previous run); the
//! one-pass check of the id and the file form agrees with the two it replaces.
#![no_main]

use libfuzzer_sys::fuzz_target;
use syscost_record::{
    canonical_json, content_id, is_file_form, to_file_json, validate, validate_file, with_id,
    RunRecord,
};
use syscost_site::build::load::parse_record;

fuzz_target!(|data: &[u8]| {
    // The first pass's head readers must not panic either, and the early-stopping one must
    // accept whatever the full one accepts, with the same id.
    if let Ok(full) = serde_json::from_slice::<syscost_site::model::summary::Head>(data) {
        let early = syscost_site::model::summary::read_head(data).expect("early head read");
        assert_eq!(early.id, full.id);
    } else {
        let _ = syscost_site::model::summary::read_head(data);
    }
    let rec = match parse_record(data) {
        Ok(r) => r,
        Err(msg) => {
            assert!(!msg.to_string().is_empty());
            return;
        }
    };
    // The site's one-pass check says what validation and the file-form check say.
    assert_eq!(
        validate_file(&rec, data),
        (validate(&rec), is_file_form(&rec, data))
    );
    // Give it its true id so validation looks past the hash at the numbers.
    let rec = with_id(rec);
    if !validate(&rec).is_empty() {
        return;
    }
    assert_eq!(
        validate_file(&rec, to_file_json(&rec).as_bytes()),
        (Vec::new(), true)
    );
    syscost_fuzz::assert_safe_path(&rec);
    let back: RunRecord = serde_json::from_str(&canonical_json(&rec)).expect("own JSON parses");
    assert_eq!(content_id(&back), rec.id, "id changed across a round trip");
    let page =
        syscost_site::commands::build::render_run_page(&rec).expect("page renders");
    assert!(page.contains("</html>"));
});
