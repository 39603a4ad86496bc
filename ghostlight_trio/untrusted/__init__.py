"""Values others wrote (clients, pages, files): how big they are, whether they can be carried,
how to quote them back. Standard library only, at the bottom: every package may use it.
"""
