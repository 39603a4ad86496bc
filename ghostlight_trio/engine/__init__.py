"""The service engine: per-call work tasks, deadlines, cancellation and the tool contract."""
