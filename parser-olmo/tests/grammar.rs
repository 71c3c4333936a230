//! The family's grammars. The generic grammar builder describes PYTHONIC specs (LFM2's list of calls),
//! but Olmo 3 writes one call per line without a list: a grammar from this spec would hold the model
//! to the list shape, refused by every corpus case (`<function_calls>get_weather(…)` has no `[`). So no
//! `ConstraintEntry` is registered; this test fails once one is, so that its grammar test is written
//! then.

use parser_core::constraint::ConstraintRequest;
use parser_core::{ParseOptions, find_by_name};
use parser_generic::constraint::format_description;

#[test]
fn no_constraint_is_registered_until_the_grammar_writes_calls_one_per_line() {
    for data in parser_olmo::data_parsers() {
        let entry = find_by_name(data.name()).unwrap();
        assert!(format_description(data.spec()).is_ok(), "{}", data.name());
        let registered = entry
            .constraint(&ParseOptions::new(), &ConstraintRequest::default())
            .is_some();
        assert!(!registered, "{}", data.name());
    }
}
