"""Pieces of the MCP server (see :mod:`prioris.interfaces.mcp_server`): shared runtime,
output schemas, remote tools, library tools and resources."""
