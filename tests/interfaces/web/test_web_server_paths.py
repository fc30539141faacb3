"""The web app in accounts mode reads only what its user may give it (issue 40): a path
in a request names nothing of the server's disk except under the folders an admin lists
(``PRIORIS_MCP_ALLOWED_IMPORT_DIRS``); a missing path and a refused one get the same
answer; links (a symlink in a folder, a .bib entry's file) never lead out of those
folders. Loopback use without accounts keeps reading the computer's own paths."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from interfaces.web.web_helpers import make_library
from prioris.interfaces.web import build_app
from prioris.library import Library

from pdf_factory import make_text_pdf

BASE = "http://127.0.0.1:8765"
CSRF = {"X-CSRF-Token": "t", "Origin": BASE}
ROUTES = {"/api/folder": "folder", "/api/references": "file", "/api/zotero-sync": "folder"}


@pytest.fixture
def disk(tmp_path: Path) -> dict[str, Path]:
    """An allowed folder (a PDF, a .bib linking one PDF inside and one outside, a symlink
    to a PDF outside) and a folder outside it with a PDF and a .bib of its own."""
    allowed, secret = tmp_path / "lab-share", tmp_path / "home-of-someone"
    make_text_pdf(allowed / "papers" / "ibis.pdf", "Ibis", ["Ibises probe mud with care."])
    make_text_pdf(secret / "private.pdf", "Private", ["A private manuscript on storks."])
    (secret / "mine.bib").write_text("@article{x, title={Secret}, year={2001}}\n")
    (allowed / "papers" / "link.pdf").symlink_to(secret / "private.pdf")
    (allowed / "refs.bib").write_text(
        "@article{ibis2001, title={Ibis feeding}, year={2001}, file={:papers/ibis.pdf:PDF}}\n"
        f"@article{{stork2003, title={{Stork secrets}}, year={{2003}},"
        f" file={{:{secret / 'private.pdf'}:PDF}}}}\n"
    )
    return {"allowed": allowed, "secret": secret, "root": tmp_path}


def _site(data_dir: Path, disk: dict[str, Path], accounts: bool) -> tuple[Library, Any, str]:
    library = make_library(data_dir, {"PRIORIS_MCP_ALLOWED_IMPORT_DIRS": str(disk["allowed"])})
    token = library.add_account("writer1", "writer")
    app = build_app(library, csrf_token="t", accounts=accounts)
    return library, app, token


@pytest.fixture
def lab(data_dir: Path, disk: dict[str, Path]) -> Iterator[tuple[Library, TestClient]]:
    library, app, token = _site(data_dir, disk, accounts=True)
    client = TestClient(app, base_url=BASE)
    assert client.post("/login", json={"token": token}, headers=CSRF).status_code == 200
    yield library, client
    app.state.web.jobs.close()
    library.close()


def _wait(client: TestClient, job: dict[str, Any]) -> dict[str, Any]:
    deadline = time.monotonic() + 120
    while job["active"]:
        assert time.monotonic() < deadline, job
        time.sleep(0.05)
        job = client.get(f"/api/jobs/{job['id']}").json()["job"]
    return job


def _refused(client: TestClient, route: str, path: str) -> str:
    response = client.post(route, json={"path": path}, headers=CSRF)
    assert response.status_code == 404, (route, path, response.text)
    error = response.json()["error"]
    assert error["code"] == "not_found"
    return str(error["message"]).replace(repr(path), "PATH")


def test_no_path_outside_the_allowed_folders_and_one_answer_for_missing_and_refused(
    lab: tuple[Library, TestClient], disk: dict[str, Path]
) -> None:
    library, client = lab
    secret, allowed = disk["secret"], disk["allowed"]
    for route, kind in ROUTES.items():
        existing = str(secret / "mine.bib") if kind == "file" else str(secret)
        answers = {
            _refused(client, route, path)
            for path in (
                existing,  # exists, outside
                str(disk["root"] / "no-such-thing"),  # missing, outside
                str(allowed / "no-such-thing"),  # missing, inside
                str(allowed / ".." / secret.name),  # .. out of the allowed folder
                "~",  # the server user's home: not a path a remote person names
                "lab-share",  # relative to the server's working folder
                "/etc" if kind == "folder" else "/etc/passwd",
            )
        }
        assert len(answers) == 1, answers  # the same words whatever the disk holds
        assert str(allowed) in answers.pop()  # and they say where imports may come from
    assert library.status()["works"] == 0


def test_a_symlink_out_of_an_allowed_folder_is_refused(
    lab: tuple[Library, TestClient], disk: dict[str, Path]
) -> None:
    _, client = lab
    (disk["allowed"] / "escape").symlink_to(disk["secret"], target_is_directory=True)
    same = _refused(client, "/api/folder", str(disk["allowed"] / "escape"))
    assert same == _refused(client, "/api/folder", str(disk["allowed"] / "absent"))


def test_an_allowed_folder_is_ingested_without_the_files_that_link_out(
    lab: tuple[Library, TestClient], disk: dict[str, Path]
) -> None:
    library, client = lab
    response = client.post(
        "/api/folder", json={"path": str(disk["allowed"] / "papers")}, headers=CSRF
    )
    assert response.status_code == 202, response.text
    job = _wait(client, response.json()["job"])
    assert "1 ingested" in job["message"] and "1 not read" in job["message"], job
    failed = [item for item in job["items"] if item["state"] == "failed"]
    assert [Path(item["name"]).name for item in failed] == ["link.pdf"]
    assert [w["title"] for w in library.list_works()] == ["Ibis"]


def test_a_bib_in_an_allowed_folder_brings_only_the_pdfs_inside(
    lab: tuple[Library, TestClient], disk: dict[str, Path]
) -> None:
    library, client = lab
    response = client.post(
        "/api/references", json={"path": str(disk["allowed"] / "refs.bib")}, headers=CSRF
    )
    assert response.status_code == 202, response.text
    job = _wait(client, response.json()["job"])
    assert "2 added" in job["message"] and "1 file(s) could not be read" in job["message"], job
    assert library.conn.execute("SELECT count(*) FROM documents").fetchone()[0] == 1
    stork = library.get_work("bibtex:stork2003")
    assert stork is not None and stork.title == "Stork secrets"  # its metadata only
    text = library.show(stork.id).get("markdown") or ""
    assert "private manuscript" not in text


def test_the_add_page_names_the_allowed_folders_and_not_the_servers_zotero(
    lab: tuple[Library, TestClient], disk: dict[str, Path]
) -> None:
    library, client = lab
    page = client.get("/add").text
    assert 'id="server-folders"' in page and str(disk["allowed"]) in page
    assert str(library.zotero_dir()) not in page


def test_loopback_without_accounts_still_reads_the_computers_paths(
    data_dir: Path, disk: dict[str, Path]
) -> None:
    library, app, _ = _site(data_dir, disk, accounts=False)
    try:
        client = TestClient(app, base_url=BASE)
        response = client.post("/api/folder", json={"path": str(disk["secret"])}, headers=CSRF)
        assert response.status_code == 202, response.text
        job = _wait(client, response.json()["job"])
        assert "1 ingested" in job["message"], job
        assert 'id="server-folders"' not in client.get("/add").text
    finally:
        app.state.web.jobs.close()
        library.close()
