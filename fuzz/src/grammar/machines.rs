//! Outputs of the hand-written state machines that no grammar with an oracle writes yet: Muse Spark
//! and Glimmer (harmony-like messages with `<function_calls>` inside) and Sarashina (`<|tool_calls|>`
//! Python-literal lists). Seeds are each parser's corpus cases and registry sample, recombined at
//! markers and damaged with the format's own markers ([`super::seeded`]); the invariant checks judge
//! the result (no oracle). (Kimi K3, K2 Horizon, MiniMax-M3 and Inkling have grammars with an oracle:
//! [`super::kimi_k3`], [`super::horizon`], [`super::minimax_m3`], [`super::inkling`].)

use parser_core::testing::Rng;

use super::{Generated, Scale};
use crate::setup::Setup;

/// The parsers this grammar covers (registry names).
pub const PARSERS: &[&str] = &["muse", "muse-glimmer", "sarashina"];

fn covers(entry: &parser_core::ParserEntry) -> bool {
    PARSERS.contains(&entry.name)
}

/// The registry parsers this grammar generates (those with seeds).
pub fn parsers() -> Vec<&'static str> {
    super::data::groups(covers, None)
        .iter()
        .map(|(name, _)| *name)
        .collect()
}

/// A seed output of one of the parsers, recombined and damaged. No oracle. With `only` (a parser name,
/// alias or family name), just that parser or family's.
pub fn generate(rng: &mut Rng, scale: Scale, only: Option<&str>) -> Generated {
    super::seeded::generate(&super::data::groups(covers, only), rng, scale)
}

/// A seed output (for the mutators' nesting).
pub fn call_block(rng: &mut Rng) -> String {
    super::seeded::call_block(&super::data::groups(covers, None), rng)
}

/// Other request options, or another parser of this grammar.
pub fn variant(rng: &mut Rng, setup: &Setup) -> Setup {
    let mut other = super::generic::variant(rng, setup);
    if rng.chance(15) {
        other.parser = rng.pick(PARSERS).to_owned();
    }
    other
}
