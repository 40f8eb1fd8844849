"""Moved to :mod:`costfuse.atomic` (issue #28); this name stays until the data package's importers are rewritten."""

from costfuse.atomic import atomic_path, write_json, write_text  # noqa: F401
