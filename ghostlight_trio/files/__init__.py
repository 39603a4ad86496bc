"""Opening Ghostlight's own files safely. Standard library only, at the bottom: every package
(and both connectors) may use it.
"""
