"""PriorisMCP 0.1.1's local-file tools: one-call and chunked uploads, reading them back.

Contract: ``research_localfile_fetch_full_text`` and ``_finalize_upload`` return
``{id, location, format: pdf, size_bytes, served_from_storage, resource_uri}``; the same
bytes get the same ``id``; non-PDF bytes are ``invalid_request``; files of 10 MiB are
accepted; 16 upload sessions may be open at once; chunks arrive strictly 0, 1, 2 ...
(``{received_index, bytes_so_far}``); unknown sessions are ``not_found``; a finalize
always ends its session; ``research_localfile_parse_full_text`` pages through the text.
"""

from __future__ import annotations

import base64
import os
from pathlib import Path

import pymupdf
import pytest

from contract.conftest import Mcp

from pdf_factory import make_text_pdf

MIB = 1024 * 1024


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


@pytest.fixture(scope="module")
def bilby(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    path = tmp_path_factory.mktemp("pdf") / "bilby.pdf"
    return make_text_pdf(
        path,
        "Bilby ears",
        ["Bilbies have long ears that shed heat.", "Bilby burrows spiral down a metre."],
    ).read_bytes()


def big_pdf(path: Path, size: int) -> bytes:
    """A real PDF of about ``size`` bytes: one text page and an incompressible attachment."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 72), "Cassowary casque acoustics, a large report.")
    doc.embfile_add("data.bin", os.urandom(size - 4096))
    doc.save(path)
    doc.close()
    return path.read_bytes()


def test_fetch_full_text_stores_a_pdf_under_a_stable_id(mcp: Mcp, bilby: bytes) -> None:
    stored = mcp.call(
        "research_localfile_fetch_full_text", {"content_base64": b64(bilby), "filename": "b.pdf"}
    )
    assert stored["format"] == "pdf" and stored["size_bytes"] == len(bilby)
    assert stored["resource_uri"] == f"research://localfile/{stored['id']}/pdf/fulltext"
    assert isinstance(stored["location"], str) and stored["location"]
    again = mcp.call("research_localfile_fetch_full_text", {"content_base64": b64(bilby)})
    assert again["id"] == stored["id"] and again["served_from_storage"] is True


def test_fetch_full_text_refuses_what_is_not_a_pdf(mcp: Mcp) -> None:
    text = mcp.fails(
        "research_localfile_fetch_full_text",
        {"content_base64": b64(b"GIF89a, an image" * 20), "filename": "x.pdf"},
        "invalid_request",
    )
    assert "PDF" in text
    mcp.fails("research_localfile_fetch_full_text", {"content_base64": "%%%"}, "invalid_request")


def test_parse_full_text_by_the_returned_id(mcp: Mcp, bilby: bytes) -> None:
    stored = mcp.call("research_localfile_fetch_full_text", {"content_base64": b64(bilby)})
    page = mcp.call("research_localfile_parse_full_text", {"id": stored["id"]})
    assert "long ears" in page["markdown"] and "spiral" in page["markdown"]
    assert page["limit"] == 20000 and page["offset"] == 0 and page["has_more"] is False
    assert page["total_pages"] == 2 and page["page_range"] == [1, 2]
    assert page["resource_uri"] == f"research://localfile/{stored['id']}/pdf/markdown"
    second = mcp.call("research_localfile_parse_full_text", {"id": stored["id"], "page": 2})
    assert "spiral" in second["markdown"] and second["page_range"] == [2, 2]
    mcp.fails("research_localfile_parse_full_text", {"id": "19990101-0000-zzzz"}, "not_found")


def test_chunked_upload_of_a_ten_mib_pdf(mcp: Mcp, tmp_path: Path) -> None:
    pdf = big_pdf(tmp_path / "big.pdf", 10 * MIB)
    begun = mcp.call("research_localfile_begin_upload", {"filename": "big.pdf"})
    session, chunk = begun["session_id"], begun["max_chunk_bytes"]
    assert isinstance(session, str) and chunk >= MIB
    pieces = [pdf[i : i + MIB] for i in range(0, len(pdf), MIB)]
    for index, piece in enumerate(pieces):
        got = mcp.call(
            "research_localfile_upload_chunk",
            {"session_id": session, "index": index, "chunk_base64": b64(piece)},
        )
        assert got["received_index"] == index
        assert got["bytes_so_far"] == sum(len(p) for p in pieces[: index + 1])
    stored = mcp.call("research_localfile_finalize_upload", {"session_id": session})
    assert stored["format"] == "pdf" and stored["size_bytes"] == len(pdf)
    assert stored["served_from_storage"] is False
    assert stored["resource_uri"] == f"research://localfile/{stored['id']}/pdf/fulltext"
    page = mcp.call("research_localfile_parse_full_text", {"id": stored["id"]})
    assert "Cassowary" in page["markdown"]
    mcp.fails("research_localfile_finalize_upload", {"session_id": session}, "not_found")


def test_chunks_must_arrive_in_order(mcp: Mcp, bilby: bytes) -> None:
    session = mcp.call("research_localfile_begin_upload", {})["session_id"]
    chunk = {"session_id": session, "chunk_base64": b64(bilby[:100])}
    mcp.fails("research_localfile_upload_chunk", {**chunk, "index": 1}, "invalid_request")
    mcp.call("research_localfile_upload_chunk", {**chunk, "index": 0})
    mcp.fails("research_localfile_upload_chunk", {**chunk, "index": 0}, "invalid_request")
    mcp.fails(
        "research_localfile_upload_chunk",
        {"session_id": session, "index": 1, "chunk_base64": "%%%"},
        "invalid_request",
    )
    mcp.call(
        "research_localfile_upload_chunk",
        {"session_id": session, "index": 1, "chunk_base64": b64(bilby[100:])},
    )
    stored = mcp.call("research_localfile_finalize_upload", {"session_id": session})
    whole = mcp.call("research_localfile_fetch_full_text", {"content_base64": b64(bilby)})
    assert stored["id"] == whole["id"]  # same bytes, same id, whichever way they came


def test_unknown_sessions_and_failed_finalizes(mcp: Mcp) -> None:
    chunk = {"session_id": "nosuchsession", "index": 0, "chunk_base64": b64(b"%PDF-")}
    mcp.fails("research_localfile_upload_chunk", chunk, "not_found")
    mcp.fails("research_localfile_finalize_upload", {"session_id": "nosuchsession"}, "not_found")
    empty = mcp.call("research_localfile_begin_upload", {})["session_id"]
    mcp.fails("research_localfile_finalize_upload", {"session_id": empty}, "invalid_request")
    mcp.fails("research_localfile_finalize_upload", {"session_id": empty}, "not_found")  # ended
    image = mcp.call("research_localfile_begin_upload", {})["session_id"]
    mcp.call(
        "research_localfile_upload_chunk",
        {"session_id": image, "index": 0, "chunk_base64": b64(b"GIF89a" * 100)},
    )
    mcp.fails("research_localfile_finalize_upload", {"session_id": image}, "invalid_request")
    mcp.fails("research_localfile_finalize_upload", {"session_id": image}, "not_found")


def test_a_chunk_over_the_chunk_limit_is_file_too_large(mcp: Mcp) -> None:
    begun = mcp.call("research_localfile_begin_upload", {})
    too_big = b"%PDF-" + b"x" * begun["max_chunk_bytes"]
    mcp.fails(
        "research_localfile_upload_chunk",
        {"session_id": begun["session_id"], "index": 0, "chunk_base64": b64(too_big)},
        "file_too_large",
    )
    mcp.raw("research_localfile_finalize_upload", {"session_id": begun["session_id"]})


def test_sixteen_upload_sessions_at_once(mcp: Mcp) -> None:
    sessions = [mcp.call("research_localfile_begin_upload", {})["session_id"] for _ in range(16)]
    assert len(set(sessions)) == 16
    for session in sessions:  # finalizing an empty session fails, and ends it
        mcp.fails("research_localfile_finalize_upload", {"session_id": session}, "invalid_request")
