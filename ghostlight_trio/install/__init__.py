"""``ghostlight install``/``uninstall``: client registrations, native hosts, autostart."""
