"""MCP tools ``research_evidence`` and ``research_cite_check``: sentences to quote for a
claim, and a check that a work supports the sentence an agent is about to cite it for.

Offline and read-only: one search of the library and one small batch of sentence
embeddings (:mod:`prioris.search.evidence`); no language model inside Prioris.
"""

from __future__ import annotations

from typing import Annotated, Any

from mcp.types import ToolAnnotations
from pydantic import BaseModel, ConfigDict, Field

from prioris.interfaces.mcp.runtime import PriorisMCPServer, ServerState, blocking, prioris_tool

Text = Annotated[str, Field(min_length=1, max_length=4096)]


class EvidenceItemOut(BaseModel):
    """One quotable sentence."""

    model_config = ConfigDict(extra="ignore")
    work_id: str = Field(description="the work it is in (pass to research_cite or a parse tool)")
    citekey: str | None = Field(description="the work's citation key, as export writes it")
    title: str
    year: int | None
    page: int | None = Field(description="the PDF page it is printed on (null: no pages)")
    page_end: int | None = Field(description="the last page when it runs over a page break")
    section: str | None = Field(description="the part of the paper: abstract, body, ...")
    sentence: str = Field(description="verbatim text of the stored work")
    start: int = Field(description="character offset of the sentence in the work's Markdown")
    end: int = Field(description="offset just past its last character")
    context: str = Field(description="the sentence with its neighbours, verbatim")
    score: float = Field(description="fused evidence score (higher is better)")
    fts_rank: int | None = Field(description="rank by BM25 among the sentences (null: no word)")
    vector_rank: int = Field(description="rank by embedding similarity among the sentences")
    also: list[dict[str, Any]] = Field(
        default=[], description="other works stating the same: {work_id, start, end, page}"
    )


class EvidenceOut(BaseModel):
    """The best sentences for one claim."""

    model_config = ConfigDict(extra="ignore")
    query: str
    evidence: list[EvidenceItemOut]


class CiteCheckOut(BaseModel):
    """Whether a work supports a sentence, with its best sentence for it."""

    model_config = ConfigDict(extra="ignore")
    work_id: str
    citekey: str | None
    title: str | None = None
    found: bool = Field(description="false: nothing in the work supports the sentence")
    similarity: float | None = Field(description="embedding cosine of the best sentence")
    coverage: float | None = Field(description="share of the claim's words the sentence holds")
    sentence: str | None = Field(description="the work's best sentence for the claim")
    start: int | None
    end: int | None
    page: int | None
    page_end: int | None = None
    context: str | None
    score: float | None


def register_evidence_tools(server: PriorisMCPServer, state: ServerState) -> None:
    """Add ``research_evidence`` and ``research_cite_check`` to ``server``."""

    async def evidence(
        claim: Annotated[Text, Field(description="a claim or a question")],
        k: Annotated[int, Field(ge=1, le=50, description="sentences (default 5)")] = 5,
        from_year: Annotated[int | None, Field(description="only works of this year on")] = None,
        to_year: Annotated[int | None, Field(description="only works up to this year")] = None,
        ids: Annotated[
            list[str] | None, Field(max_length=1000, description="only these works")
        ] = None,
        collection: Annotated[
            list[str] | None, Field(max_length=100, description="only works in these")
        ] = None,
        tag: Annotated[
            list[str] | None, Field(max_length=100, description="only works with all of these")
        ] = None,
        back_matter: Annotated[
            bool, Field(description="also quote references, acknowledgements, funding")
        ] = False,
    ) -> EvidenceOut:
        """The sentences of the library's works that best state (or contradict) a claim,
        each verbatim with its work, citekey, PDF page, character offsets and context, and
        its rank by words and by meaning. Quote `sentence` as it is; read on with a parse
        tool at `start`. Near-identical sentences of several works come once, the others
        in `also`. Offline; nothing is fetched."""
        found = await blocking(
            lambda: state.library().evidence(
                claim,
                k=k,
                from_year=from_year,
                to_year=to_year,
                ids=ids,
                collections=collection,
                tags=tag,
                back_matter=back_matter,
            )
        )
        return EvidenceOut.model_validate(found)

    async def cite_check(
        claim: Annotated[Text, Field(description="the sentence the work is cited for")],
        work: Annotated[
            str,
            Field(min_length=1, max_length=1000, description="work id, DOI, arXiv id or citekey"),
        ],
    ) -> CiteCheckOut:
        """Check a citation before writing it: does this stored work support the sentence?
        `found` false means nothing in the work does (cite another work or rewrite); the
        work's best sentence for it comes with its page and offsets either way. Run it
        over a draft's citations before a human reads it. Unknown work: not_found."""
        result = await blocking(lambda: state.library().cite_check(claim, work))
        return CiteCheckOut.model_validate(result)

    read_only = ToolAnnotations(read_only_hint=True, open_world_hint=False)
    server.tool(name="research_evidence", annotations=read_only)(prioris_tool(evidence))
    server.tool(name="research_cite_check", annotations=read_only)(prioris_tool(cite_check))
