//! Every registered parser is fuzzed: some family's generator writes its outputs (a grammar with an
//! oracle, or seeds from its corpus cases and registry sample damaged with its own markers). A new
//! parser or family crate fails here until a grammar of `fuzz/src/grammar` covers it.

use fuzz::Family;

#[test]
fn every_registered_parser_has_a_fuzz_grammar() {
    let covered: Vec<(Family, Vec<&str>)> = Family::ALL
        .into_iter()
        .map(|family| (family, fuzz::grammar::parsers(family)))
        .collect();
    let mut missing = Vec::new();
    for entry in parser_auto::entries() {
        let by: Vec<Family> = covered
            .iter()
            .filter(|(_, parsers)| parsers.contains(&entry.name))
            .map(|(family, _)| *family)
            .collect();
        match by.as_slice() {
            // `--family NAME` runs the parser's grammar, by its name or (when the name is a fuzz
            // family's own, as `gemma` is) one of its aliases.
            [family] => assert!(
                std::iter::once(&entry.name)
                    .chain(entry.aliases)
                    .any(|name| Family::from_name(name) == Some(*family)),
                "no `--family` name of {} runs {family}",
                entry.name
            ),
            [] => missing.push(format!("{} (family {})", entry.name, entry.family)),
            many => panic!("{} is written by several grammars: {many:?}", entry.name),
        }
    }
    assert!(
        missing.is_empty(),
        "registered parsers no fuzz grammar writes (add them to a grammar of fuzz/src/grammar): {}",
        missing.join(", ")
    );
}

#[test]
fn every_grammar_parser_is_registered() {
    for family in Family::ALL {
        for parser in fuzz::grammar::parsers(family) {
            assert!(
                parser_auto::entry_by_name(parser).is_ok(),
                "{family} names `{parser}`, which is not registered"
            );
        }
    }
}
