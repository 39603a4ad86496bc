"""``computer``: screenshots and mouse, keyboard, scroll and zoom input in one tab. The entry
is ``tool.ComputerTool``."""
