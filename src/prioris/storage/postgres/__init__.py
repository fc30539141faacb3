"""The PostgreSQL + pgvector backend (``pip install 'prioris[postgres]'``, docs/postgres.md)."""
