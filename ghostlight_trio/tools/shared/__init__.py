"""What several tools share: the browser channel and its guard, page-text fencing, dialogs,
receipts, element shaping, the screenshot coordinate model and the other helpers. No module
here is a tool's entry; each tool's own module is named after it, one level up."""
