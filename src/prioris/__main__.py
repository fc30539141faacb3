"""``python -m prioris`` runs the CLI."""

from prioris.interfaces.cli import main

raise SystemExit(main())
