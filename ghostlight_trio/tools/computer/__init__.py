"""``computer``: screenshots and mouse, keyboard, scroll and zoom input in one tab.

``tool.py`` is the entry (the action table); the actions are ``pointer``, ``keyboard`` and
``view``; where they aim is ``targeting``, how their input goes out ``input``, what they answer
``receipt``; ``page_script`` is the script scrolling runs in the page, ``frame_reach`` which
embedded frame input would reach, ``parts`` what every action works with."""
