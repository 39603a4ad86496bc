"""Governance: policy manifests, host matching, tiers, never-touch sites, hold, the kill switch,
the attention circuit and the gate every call passes. See ``specs/governance.md``.

Import from the submodules; this package stays import-free.
"""
