"""The wire between the three executables: frame codecs, the bridge vocabulary and its codec,
the bridge opening and its proof, endpoints, peer credentials, native-messaging host facts.

Nothing here knows about governance, scheduling, workspaces or browsers.
"""
