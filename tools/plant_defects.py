"""Plant known defects one at a time in a copy of the project and check a test goes red.

Each defect below once left the whole suite green (issue 15). For each one this script
copies ``src/`` and ``tests/`` to a temporary folder, applies the defect as an exact text
replacement (which must match the expected number of times, so a refactor that moves the
code makes the script fail loudly instead of planting nothing), runs the named tests
against the copy and expects at least one failure. The unmodified copy must pass first.

    .venv/bin/python tools/plant_defects.py            # every defect
    .venv/bin/python tools/plant_defects.py alias      # defects whose name contains "alias"
    .venv/bin/python tools/plant_defects.py --list     # every defect's name and file

Each line of the output is ``caught`` (with the first failing test), ``SURVIVED`` (the
tests passed with the defect in place) or ``CANNOT PLANT`` (the text to replace is no
longer there: the code moved, so the defect must be planted where it now lives); the last
line counts the defects caught. Exit status 0 when every chosen defect was caught.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Defect:
    name: str
    file: str
    old: str
    new: str
    tests: tuple[str, ...]
    count: int = 1
    more: tuple[tuple[str, str, int], ...] = ()  # further (old, new, count) in the same file

    def edits(self) -> list[tuple[str, str, int]]:
        return [(self.old, self.new, self.count), *self.more]


HYBRID = ("tests/search/test_hybrid_weights.py",)
ATOMIC = ("tests/ingest/test_atomic_write.py",)
FETCH = ("tests/test_fetch.py",)

DEFECTS = [
    Defect(
        "hybrid: fts and vector weights swapped",
        "src/prioris/search/service.py",
        'weights = {"fts": self.config.fts_weight, "vector": self.config.vector_weight}',
        'weights = {"fts": self.config.vector_weight, "vector": self.config.fts_weight}',
        HYBRID,
    ),
    Defect(
        "hybrid: vector weight 0",
        "src/prioris/search/service.py",
        '"vector": self.config.vector_weight}',
        '"vector": 0.0}',
        HYBRID,
    ),
    Defect(
        "hybrid: always RRF",
        "src/prioris/search/service.py",
        'if self.config.method == "weighted":',
        "if False:",
        HYBRID,
    ),
    Defect(
        "hybrid: default weights changed in settings",
        "src/prioris/config/search.py",
        '"0.5,0.5" if method == "rrf" else "0.6,0.4"',
        '"0.5,0.5"',
        HYBRID,
    ),
    Defect(
        "write: a document split into two transactions",
        "src/prioris/ingest/write.py",
        "document_store.add_document(conn, item.document, item.content, now)\n",
        "document_store.add_document(conn, item.document, item.content, now)\n"
        '            conn.execute("COMMIT")\n'
        '            conn.execute("BEGIN IMMEDIATE")\n',
        ATOMIC,
    ),
    Defect(
        "write: no transaction at all (BEGIN, COMMIT, ROLLBACK removed)",
        "src/prioris/ingest/write.py",
        '\n        conn.execute("BEGIN IMMEDIATE")',
        "\n        pass",
        ATOMIC,
        more=(
            ('\n            conn.execute("COMMIT")', "\n            pass", 1),
            ('\n            conn.execute("ROLLBACK")', "\n            pass", 1),
        ),
    ),
    Defect(
        "doi: host allowlist check removed",
        "src/prioris/sources/doi.py",
        " or host not in ALLOWED_HOSTS:",
        ":",
        ("tests/sources/test_doi_resolver.py",),
    ),
    Defect(
        "alias: moves to another work (INSERT OR REPLACE)",
        "src/prioris/storage/works.py",
        '"WHERE NOT EXISTS (SELECT 1 FROM works WHERE id = ?) ON CONFLICT DO NOTHING"',
        '"WHERE NOT EXISTS (SELECT 1 FROM works WHERE id = ?) "\n'
        '        "ON CONFLICT(alias) DO UPDATE SET work_id = excluded.work_id"',
        ("tests/test_library.py",),
    ),
    Defect(
        "delete: stored PDF bytes left behind",
        "src/prioris/storage/works.py",
        '"DELETE FROM blobs WHERE sha256 = ? AND NOT EXISTS "',
        '"SELECT 1 FROM blobs WHERE sha256 = ? AND NOT EXISTS "',
        ("tests/test_library.py",),
    ),
    Defect(
        "filters: to_year keeps unknown years in vector search (vec0)",
        "src/prioris/search/protocols.py",
        '                bounds.append(f"NOT {unknown}")  # 0 is below every upper bound',
        "                pass",
        ("tests/search/test_search.py",),
    ),
    Defect(
        "filters: to_year keeps unknown years in vector search (in-memory copy)",
        "src/prioris/search/vector_snapshot.py",
        "dated = ~undated",
        "dated = self.years >= 0",
        ("tests/search/test_vector_cache.py",),
    ),
    Defect(
        "filters: ids filter returns nothing in keyword mode",
        "src/prioris/engines/sqlite/queries.py",
        'clauses.append(f"{alias}.{id_column} IN ({marks})")',
        'clauses.append(f"{alias}.{id_column} IN ({marks})" if alias == "v" else "0")',
        ("tests/search/test_search.py",),
    ),
    Defect(
        "full text: provider Markdown stored empty",
        "src/prioris/ingest/prepare.py",
        'markdown = full_text.markdown or full_text.content.decode("utf-8", errors="replace")',
        'markdown = ""',
        FETCH,
    ),
    Defect(
        "full text: Europe PMC XML stored without its Markdown",
        "src/prioris/sources/europepmc.py",
        "markdown=document.markdown)",
        'markdown="")',
        FETCH,
    ),
    Defect(
        "full text: arXiv HTML stored without its Markdown",
        "src/prioris/sources/arxiv.py",
        "            markdown=markdown,\n",
        '            markdown="",\n',
        FETCH,
    ),
    Defect(
        "full text: metadata-only work counted as full text (fetch skips it)",
        "src/prioris/services/fetching.py",
        '"SELECT 1 FROM works WHERE id = ? AND markdown_sha256 IS NOT NULL"',
        "\"SELECT 1 FROM works WHERE id = ? AND markdown != ''\"",
        FETCH,
    ),
    Defect(
        "full text: metadata-only work counted as full text (ingest keeps the abstract)",
        "src/prioris/ingest/write.py",
        '"SELECT markdown_sha256 FROM works WHERE id = ?"',
        '"SELECT markdown FROM works WHERE id = ?"',
        FETCH,
    ),
    Defect(
        "uploads: per-chunk size check moved after decoding",
        "src/prioris/ingest/uploads.py",
        """    estimated = base64_decoded_size(encoded.strip())
    if estimated > max_bytes + 2:  # padding makes the estimate up to 2 bytes high
        raise FileTooLargeError(
            f"{what} decodes to about {estimated} bytes, over the {max_bytes}-byte limit"
        )
    compact = "".join(encoded.split())
    try:
        data = base64.b64decode(compact, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise InvalidRequestError(f"{what} is not valid base64 ({exc})") from exc
""",
        """    compact = "".join(encoded.split())
    try:
        data = base64.b64decode(compact, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise InvalidRequestError(f"{what} is not valid base64 ({exc})") from exc
    estimated = base64_decoded_size(encoded.strip())
    if estimated > max_bytes + 2:  # padding makes the estimate up to 2 bytes high
        raise FileTooLargeError(
            f"{what} decodes to about {estimated} bytes, over the {max_bytes}-byte limit"
        )
""",
        ("tests/ingest/test_uploads.py",),
    ),
    # -- second round (issue 25): each weakness of the suite, planted where its test guards
    Defect(
        "second round: fake embedder ignores model_id",
        "src/prioris/embedding/fake.py",
        "        self._order = _bucket_order(model_id, dim)",
        "        self._order = None",
        ("tests/search/test_work_vectors.py",),
    ),
    Defect(
        "second round: PostgreSQL BM25 statistics never refreshed",
        "src/prioris/engines/postgres/search.py",
        "            stale = version != self._stats_version",
        "            stale = self._stats_version == -1",
        ("tests/storage/test_postgres_bm25.py",),
    ),
    Defect(
        "second round: migrate-to copies edits in reverse order",
        "src/prioris/storage/copy.py",
        "            [e[1:] for e in edits],",
        "            [e[1:] for e in reversed(edits)],",
        ("tests/storage/test_migrate_to.py",),
    ),
    Defect(
        "second round: migrate-to zeroes work vectors",
        "src/prioris/storage/copy.py",
        "        work_vector_store.insert_rows(dst, work_vectors)",
        "        work_vector_store.insert_rows(dst, [(r[0], r[1], bytes(len(r[2]))) "
        "for r in work_vectors])",
        ("tests/storage/test_migrate_to.py",),
    ),
    Defect(
        "second round: JSONL record without title or text accepted",
        "src/prioris/ingest/records.py",
        '    if not (record.title or "").strip() and not (record.text or record.abstract or "")'
        ".strip():",
        "    if False:",
        ("tests/fuzz/test_fuzz_jsonl.py",),
    ),
    Defect(
        "second round: MCP tool work on the event loop",
        "src/prioris/interfaces/mcp/runtime.py",
        "    return await anyio.to_thread.run_sync(functools.partial(fn, *args, **kwargs))",
        "    return functools.partial(fn, *args, **kwargs)()",
        ("tests/interfaces/test_mcp_library_tools.py::test_blocking_work_runs_off_the_event_loop",),
    ),
    Defect(
        "second round: PDF time limit waits for the page being OCRd",
        "src/prioris/ingest/pdf/reader.py",
        "raw = queue.take(index, timeout=deadline.remaining())",
        "raw = queue.take(index, timeout=None)",
        ("tests/ingest/test_pdf.py::test_time_limit_also_bounds_a_page_still_being_ocrd",),
    ),
    Defect(
        "second round: MCP alias cursor ignored",
        "src/prioris/interfaces/mcp/tools_remote.py",
        '        mark = one_of("cursor_mark", cursor_mark, "cursor", cursor) if given else "*"',
        '        mark = cursor_mark or "*"',
        ("tests/interfaces/test_mcp_names.py",),
    ),
    Defect(
        "second round: web upload bound only on Content-Length",
        "src/prioris/interfaces/web/security.py",
        "                received += len(chunk)\n                if received > limit:\n"
        "                    raise _too_large(limit, what)\n                handle.write(chunk)",
        "                received += len(chunk)\n                handle.write(chunk)",
        ("tests/interfaces/web/test_web_app.py",),
    ),
    Defect(
        "second round: enrich backoff past its budget",
        "src/prioris/sources/http.py",
        "slept + delay > self.backoff_budget",
        "slept > self.backoff_budget",
        ("tests/test_enrichment_failures.py",),
    ),
    Defect(
        "second round: enrich retries a 5xx",
        "src/prioris/sources/http.py",
        "            passing = self.retry_server_errors and status in RETRIED_SERVER_ERRORS",
        "            passing = status in RETRIED_SERVER_ERRORS",
        ("tests/test_enrichment_failures.py",),
    ),
    Defect(
        "second round: enrich exits 0 with unavailable works",
        "src/prioris/interfaces/cli/enrich_cmds.py",
        '    return EXIT_ITEM_FAILED if counts.get("unavailable") else EXIT_OK',
        "    return EXIT_OK",
        ("tests/test_enrichment_failures.py",),
    ),
    # the sidecar stores ids as gaps since (bm25_arrays.encode_ids): out of order wraps to
    # a gap past the end, a repeated id is a gap of 0; PostgreSQL's rows keep plain ids
    Defect(
        "second round: postings ids out of order trusted (a repeated id, a gap of 0)",
        "src/prioris/search/bm25_arrays.py",
        " or bool(np.any(gaps == 0)):",
        ":",
        ("tests/fuzz/test_fuzz_postings.py",),
    ),
    Defect(
        "second round: postings ids out of order trusted (plain ids, PostgreSQL's rows)",
        "src/prioris/search/bm25_arrays.py",
        "        or (not checked and len(ids) > 1 and bool(np.any(ids[1:] <= ids[:-1])))\n",
        "",
        ("tests/search/test_bm25_arrays.py",),
    ),
    Defect(
        "second round: postings row count not checked",
        "src/prioris/engines/sqlite/postings_snapshot.py",
        "            rows == library.rows\n",
        "            True\n",
        ("tests/fuzz/test_fuzz_postings.py",),
    ),
    Defect(
        "second round: postings tokenizer not checked",
        "src/prioris/engines/sqlite/postings_snapshot.py",
        '            str(meta["tokenizer"]) != library.tokenizer\n',
        "            False\n",
        ("tests/fuzz/test_fuzz_postings.py",),
    ),
    Defect(
        "second round: config.toml not UTF-8 is a traceback",
        "src/prioris/config_file.py",
        "    except UnicodeDecodeError as exc:",
        "    except KeyboardInterrupt as exc:",
        ("tests/fuzz/test_fuzz_config.py",),
    ),
    # -- third round (issue 40): the areas where planted defects went unnoticed, each with
    # the test written for it
    Defect(
        "third round: within a tier the fixed order beats the newest record",
        "src/prioris/provenance.py",
        "key=lambda o: (_tier(o), newest[dates[o]], order.get(o, 99), o)",
        "key=lambda o: (_tier(o), order.get(o, 99), newest[dates[o]], o)",
        ("tests/test_provenance_tiers.py",),
    ),
    Defect(
        "third round: an abstract edit leaves the work's vector dropped",
        "src/prioris/services/editing.py",
        "        if (before.title, before.abstract) == (after.title, after.abstract):",
        "        if before.title == after.title:",
        (
            "tests/test_editing.py::test_an_abstract_edit_alone_reembeds_the_work_and_undo_embeds_"
            "the_old_text",
        ),
    ),
    Defect(
        "third round: a file link resolved by its bare file name",
        "src/prioris/refman/filelinks.py",
        "    for size in range(len(parts), 1, -1):",
        "    for size in range(len(parts), 0, -1):",
        ("tests/refman/test_filelinks.py",),
    ),
    Defect(
        "third round: an empty label filter taken for none (the service's restriction)",
        "src/prioris/search/request.py",
        "work_ids=tuple(sorted(found)), collections=(), tags=())",
        "work_ids=tuple(sorted(found)) or None, collections=(), tags=())",
        ("tests/search/test_empty_label_filters.py",),
    ),
    Defect(
        "third round: an empty label filter taken for none (SQLite's SQL, FTS5 and vec0)",
        "src/prioris/engines/sqlite/queries.py",
        "    if filters.work_ids is not None:",
        "    if filters.work_ids:",
        ("tests/search/test_empty_label_filters.py",),
    ),
    Defect(
        "third round: an empty label filter taken for none (the exact vector copy)",
        "src/prioris/search/vector_snapshot.py",
        "        if filters.work_ids is not None:",
        "        if filters.work_ids:",
        ("tests/search/test_empty_label_filters.py",),
    ),
    Defect(
        "third round: an empty label filter taken for none (the compact vector copy)",
        "src/prioris/search/quantized.py",
        "        if keep is not None:",
        "        if keep is not None and keep.any():",
        ("tests/search/test_empty_label_filters.py",),
    ),
    Defect(
        "third round: an empty label filter taken for none (the postings sidecar)",
        "src/prioris/engines/sqlite/search.py",
        "        if filters == SearchFilters():",
        "        if not (filters.source or filters.has_years or filters.work_ids):",
        ("tests/search/test_empty_label_filters.py",),
    ),
    Defect(
        "third round: a dismissed snowball candidate back under another identifier",
        "src/prioris/services/snowball.py",
        "            if gone & set(cand.identities()):",
        "            if cand.key() in gone:",
        ("tests/test_snowball.py::test_a_dismissed_candidate_stays_away_under_another_identifier",),
    ),
    Defect(
        "third round: snowball links not capped at ten seeds",
        "src/prioris/discovery/snowball.py",
        "    cap = math.log1p(max(1, min(seeds, LINK_SEEDS_CAP)))",
        "    cap = math.log1p(max(1, seeds))",
        ("tests/discovery/test_snowball_rank.py",),
    ),
    Defect(
        "third round: snowball links past the seeds' cap above 1",
        "src/prioris/discovery/snowball.py",
        '        "links": min(1.0, math.log1p(links) / cap),',
        '        "links": math.log1p(links) / cap,',
        ("tests/discovery/test_snowball_rank.py",),
    ),
    Defect(
        "third round: snowball ties not given to the more linked",
        "src/prioris/discovery/snowball.py",
        "            -(len(c.cited_by_seeds) + len(c.cites_seeds)),\n",
        "",
        ("tests/discovery/test_snowball_rank.py",),
    ),
    Defect(
        "third round: roles: deleting a work allowed to a reader (MCP's table)",
        "src/prioris/interfaces/permissions.py",
        '    "research_delete_fetched": "writer",',
        '    "research_delete_fetched": "reader",',
        ("tests/test_security_doc.py",),
    ),
    Defect(
        "third round: roles: compacting the file allowed to a writer (the web's table)",
        "src/prioris/interfaces/permissions.py",
        '    "/api/compact": "admin",',
        '    "/api/compact": "writer",',
        ("tests/test_security_doc.py",),
    ),
    Defect(
        "third round: roles: the MCP server checks only admin tools",
        "src/prioris/interfaces/mcp/runtime.py",
        "        if not role_allows(account.role, needed):",
        '        if needed == "admin" and not role_allows(account.role, needed):',
        (
            "tests/interfaces/test_mcp_accounts.py::test_each_tool_refuses_the_role_below_the_docs_"
            "one_and_lets_that_role_call",
        ),
    ),
    Defect(
        "third round: roles: the web app checks only the routes of its table (GETs pass)",
        "src/prioris/interfaces/web/accounts_web.py",
        "        if not role_allows(account.role, needed):",
        '        if method == "POST" and not role_allows(account.role, needed):',
        (
            "tests/interfaces/web/test_web_accounts.py::test_each_route_refuses_the_role_below_the_"
            "docs_one_and_lets_that_role_in[sqlite]",
        ),
    ),
    Defect(
        "third round: k-means lists: centres never moved by the rounds",
        "src/prioris/search/quantized.py",
        "            centres[ids[starts]] = sums / counts[:, None]",
        "            pass",
        ("tests/search/test_quantized_recall.py",),
    ),
    Defect(
        "third round: k-means lists: the farthest lists probed",
        "src/prioris/search/quantized.py",
        "        distance = self.centre_norms - 2 * (self.centres @ centred)",
        "        distance = self.centre_norms + 2 * (self.centres @ centred)",
        ("tests/search/test_quantized_recall.py",),
    ),
    Defect(
        "third round: k-means lists: codes not copied in list order",
        "src/prioris/search/quantized.py",
        "            codes=np.ascontiguousarray(self.codes[:, :n][:, order]),",
        "            codes=np.ascontiguousarray(self.codes[:, :n]),",
        ("tests/search/test_quantized_recall.py",),
    ),
    Defect(
        "third round: k-means lists: too few lists probed",
        "src/prioris/search/quantized.py",
        "        probes = max(MIN_PROBES, int(np.ceil(lists * PROBE_SHARE)))",
        "        probes = max(2, int(np.ceil(lists * PROBE_SHARE / 4)))",
        ("tests/search/test_quantized_recall.py",),
    ),
    Defect(
        "third round: rescoring pool: only the k hits rescored",
        "src/prioris/search/vector_copy.py",
        "            rescored = max(RESCORE_MIN, min(RESCORE_MAX, k + 10))",
        "            rescored = k",
        ("tests/search/test_rescore_depth.py",),
    ),
    Defect(
        "third round: rescoring pool: the int8 pass asked for k rows only",
        "src/prioris/search/vector_copy.py",
        "snapshot.nearest(query, filters, max(k, rescored))",
        "snapshot.nearest(query, filters, k)",
        ("tests/search/test_rescore_depth.py",),
    ),
    Defect(
        "third round: rescoring pool: the ceiling raised",
        "src/prioris/search/vector_copy.py",
        "RESCORE_MAX = 32\n",
        "RESCORE_MAX = 64\n",
        ("tests/search/test_rescore_depth.py",),
    ),
    Defect(
        "third round: affiliations: organisation words not checked in a name",
        "src/prioris/ingest/header/names.py",
        "    if any(len(w) > 1 and w in _NOT_NAME_WORDS for w in words):",
        '    if any(len(w) > 1 and w in {"abstract", "email"} for w in words):',
        ("tests/ingest/test_affiliations_not_authors.py",),
    ),
    Defect(
        "third round: affiliations: a clinic taken for a person",
        "src/prioris/ingest/header/name_words.py",
        '    "clinic",\n',
        "",
        ("tests/ingest/test_affiliations_not_authors.py",),
    ),
    Defect(
        "third round: affiliations: the affiliation after the names counted against the byline",
        "src/prioris/ingest/header/names.py",
        "            pieces = [p for p in pieces[:last] if not _is_affiliation(p)]",
        "            pass",
        ("tests/ingest/test_affiliations_not_authors.py",),
    ),
    Defect(
        "third round: enrichment: OpenAlex's error skips Europe PMC",
        "src/prioris/sources/enrich.py",
        "get_work(doi.value))\n            if found.work is not None:",
        "get_work(doi.value))\n"
        '            if found.work is not None or found.status == "unavailable":',
        (
            "tests/test_enrichment.py::test_one_providers_error_ends_neither_that_works_lookup_"
            "nor_the_run",
        ),
    ),
    Defect(
        "third round: enrichment: a server error marks the provider out of reach",
        "src/prioris/sources/enrich.py",
        "        if isinstance(exc, ProviderUnavailableError) and isinstance(cause, httpx.Transport"
        "Error):",
        "        if isinstance(exc, ProviderUnavailableError):",
        (
            "tests/test_enrichment.py::test_one_providers_error_ends_neither_that_works_lookup_"
            "nor_the_run",
        ),
    ),
    Defect(
        "third round: enrichment: a provider's error raised out of the run",
        "src/prioris/sources/enrich.py",
        "        except PriorisError as exc:  # offline, rate limited",
        "        except NotFoundError as exc:  # offline, rate limited",
        (
            "tests/test_enrichment.py::test_one_providers_error_ends_neither_that_works_lookup_"
            "nor_the_run",
        ),
    ),
    # -- the modules new this round: one planted defect each
    Defect(
        "new module: evidence sentences end at an initial",
        "src/prioris/search/evidence/sentences.py",
        '        if len(token) == 1 and token.isupper():  # an initial: "J. Smith"\n'
        "            return False\n",
        "",
        ("tests/search/test_sentences.py",),
    ),
    Defect(
        "new module: the router's shard of 42 is not that of '42'",
        "src/prioris/engines/router.py",
        'digest = hashlib.sha256(str(work_id).encode("utf-8")).digest()',
        'digest = hashlib.sha256(repr(work_id).encode("utf-8")).digest()',
        ("tests/storage/test_router.py",),
    ),
    Defect(
        "new module: the in-process task runner holds an interrupt as an outcome",
        "src/prioris/ingest/tasks.py",
        "            except Exception as exc:",
        "            except BaseException as exc:  # noqa: BLE001",
        ("tests/ingest/test_task_runner.py",),
    ),
    Defect(
        "new module: the alerts' state protocol stops asking for the dismissed",
        "src/prioris/alerts/protocols.py",
        "    def dismissed(self, alert: str) -> set[str]: ...\n\n",
        "",
        ("tests/test_alerts_room.py",),
    ),
]


def _copy(target: Path) -> None:
    for name in ("src", "tests"):
        shutil.copytree(ROOT / name, target / name, ignore=shutil.ignore_patterns("__pycache__"))
    (target / "pyproject.toml").symlink_to(ROOT / "pyproject.toml")  # migrations ship in src
    (target / "docs").symlink_to(ROOT / "docs")  # read by the tests that hold docs to the code


PYTEST = (sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider")


def _run(copy: Path, tests: tuple[str, ...]) -> subprocess.CompletedProcess[str]:
    shared = os.environ.get("PRIORIS_TEST_SHARED") or str(ROOT.parent / "shared")
    env = {**os.environ, "PYTHONPATH": str(copy / "src"), "PRIORIS_TEST_SHARED": shared}
    return subprocess.run(
        [*PYTEST, f"--basetemp={copy / 'pytest-tmp'}", *tests],
        cwd=copy,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def _failed_test(output: str) -> str:
    for line in output.splitlines():
        if line.startswith(("FAILED ", "ERROR ")):
            return line.split(" - ")[0]
    return "(no FAILED line)"


def main(argv: list[str]) -> int:
    if {"-h", "--help"} & set(argv):
        print(__doc__)
        return 0
    if "--list" in argv:
        for defect in DEFECTS:
            print(f"{defect.name}  [{defect.file}]")
        return 0
    chosen = [d for d in DEFECTS if not argv or any(a.lower() in d.name.lower() for a in argv)]
    if not chosen:  # an empty choice would run the whole suite as its "baseline"
        print(f"no defect's name contains any of {argv}; --list shows them")
        return 2
    with tempfile.TemporaryDirectory(prefix="prioris-defects-") as tmp:
        baseline = Path(tmp) / "baseline"
        _copy(baseline)
        tests = tuple(dict.fromkeys(t for d in chosen for t in d.tests))
        result = _run(baseline, tests)
        if result.returncode != 0:
            print(result.stdout[-3000:])
            print("the unmodified code fails these tests; fix that first")
            return 2
        survivors = 0
        for number, defect in enumerate(chosen):
            copy = Path(tmp) / f"defect{number}"
            _copy(copy)
            path = copy / defect.file
            text = path.read_text(encoding="utf-8")
            wrong = [(old, n) for old, _, n in defect.edits() if text.count(old) != n]
            if wrong:
                print(f"CANNOT PLANT  {defect.name}: {wrong[0][0]!r} is not {wrong[0][1]}x there")
                survivors += 1
                continue
            for old, new, _ in defect.edits():
                text = text.replace(old, new)
            path.write_text(text, encoding="utf-8")
            result = _run(copy, defect.tests)
            if result.returncode == 0:
                print(f"SURVIVED      {defect.name}")
                survivors += 1
            else:
                print(
                    f"caught        {defect.name}\n              by {_failed_test(result.stdout)}"
                )
            shutil.rmtree(copy)
    print(f"{len(chosen) - survivors} of {len(chosen)} planted defects caught")
    return 1 if survivors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
