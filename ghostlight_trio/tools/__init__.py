"""The tools: one module (or package) per tool or tight family, named after it; what several
tools share is in ``shared/``; ``registry.py`` builds every handler once.

| tool | module |
| --- | --- |
| tabs_context_mcp, tabs_create_mcp | tabs.py |
| navigate | navigate.py |
| computer | computer/ (entry: tool.py) |
| find | find.py |
| form_input | form_input.py |
| get_page_text | get_page_text.py |
| javascript_tool | javascript_tool.py |
| read_console_messages | read_console_messages.py |
| read_network_requests | read_network_requests.py |
| read_page | read_page.py |
| resize_window | resize_window.py |
| update_plan | update_plan.py |
| narrate | narrate.py |
| wait_for | wait_for.py |
| script | script.py |
| form_fill | form_fill/ (entry: tool.py) |
| act_on | act_on.py |
| dialog | dialog.py |
| tab_control | tab_control.py |
| file_upload | file_upload.py |
| browser_batch | browser_batch.py |
| upload_image | upload_image.py |
| gif_creator | gif_creator/ (entry: tool.py) |
| explain | governance/explain.py (it states the policy) |
"""
