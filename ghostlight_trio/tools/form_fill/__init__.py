"""``form_fill``: fill several fields of one form by what they are called, optionally submit.
The entry is ``tool.FormFill``; ``matching`` decides which control each key names."""
