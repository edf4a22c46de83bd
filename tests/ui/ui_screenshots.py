"""Screenshots of the UI's main states, taken only when asked: ``RUNYARD_UI_SCREENSHOTS=DIR``
(``make ui-screenshots`` writes docs/ui/)."""

from __future__ import annotations

import os
from pathlib import Path

from playwright.sync_api import Page


class Screenshots:
    """Saves a page's screenshot under a name when ``RUNYARD_UI_SCREENSHOTS`` names a folder."""

    def __init__(self) -> None:
        folder = os.environ.get("RUNYARD_UI_SCREENSHOTS")
        self.folder = Path(folder) if folder else None

    def take(self, page: Page, name: str) -> None:
        if self.folder is None:
            return
        self.folder.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(self.folder / f"{name}.png"))

    def take_dark(self, page: Page, name: str) -> None:
        """The same state with the system set to dark."""
        if self.folder is None:
            return
        page.emulate_media(color_scheme="dark")
        self.take(page, name)
        page.emulate_media(color_scheme="light")
