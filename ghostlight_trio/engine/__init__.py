"""The service engine: per-call work tasks, deadlines, cancellation and the tool contract.

Import from the submodules (``engine.engine.WorkEngine``, ``engine.audit``, ``engine.limits``);
this package stays import-free so ``engine.contracts`` can be used by every layer above it.
"""
