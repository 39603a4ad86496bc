"""The browser shore: admits browser relays, routes wire requests, rewrites tab ids.

Everything that speaks the browser wire (``specs/browser-wire.md``) on the service side lives
here; tools call ``BrowserShore.request`` and never see frames.
"""
