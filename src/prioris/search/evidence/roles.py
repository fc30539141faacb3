"""The rhetorical role of a sentence in scientific writing: an aim, or a finding.

Evidence for a claim is what a paper *found*, not what it set out to study: "To determine
whether statins lower mortality, we ..." repeats a claim's words without supporting or
contradicting it. Papers mark the roles in the same few ways everywhere: the labels of a
structured abstract (OBJECTIVE, METHODS, RESULTS, CONCLUSIONS), aim formulas ("To
investigate whether", "We sought to", "The aim of this study") and report formulas ("we
found", "was associated with", a p-value, a confidence interval). :func:`role` gives
-1 for an aim, background or method sentence, +1 for a finding and 0 otherwise; the
ranking weighs it lightly (:mod:`.ranking`), so a plain sentence that matches the claim
well still wins.
"""

from __future__ import annotations

import re

_AIM = re.compile(
    r"^\s*(?:OBJECTIVES?|AIMS?|PURPOSE|BACKGROUND|INTRODUCTION|CONTEXT|METHODS?|DESIGN|SETTING"
    r"|PARTICIPANTS|MATERIALS?|STUDY DESIGN)\b"
    r"|^\s*(?:To (?:investigate|determine|assess|examine|evaluate|test|explore|study|compare"
    r"|identify|characteri[sz]e)"
    r"|We (?:aimed|sought|investigated whether|examined whether|asked whether|hypothesi[sz]ed)"
    r"|The (?:aim|purpose|objective|goal)s? of)",
    re.IGNORECASE,
)
_FINDING = re.compile(
    r"^\s*(?:RESULTS?|FINDINGS|CONCLUSIONS?|INTERPRETATION)\b"
    r"|\b(?:we (?:found|show|showed|demonstrate|observed|report)"
    r"|(?:was|were) associated with|significantly|p\s*[<=]\s*0?\.\d|odds ratio|hazard ratio"
    r"|95% ?CI|(?:these|our) (?:results|findings|data) (?:suggest|indicate|show|demonstrate))",
    re.IGNORECASE,
)


def role(sentence: str) -> float:
    """-1 for an aim, background or method; +1 for a finding; 0 for anything else."""
    if _AIM.search(sentence):
        return -1.0
    if _FINDING.search(sentence):
        return 1.0
    return 0.0
