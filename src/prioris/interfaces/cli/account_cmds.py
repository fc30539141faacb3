"""``prioris users add|list|revoke``, ``prioris users feed-token add|list|revoke`` and
``prioris audit``: accounts of a shared library, and the tokens their feed readers use.

Once a library has an account, ``prioris ui --allow-remote`` and ``prioris serve
--transport http --allow-remote`` ask every request for one (see docs/security.md,
"Accounts and roles"). These commands run locally, against the library file or database
itself: whoever can run them already holds the data.
"""

from __future__ import annotations

import argparse
from typing import Any

from prioris.interfaces.cli.context import EXIT_OK, CliContext, add_json_flag
from prioris.storage.accounts import ROLES


def register(sub: Any) -> None:
    """Add ``users`` (with ``add``, ``list``, ``revoke``) and ``audit``."""
    users = sub.add_parser("users", help="accounts and roles of a shared library")
    actions = users.add_subparsers(dest="users_action", required=True, metavar="ACTION")
    add = actions.add_parser("add", help="create an account; prints its token once")
    add.add_argument("name", metavar="NAME", help="the account's name (letters, digits, . _ -)")
    add.add_argument(
        "--role",
        choices=ROLES,
        required=True,
        help="reader, writer or admin (no default: the role is always said)",
    )
    add.set_defaults(func=cmd_add)
    listing = actions.add_parser("list", help="the accounts, their roles, revoked or not")
    add_json_flag(listing)
    listing.set_defaults(func=cmd_list)
    revoke = actions.add_parser("revoke", help="revoke an account: its token stops working")
    revoke.add_argument("name", metavar="NAME", help="the account to revoke")
    revoke.set_defaults(func=cmd_revoke)
    _register_feed_tokens(actions)
    audit = sub.add_parser("audit", help="the audit log of writes made through accounts")
    audit.add_argument("--limit", type=int, default=50, help="entries to show (default 50)")
    audit.add_argument(
        "--offset", type=int, default=0, help="entries to skip, newest first (default 0)"
    )
    add_json_flag(audit)
    audit.set_defaults(func=cmd_audit)


def _register_feed_tokens(actions: Any) -> None:
    """``users feed-token add|list|revoke``: an account's tokens for its alert feeds."""
    tokens = actions.add_parser(
        "feed-token",
        help="tokens a feed reader puts in an alert feed's URL (/alerts/NAME.atom?token=...)",
    )
    verbs = tokens.add_subparsers(dest="feed_token_action", required=True, metavar="ACTION")
    add = verbs.add_parser("add", help="a new feed token of an account; printed once")
    add.add_argument("name", metavar="NAME", help="the account it reads as")
    add.add_argument(
        "--label", default="", help="what it is for, e.g. the feed reader's name (default: none)"
    )
    add.set_defaults(func=cmd_feed_token_add)
    listing = verbs.add_parser("list", help="feed tokens, their accounts, revoked or not")
    listing.add_argument("--user", metavar="NAME", help="only this account's (default: all)")
    add_json_flag(listing)
    listing.set_defaults(func=cmd_feed_token_list)
    revoke = verbs.add_parser("revoke", help="revoke a feed token: its feeds answer 401")
    revoke.add_argument("token_id", metavar="TOKEN_ID", help="the token's id (feed_...)")
    revoke.set_defaults(func=cmd_feed_token_revoke)


def cmd_feed_token_add(args: argparse.Namespace, ctx: CliContext) -> int:
    made = ctx.library().add_feed_token(args.name, args.label)
    ctx.print_line(made["token"])
    ctx.log(
        f"feed token {made['token_id']} of {args.name!r} created. It is shown only now: put "
        "it in the feed URL, /alerts/NAME.atom?token=TOKEN (only its hash is kept)."
    )
    return EXIT_OK


def cmd_feed_token_list(args: argparse.Namespace, ctx: CliContext) -> int:
    tokens = ctx.library().feed_tokens(args.user)
    if args.json:
        ctx.print_json({"feed_tokens": tokens, "count": len(tokens)})
        return EXIT_OK
    for t in tokens:
        state = f"revoked {t['revoked_at']}" if t["revoked_at"] else "active"
        label = f"\t{t['label']}" if t["label"] else ""
        ctx.print_line(
            f"{t['token_id']}\t{t['account']}\tcreated {t['created_at']}\t{state}{label}"
        )
    if not tokens:
        ctx.log("no feed tokens")
    return EXIT_OK


def cmd_feed_token_revoke(args: argparse.Namespace, ctx: CliContext) -> int:
    row = ctx.library().revoke_feed_token(args.token_id)
    ctx.log(f"feed token {row['token_id']} of {row['account']!r} revoked at {row['revoked_at']}")
    return EXIT_OK


def cmd_add(args: argparse.Namespace, ctx: CliContext) -> int:
    token = ctx.library().add_account(args.name, args.role)
    ctx.print_line(token)
    ctx.log(
        f"account {args.name!r} ({args.role}) created. This token is shown only now: store it "
        "(only its hash is kept). Remote requests then need an account "
        "(see docs/security.md)."
    )
    return EXIT_OK


def cmd_list(args: argparse.Namespace, ctx: CliContext) -> int:
    accounts = [a.to_dict() for a in ctx.library().accounts()]
    if args.json:
        ctx.print_json({"accounts": accounts, "count": len(accounts)})
        return EXIT_OK
    for a in accounts:
        state = f"revoked {a['revoked_at']}" if a["revoked_at"] else "active"
        ctx.print_line(f"{a['name']}\t{a['role']}\tcreated {a['created_at']}\t{state}")
    if not accounts:
        ctx.log("no accounts: remote use is in single-token mode (see docs/security.md)")
    return EXIT_OK


def cmd_revoke(args: argparse.Namespace, ctx: CliContext) -> int:
    account = ctx.library().revoke_account(args.name)
    ctx.log(f"account {account.name!r} revoked at {account.revoked_at}")
    return EXIT_OK


def cmd_audit(args: argparse.Namespace, ctx: CliContext) -> int:
    entries = ctx.library().audit(limit=args.limit, offset=args.offset)
    if args.json:
        ctx.print_json({"entries": entries, "count": len(entries)})
        return EXIT_OK
    for e in entries:
        line = f"{e['at']}  {e['account']}  {e['action']}  {e['target']}"
        ctx.print_line(line + (f"  {e['detail']}" if e["detail"] else ""))
    if not entries:
        ctx.log("the audit log is empty")
    return EXIT_OK
