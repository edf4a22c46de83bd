"""The web UI: a page at ``/`` and its assets under ``/ui``, plain ES modules and CSS.

Nothing is built on install and nothing comes from another host: the files in ``static/`` are
served as they are (the wheel carries them), under a Content-Security-Policy that lets the page
load scripts, styles and data only from this server. The page talks to the ``/v1`` API with
relative URLs, so it works behind a proxy that mounts runyard under a prefix.
"""

from runyard.http.ui.pages import UI_ASSETS_URL, install_ui

__all__ = ["UI_ASSETS_URL", "install_ui"]
