"""Starting an instance's service in the background: what the CLI and the MCP connector share.

Not part of the wire (it spawns a process and reads the instance lock and log), so it sits
above ``transport``; it knows nothing of the service's insides.
"""
