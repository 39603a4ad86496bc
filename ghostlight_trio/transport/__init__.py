"""What all three shores share: frame codecs, endpoints, peer admission and the bridge vocabulary.

Nothing here knows about governance, scheduling, workspaces or browsers.
"""
