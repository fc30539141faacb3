#!/bin/sh
# Back up a Prioris library kept in PostgreSQL: one `pg_dump --format=custom` file per run,
# checked with `pg_restore --list` before it counts, the newest BACKUP_KEEP kept
# (docs/deploy.md, "Backups and restore").
#
#   deploy/backup.sh [DATABASE_URL]        # default: $PRIORIS_MCP_DB
#
# BACKUP_DIR (default /var/backups/prioris) and BACKUP_KEEP (default 14) choose where and
# how many. The password comes as for Prioris itself: PGPASSWORD or ~/.pgpass. pg_dump
# must be of the server's major version or newer. Prints the new file's path.
set -eu

url=${1:-${PRIORIS_MCP_DB:-}}
case $url in
    postgresql://* | postgres://*) ;;
    *)
        echo "usage: $0 postgresql://USER@HOST:PORT/DATABASE (or set PRIORIS_MCP_DB)" >&2
        exit 2
        ;;
esac
dir=${BACKUP_DIR:-/var/backups/prioris}
keep=${BACKUP_KEEP:-14}
case $keep in
    '' | *[!0-9]* | 0)
        echo "BACKUP_KEEP must be a whole number of at least 1, got '$keep'" >&2
        exit 2
        ;;
esac

umask 077
mkdir -p "$dir"
stamp=$(date -u +%Y%m%dT%H%M%SZ)
part="$dir/.prioris-$stamp.dump.part"
final="$dir/prioris-$stamp.dump"
trap 'rm -f "$part"' EXIT INT TERM

pg_dump --format=custom --file="$part" --dbname="$url"
pg_restore --list "$part" >/dev/null # the archive reads back whole
mv "$part" "$final"

# rotation: the newest $keep dumps stay (names sort by time)
ls -1 "$dir"/prioris-*.dump | sort -r | tail -n +"$((keep + 1))" | while read -r old; do
    rm -f -- "$old"
done
echo "$final"
