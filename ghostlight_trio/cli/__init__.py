"""The ``ghostlight`` command line."""
