"""``record_actions``: state-changing calls kept as steps with durable locators, exported as a
``script`` to replay or as a Playwright test. The handler is ``tool.RecordActions``; ``hook``
takes the steps as calls finish, ``book`` keeps them, ``locator`` and ``steps`` say what a step
is, ``script_export`` and ``playwright_export`` write it out."""
