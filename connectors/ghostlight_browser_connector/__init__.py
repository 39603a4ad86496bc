"""Chrome's native messaging host for Ghostlight: an opaque relay to the service's browser socket.

It parses nothing but the extension's first frame (its identity, replayed on every reconnect).
"""
