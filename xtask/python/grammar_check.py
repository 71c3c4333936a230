"""Checks grammars with engines other than ours: xgrammar for GBNF (its EBNF dialect is llama.cpp's)
and for structural tags, llguidance's GBNF-to-Lark converter for a second parse of the GBNF.

Input (stdin): JSON lines, one grammar each:
  {"name": str, "gbnf": str | null, "structural_tag": object | null, "accept": [str], "refuse": [str]}
Every `accept` text must be accepted whole by each form given, every `refuse` text refused.
Output: one line per failure, then `grammar-check: N passed, M failed`; exit status 1 on any failure.
"""

import json
import sys
import types

# tvm_ffi must be imported before the stand-ins: it looks for a real torch when it loads.
import tvm_ffi  # noqa: F401


class _Anything:
    """Stands in for whatever xgrammar reads from torch/transformers/triton at import time."""

    def __init__(self, *args, **kwargs):
        pass

    def __call__(self, *args, **kwargs):
        return _Anything()

    def __getattr__(self, name):
        return _Anything()

    def __mro_entries__(self, bases):
        return (object,)


class _StandIn(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Anything()


for _module in ("torch", "torch.nn", "torch.nn.functional", "transformers", "triton"):
    sys.modules.setdefault(_module, _StandIn(_module))

from llguidance.gbnf_to_lark import gbnf_to_lark  # noqa: E402
import xgrammar  # noqa: E402
from xgrammar.testing import _is_grammar_accept_string  # noqa: E402


def check(case, failures):
    name = case["name"]
    forms = []
    if case.get("gbnf") is not None:
        try:
            forms.append(("gbnf", xgrammar.Grammar.from_ebnf(case["gbnf"])))
        except Exception as error:  # a grammar xgrammar cannot read is a failure, not a crash
            failures.append(f"{name}: gbnf does not parse in xgrammar: {error}")
        try:
            gbnf_to_lark(case["gbnf"])
        except Exception as error:
            failures.append(f"{name}: gbnf does not parse in llguidance: {error}")
    if case.get("structural_tag") is not None:
        try:
            tag = json.dumps(case["structural_tag"])
            forms.append(("structural tag", xgrammar.Grammar.from_structural_tag(tag)))
        except Exception as error:
            failures.append(f"{name}: structural tag does not compile in xgrammar: {error}")
    for form, grammar in forms:
        for text in case.get("accept", []):
            if not _is_grammar_accept_string(grammar, text):
                failures.append(f"{name}: {form} refuses {text!r}")
        for text in case.get("refuse", []):
            if _is_grammar_accept_string(grammar, text):
                failures.append(f"{name}: {form} accepts {text!r}")


def main():
    passed = failed = 0
    for line in sys.stdin:
        if not line.strip():
            continue
        failures = []
        check(json.loads(line), failures)
        for failure in failures:
            print(failure)
        if failures:
            failed += 1
        else:
            passed += 1
    print(f"grammar-check: {passed} passed, {failed} failed")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())
