"""The audit trail on disk: one JSON line per settled call, written append-only and rotated
without ever rewriting a line, plus readers for people (``ghostlight audit``) and for
``ghostlight policy simulate``."""
