"""Evidence an agent can quote: the sentences of the best passages that support a claim.

This package is where sentence-level evidence lives (issue 36): splitting a passage's text
into sentences with their character offsets (:mod:`.sentences`), and ranking them against
a claim by lexical and dense evidence together. It works on text and vectors handed to it
by the search service, never on the database: an import-linter contract keeps storage and
the engines out (pyproject.toml, "Evidence works on passages handed to it").
"""

from prioris.search.evidence.sentences import Sentence, split_sentences

__all__ = ["Sentence", "split_sentences"]
