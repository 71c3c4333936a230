//! The common delta inside a collected parameter value (one typed by its schema as a number, an
//! object…, or [`ValueType::Any`](crate::ValueType::Any)), without the value's reader: the
//! counterpart of [`ParamValue::take_plain`] for the values that are not streamed.

use super::{ParamValue, ValueSyntax};
use crate::tool::Calls;

impl ParamValue {
    /// When the value is collected (not a string), its reader has started and holds no newline, and
    /// `text` is non-empty, has no marker of `syntax.ends` in it nor a prefix of one at its end
    /// ([`MarkerSet::may_match`](crate::MarkerSet::may_match)), has no trailing newline to hold, and
    /// keeps the collected text within [`Calls::buffer_limit`], `text` is value text as
    /// [`run`](Self::run) would find it: it is collected and `true` returned. `false`: nothing
    /// changed, run the reader.
    ///
    /// ```
    /// use parser_core::{Accumulator, Calls, MarkerSet, ObjectArgs, ParamStep, ParamValue, ParseOptions, ValueSyntax, ValueType};
    /// static ENDS: MarkerSet = MarkerSet::new(&[&["</parameter>"]]);
    /// static SYNTAX: ValueSyntax = ValueSyntax { ends: &ENDS, closer_followers: None, trim_newline: false };
    /// let mut out = Accumulator::new();
    /// let mut calls = Calls::new(&ParseOptions::new());
    /// calls.start(&mut out, "f", None);
    /// let (mut args, mut value) = (ObjectArgs::new(), ParamValue::new());
    /// args.key(&mut calls, &mut out, "ids");
    /// value.start(ValueType::Any, &mut args, &mut calls, &mut out);
    /// // Nothing read yet: the reader decides how a value starts.
    /// assert!(!value.take_plain_collected("[1, ", &SYNTAX, &calls));
    /// assert_eq!(value.run("[1, ", false, &SYNTAX, &mut args, &mut calls, &mut out), ParamStep::Pending(4));
    /// assert!(value.take_plain_collected("2 < 3", &SYNTAX, &calls));
    /// assert!(!value.take_plain_collected("]</", &SYNTAX, &calls)); // may begin the closer
    /// assert_eq!(value.collected(), "[1, 2 < 3");
    /// ```
    #[inline]
    pub fn take_plain_collected(
        &mut self,
        text: &str,
        syntax: &ValueSyntax,
        calls: &Calls,
    ) -> bool {
        let plain = !self.is_string()
            && self.reader.started
            && !self.reader.newline
            && !text.is_empty()
            && (!syntax.trim_newline || !text.ends_with('\n'))
            && self.collected.len() + text.len() <= calls.buffer_limit()
            && !syntax.ends.may_match(text);
        if plain {
            self.collected.push_str(text);
        }
        plain
    }
}

#[cfg(test)]
mod tests {
    use crate::{
        Accumulator, Calls, MarkerSet, ObjectArgs, ParamStep, ParamValue, ParseOptions,
        ValueSyntax, ValueType,
    };

    static ENDS: MarkerSet = MarkerSet::new(&[&["</parameter>"], &["<parameter="]]);
    static TRIM: ValueSyntax = ValueSyntax {
        ends: &ENDS,
        closer_followers: None,
        trim_newline: true,
    };

    /// A value of `value_type`, `first` already read; what `take_plain_collected` makes of `text`.
    fn take(value_type: ValueType, first: &str, text: &str) -> (bool, String) {
        let mut out = Accumulator::new();
        let mut calls = Calls::new(&ParseOptions::new());
        calls.start(&mut out, "f", None);
        let (mut args, mut value) = (ObjectArgs::new(), ParamValue::new());
        args.key(&mut calls, &mut out, "k");
        value.start(value_type, &mut args, &mut calls, &mut out);
        if !first.is_empty() {
            let step = value.run(first, false, &TRIM, &mut args, &mut calls, &mut out);
            assert_eq!(step, ParamStep::Pending(first.len()), "{first:?}");
        }
        let taken = value.take_plain_collected(text, &TRIM, &calls);
        (taken, value.collected().to_owned())
    }

    #[test]
    fn plain_text_of_a_collected_value_is_collected() {
        assert_eq!(take(ValueType::Integer, "1", "23"), (true, "123".into()));
        assert_eq!(
            take(ValueType::Any, "{", "\"a\": 1 < 2"),
            (true, "{\"a\": 1 < 2".into())
        );
    }

    #[test]
    fn anything_the_reader_must_see_is_left_to_it() {
        // Not started: the reader trims a leading newline.
        assert_eq!(take(ValueType::Integer, "", "1"), (false, String::new()));
        // A string streams (`take_plain`), it is not collected.
        assert_eq!(take(ValueType::String, "a", "b"), (false, String::new()));
        // A held newline, a trailing one to hold, a possible end marker.
        assert_eq!(take(ValueType::Integer, "1\n", "2"), (false, "1".into()));
        assert_eq!(take(ValueType::Integer, "1", "2\n"), (false, "1".into()));
        assert_eq!(take(ValueType::Integer, "1", "2</"), (false, "1".into()));
        assert_eq!(
            take(ValueType::Integer, "1", "2<param"),
            (false, "1".into())
        );
        assert_eq!(take(ValueType::Integer, "1", ""), (false, "1".into()));
    }

    #[test]
    fn the_buffer_limit_is_left_to_the_reader() {
        let mut out = Accumulator::new();
        let options = ParseOptions::new().with_limits(crate::Limits { call_buffer: 4 });
        let mut calls = Calls::new(&options);
        calls.start(&mut out, "f", None);
        let (mut args, mut value) = (ObjectArgs::new(), ParamValue::new());
        args.key(&mut calls, &mut out, "k");
        value.start(ValueType::Integer, &mut args, &mut calls, &mut out);
        value.run("12", false, &TRIM, &mut args, &mut calls, &mut out);
        assert!(value.take_plain_collected("34", &TRIM, &calls));
        assert!(!value.take_plain_collected("5", &TRIM, &calls));
    }
}
