"""Structured content as typed records: tables, equations and figures, found in the document's
text when it is loaded, checked for consistency before any model reads them, written into
`hierarchy.json` and answered by direct lookup (`chunker.structured.lookup`)."""
