"""The evidence room's sentence splitter: spans of the text, scientific abbreviations,
initials, decimals and bracketed citations kept inside their sentence."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from prioris.search.evidence import split_sentences


def texts(text: str) -> list[str]:
    return [s.text for s in split_sentences(text)]


def test_abbreviations_initials_decimals_and_citations_stay_inside() -> None:
    text = (
        "Smith et al. showed a 0.05 drop (p < 0.01) in mice [12, 13]. Fig. 2 shows e.g. "
        "the dose. J. Doe agreed! Is it true? Yes: section 3.2.1 holds."
    )
    assert texts(text) == [
        "Smith et al. showed a 0.05 drop (p < 0.01) in mice [12, 13].",
        "Fig. 2 shows e.g. the dose.",
        "J. Doe agreed!",
        "Is it true?",
        "Yes: section 3.2.1 holds.",
    ]


def test_a_stop_before_a_lower_case_word_is_not_an_end() -> None:
    assert texts("The value was approx. four. Then it fell.") == [
        "The value was approx. four.",
        "Then it fell.",
    ]
    assert texts("Gene A. expression rose. Done") == ["Gene A. expression rose.", "Done"]


def test_no_text_no_sentence() -> None:
    assert split_sentences("") == [] and split_sentences("   \n ") == []


@given(st.text(alphabet=st.sampled_from(list("ab .!?[]1 \nAB")), max_size=200))
def test_every_sentence_is_a_verbatim_span_in_order(text: str) -> None:
    found = split_sentences(text)
    previous = 0
    for sentence in found:
        assert text[sentence.start : sentence.end] == sentence.text
        assert sentence.text == sentence.text.strip() and sentence.text
        assert sentence.start >= previous
        previous = sentence.end
    # nothing but white space is left out
    kept = "".join(s.text for s in found)
    assert kept.replace(" ", "").replace("\n", "") == text.replace(" ", "").replace("\n", "")
