"""Tool handlers: service-local tools here, browser tools beside the browser shore."""
