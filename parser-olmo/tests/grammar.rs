//! The family's grammars. A parser whose spec the generic grammar builder describes registers a
//! `ConstraintEntry` built from the same spec as the parser; one it cannot describe yet registers none,
//! and this test holds the reason (it fails once the builder learns the format, so that the entry is
//! added then).

use parser_core::constraint::ConstraintRequest;
use parser_core::{ParseOptions, find_by_name};
use parser_generic::constraint::{NotDescribed, format_description};

/// The parsers whose format the grammar builder cannot describe yet, and why.
const NOT_DESCRIBED: &[(&str, NotDescribed)] = &[
    ("olmo3", NotDescribed::Pythonic),
    ("olmo3-think", NotDescribed::Pythonic),
];

#[test]
fn a_constraint_is_registered_exactly_for_the_described_formats() {
    for data in parser_olmo::data_parsers() {
        let entry = find_by_name(data.name()).unwrap();
        let registered = entry
            .constraint(&ParseOptions::new(), &ConstraintRequest::default())
            .is_some();
        let expected = NOT_DESCRIBED
            .iter()
            .find(|(name, _)| *name == data.name())
            .map(|(_, reason)| reason.clone());
        assert_eq!(
            format_description(data.spec()).err(),
            expected,
            "{}",
            data.name()
        );
        assert_eq!(registered, expected.is_none(), "{}", data.name());
    }
}
