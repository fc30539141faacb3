"""Alerts: new papers, ranked for each collection, as a feed (issue 37).

The feature package for continuous discovery. Candidates come from sources
(:class:`~prioris.alerts.protocols.CandidateSource`: arXiv's new submissions, Europe PMC,
OpenAlex works citing a collection, feeds, files), built over :mod:`prioris.sources`; a
:class:`~prioris.alerts.protocols.CandidateRanker` scores them against a collection's
profile; what was seen, accepted and dismissed is kept behind
:class:`~prioris.alerts.protocols.AlertState`, which a service in :mod:`prioris.services`
implements over the library's tables. The package itself never touches storage, the
engines or ingest (an import-linter contract, pyproject.toml), so its ranking can be
measured on candidate files alone.
"""

from prioris.alerts.protocols import AlertState, Candidate, CandidateRanker, CandidateSource

__all__ = ["AlertState", "Candidate", "CandidateRanker", "CandidateSource"]
