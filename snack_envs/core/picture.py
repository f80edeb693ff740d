"""The shared drawing toolkit for the games' pictures (`render_mode="rgb_array"`), on Pillow.

Each game draws its table in `snack_envs/<game>/picture.py`, a module with
`draw(game, viewer, names) -> PIL.Image.Image`: what a person at the table
sees, from `viewer`'s seat (nothing that seat's observation leaves out) or,
with `viewer=None`, as a spectator who sees everything. `draw_game` finds
that module by the game's name; `to_array` turns a picture into the HxWx3
uint8 array of `render()`.

Pillow is an optional dependency (`pip install "snack-envs[render]"`): it is
imported when the first picture is drawn, so `import snack_envs` works
without it. Text uses Pillow's built-in scalable font (`ImageFont.load_default
(size=...)`, Aileron, ASCII only: `plain` maps other characters to ASCII), so
no font file is read and nothing is downloaded.

A game's picture has one size for a given game, number of players and options,
whatever the position, so the frames of an episode make a video.

    python -m snack_envs.core.picture --write-docs   # docs/images/<game>.png, one per game
"""

from __future__ import annotations

import functools
import unicodedata
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from snack_envs import extras

if TYPE_CHECKING:  # pragma: no cover
    from PIL import Image as PILImage

# --- colours -----------------------------------------------------------------------------------
TABLE = (238, 232, 218)  # the table top
PANEL = (252, 249, 242)
PANEL_EDGE = (196, 186, 164)
INK = (40, 38, 34)
MUTED = (120, 114, 102)
BAR = (56, 54, 50)  # the title bar
BAR_INK = (250, 246, 236)
ACTIVE = (230, 160, 20)  # the seat to act
VIEWER = (52, 120, 200)  # the seat the picture is drawn for
CARD_BACK = (58, 78, 130)
CARD_BACK_EDGE = (34, 46, 84)
WHITE = (255, 255, 255)
GOOD = (46, 140, 70)
BAD = (196, 56, 48)


def pillow():
    """The Pillow modules (Image, ImageDraw, ImageFont), imported on first use."""
    with extras.needed('drawing pictures (render_mode="rgb_array", GIF replays)'):
        from PIL import Image, ImageDraw, ImageFont
    return Image, ImageDraw, ImageFont


@functools.lru_cache(maxsize=64)
def font(size: int):
    """Pillow's built-in scalable font at `size` pixels (a fixed bitmap font without FreeType)."""
    _, _, ImageFont = pillow()
    try:
        return ImageFont.load_default(size=size)
    except (TypeError, ImportError, OSError):  # Pillow < 10.1 or no FreeType: the small bitmap font
        return ImageFont.load_default()


@functools.lru_cache(maxsize=8192)
def _text_width(text: str, size: int) -> int:
    return int(round(font(size).getlength(text)))


@functools.lru_cache(maxsize=8192)
def _text_mask(text: str, size: int, anchor: str):
    """`text` rendered once as a greyscale mask, with its offset from the anchor point: pictures repeat
    the same labels on every frame, and rendering glyphs is most of the cost of drawing one."""
    Image, ImageDraw, _ = pillow()
    f = font(size)
    try:
        left, top, right, bottom = f.getbbox(text, anchor=anchor)
    except (TypeError, ValueError):  # the bitmap fallback font knows no anchors
        left, top, right, bottom = f.getbbox(text)
        anchor = None
    if right <= left or bottom <= top:
        return None, 0, 0
    mask = Image.new("L", (right - left, bottom - top), 0)
    ImageDraw.Draw(mask).text((-left, -top), text, fill=255, font=f, anchor=anchor)
    return mask, left, top


_PLAIN = str.maketrans({"×": "x", "–": "-", "—": "-", "’": "'", "→": "->", "·": "-", "…": "..."})


def plain(text: Any) -> str:
    """`text` in the characters the built-in font has (ASCII): accents dropped, a few symbols spelled out."""
    text = str(text).translate(_PLAIN)
    text = unicodedata.normalize("NFKD", text)
    return text.encode("ascii", "ignore").decode("ascii")


def ink_on(colour: Sequence[int]) -> tuple[int, int, int]:
    """Dark or light text, whichever reads better on `colour`."""
    r, g, b = colour[:3]
    return INK if 0.299 * r + 0.587 * g + 0.114 * b > 150 else WHITE


def mix(colour: Sequence[int], other: Sequence[int] = WHITE, t: float = 0.5) -> tuple[int, int, int]:
    """`colour` moved a fraction `t` toward `other` (a lighter or darker shade)."""
    return tuple(int(round(a + (b - a) * t)) for a, b in zip(colour[:3], other[:3]))


class Canvas:
    """A picture being drawn: an RGB image and the drawing primitives the games share.

    Coordinates are pixels from the top left; every primitive takes the top-left
    corner, a width and a height unless it says otherwise."""

    def __init__(self, width: int, height: int, background: Sequence[int] = TABLE):
        Image, ImageDraw, _ = pillow()
        self.width, self.height = int(width), int(height)
        self.image = Image.new("RGB", (self.width, self.height), tuple(background))
        self.draw = ImageDraw.Draw(self.image)

    # --- text ----------------------------------------------------------------------------------
    def text_width(self, text: Any, size: int = 14) -> int:
        return _text_width(plain(text), size)

    def text(self, x: float, y: float, text: Any, size: int = 14, fill: Sequence[int] = INK,
             anchor: str = "la", max_width: int | None = None) -> int:
        """Draw `text` (one line); with `max_width`, a smaller size (down to 8) that fits. Returns its width."""
        text = plain(text)
        if max_width is not None:
            while size > 8 and self.text_width(text, size) > max_width:
                size -= 1
            while len(text) > 1 and self.text_width(text, size) > max_width:
                text = text[:-2] + "."
        mask, left, top = _text_mask(text, size, anchor)
        if mask is not None:
            self.image.paste(tuple(fill), (int(round(x)) + left, int(round(y)) + top), mask)
        return self.text_width(text, size)

    # --- shapes --------------------------------------------------------------------------------
    def box(self, x, y, w, h, fill=PANEL, outline=PANEL_EDGE, radius: int = 8, width: int = 1) -> None:
        self.draw.rounded_rectangle(
            (x, y, x + w - 1, y + h - 1), radius=radius, fill=None if fill is None else tuple(fill),
            outline=None if outline is None else tuple(outline), width=width,
        )

    def circle(self, cx, cy, r, fill=WHITE, outline=None, width: int = 1) -> None:
        self.draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=None if fill is None else tuple(fill),
                          outline=None if outline is None else tuple(outline), width=width)

    def line(self, points, fill=INK, width: int = 2) -> None:
        self.draw.line([tuple(p) for p in points], fill=tuple(fill), width=width)

    def panel(self, x, y, w, h, title: str | None = None, active: bool = False, viewer: bool = False,
              fill=PANEL, size: int = 15) -> int:
        """A framed area with an optional title line; the seat to act gets a gold frame, the viewer's seat
        a blue tag "you". Returns the y where the content below the title starts."""
        edge, width = (ACTIVE, 4) if active else (PANEL_EDGE, 1)
        self.box(x, y, w, h, fill=fill, outline=edge, radius=10, width=width)
        if title is None:
            return y + 8
        tx = x + 12
        if viewer:
            tag = "you"
            tw = self.text_width(tag, size - 2) + 12
            self.box(tx, y + 8, tw, size + 6, fill=VIEWER, outline=None, radius=6)
            self.text(tx + tw / 2, y + 11 + (size + 2) / 2, tag, size - 2, WHITE, anchor="mm")
            tx += tw + 8
        self.text(tx, y + 10, title, size, INK, max_width=x + w - tx - 10)
        return y + size + 18

    def pill(self, x, y, text: Any, fill=MUTED, size: int = 12, ink=None) -> int:
        """A small rounded label; returns its width."""
        w = self.text_width(text, size) + 12
        self.box(x, y, w, size + 8, fill=fill, outline=None, radius=(size + 8) // 2)
        self.text(x + w / 2, y + (size + 8) / 2, text, size, ink or ink_on(fill), anchor="mm")
        return w

    def badge(self, cx, cy, text: Any, fill=INK, size: int = 12) -> None:
        """A count in a circle centred at (cx, cy), e.g. the "x3" on a card."""
        r = max(size * 0.85, self.text_width(text, size) / 2 + 4)
        self.circle(cx, cy, r, fill=fill, outline=WHITE, width=2)
        self.text(cx, cy, text, size, ink_on(fill), anchor="mm")

    # --- cards ---------------------------------------------------------------------------------
    def card(self, x, y, w, h, title: Any, colour=MUTED, value: Any = None, subtitle: Any = None,
             count: int | None = None, dim: bool = False, outline=None) -> None:
        """A face-up card: a coloured band with `title`, a large `value` and a small `subtitle`;
        `count` > 1 adds an "xN" badge on the right edge (leave ~10 px between cards); `dim` greys it (e.g. a card that does not count)."""
        colour = tuple(colour)
        face = mix(colour, WHITE, 0.82)
        if dim:
            colour, face = mix(colour, (200, 200, 200), 0.6), (236, 236, 236)
        self.box(x, y, w, h, fill=face, outline=outline or mix(colour, INK, 0.35), radius=max(4, w // 10), width=2)
        band = max(14, min(h // 3, 22))
        self.box(x + 2, y + 2, w - 4, band, fill=colour, outline=None, radius=max(3, w // 12))
        self.text(x + w / 2, y + 2 + band / 2, title, min(13, band - 4), ink_on(colour), anchor="mm", max_width=w - 6)
        if value is not None:
            vsize = max(12, min(h - band - (14 if subtitle is not None else 4), w) * 6 // 10)
            centre = y + band + (h - band - (12 if subtitle is not None else 0)) / 2
            self.text(x + w / 2, centre, value, vsize, mix(colour, INK, 0.5), anchor="mm", max_width=w - 6)
        if subtitle is not None:
            self.text(x + w / 2, y + h - 9, subtitle, 10, MUTED, anchor="mm", max_width=w - 6)
        if count is not None and count > 1:
            self.badge(x + w - 1, y + band + (h - band) * 0.45, f"x{count}", INK, 12)

    def card_back(self, x, y, w, h, label: Any = None, colour=CARD_BACK) -> None:
        """A face-down card, with an optional `label` (e.g. "?" or a count) in the middle."""
        colour = tuple(colour)
        self.box(x, y, w, h, fill=colour, outline=CARD_BACK_EDGE, radius=max(4, w // 10), width=2)
        inset = max(3, w // 10)
        self.box(x + inset, y + inset, w - 2 * inset, h - 2 * inset, fill=None, outline=mix(colour, WHITE, 0.35),
                 radius=max(3, w // 14), width=1)
        if label is not None:
            self.text(x + w / 2, y + h / 2, label, max(10, min(w, h) // 3), WHITE, anchor="mm", max_width=w - 8)

    def pile(self, x, y, w, h, count: int, label: Any = None, caption: Any = None, colour=CARD_BACK) -> None:
        """A face-down pile: a few offset backs (more for a bigger pile), `label` on top, `caption` below."""
        layers = 0 if count <= 1 else 1 if count < 10 else 2
        if count <= 0:
            self.box(x, y, w, h, fill=None, outline=PANEL_EDGE, radius=max(4, w // 10), width=2)
            self.text(x + w / 2, y + h / 2, "empty", 11, MUTED, anchor="mm")
        else:
            for i in range(layers, 0, -1):
                self.card_back(x + 3 * i, y - 3 * i, w, h, None, colour)
            self.card_back(x, y, w, h, label if label is not None else count, colour)
        if caption is not None:
            self.text(x + w / 2, y + h + 4, caption, 11, MUTED, anchor="ma", max_width=w + 30)

    # --- dice and grids ------------------------------------------------------------------------
    _PIPS = {
        1: ((0.5, 0.5),), 2: ((0.25, 0.25), (0.75, 0.75)), 3: ((0.25, 0.25), (0.5, 0.5), (0.75, 0.75)),
        4: ((0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75)),
        5: ((0.25, 0.25), (0.75, 0.25), (0.5, 0.5), (0.25, 0.75), (0.75, 0.75)),
        6: ((0.25, 0.25), (0.75, 0.25), (0.25, 0.5), (0.75, 0.5), (0.25, 0.75), (0.75, 0.75)),
    }

    def die(self, x, y, size: int, value: int | None = None, fill=WHITE, pips=INK, label: Any = None) -> None:
        """A die seen from above: pips for `value` 1..6, a `label` instead (e.g. a symbol's name), or blank."""
        radius = max(3, size // 5)
        depth = max(2, size // 9)
        self.box(x + depth, y + depth, size, size, fill=mix(fill, INK, 0.45), outline=None, radius=radius)  # its side
        self.box(x, y, size, size, fill=fill, outline=mix(fill, INK, 0.6), radius=radius, width=2)
        if value in self._PIPS:
            r = max(1.5, size / 11)
            for fx, fy in self._PIPS[value]:
                self.circle(x + fx * size, y + fy * size, r, fill=pips)
        elif label is not None:
            self.text(x + size / 2, y + size / 2, label, max(9, size // 3), pips, anchor="mm", max_width=size - 4)

    def grid(self, x, y, cols: int, rows: int, cell: int, fill=WHITE, line=PANEL_EDGE) -> None:
        """A cols x rows grid of square cells of `cell` pixels."""
        self.draw.rectangle((x, y, x + cols * cell, y + rows * cell), fill=tuple(fill), outline=tuple(line))
        for c in range(1, cols):
            self.line([(x + c * cell, y), (x + c * cell, y + rows * cell)], line, 1)
        for r in range(1, rows):
            self.line([(x, y + r * cell), (x + cols * cell, y + r * cell)], line, 1)

    # --- page furniture ------------------------------------------------------------------------
    def title_bar(self, title: str, status: str, right: str = "", height: int = 40) -> int:
        """The dark band at the top: game, status, and at the right whose view this is. Returns its height."""
        self.draw.rectangle((0, 0, self.width, height), fill=BAR)
        x = 14 + self.text(14, height / 2, title, 20, BAR_INK, anchor="lm") + 16
        rw = self.text_width(right, 14) if right else 0
        if right:
            self.text(self.width - 14, height / 2, right, 14, mix(BAR_INK, BAR, 0.3), anchor="rm")
        self.text(x, height / 2, status, 15, mix(BAR_INK, ACTIVE, 0.35), anchor="lm",
                  max_width=self.width - x - rw - 30)
        return height

    def footer(self, text: str, height: int = 28) -> None:
        """A line of small print along the bottom (the last move, the result)."""
        y = self.height - height
        self.draw.rectangle((0, y, self.width, self.height), fill=mix(TABLE, INK, 0.08))
        self.text(14, y + height / 2, text, 13, INK, anchor="lm", max_width=self.width - 28)


def view_label(viewer: int | None, names: Sequence[str]) -> str:
    return "spectator view: everything shown" if viewer is None else f"seen from {names[viewer]}'s seat"


# --- the games' pictures -----------------------------------------------------------------------
def picture_module(game_name: str):
    """The module that draws a game (`<game>.picture`, found through its spec)."""
    from snack_envs import specs

    return specs.for_game(game_name).module("picture")


def draw_game(game, viewer: int | None = None, names: Sequence[str] | None = None) -> "PILImage.Image":
    """The picture of `game` from seat `viewer` (None: the spectator's view, everything shown)."""
    return picture_module(game.name).draw(game, viewer, game.view_names(viewer, names))


def to_array(image: "PILImage.Image") -> np.ndarray:
    """A picture as an HxWx3 uint8 array (what `render()` returns in "rgb_array" mode)."""
    return np.array(image.convert("RGB"), dtype=np.uint8)


def window_available() -> bool:
    """Whether `show_in_window` can be tried: a display (on Linux, $DISPLAY or $WAYLAND_DISPLAY), tkinter,
    and no earlier failure. Cheap: it opens nothing."""
    import os
    import sys

    if _Window.instance is not None:
        return True
    if _Window.unavailable:
        return False
    if sys.platform.startswith("linux") and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        return False
    import importlib.util

    return importlib.util.find_spec("tkinter") is not None


def show_in_window(image: "PILImage.Image", title: str = "snack-envs") -> bool:
    """Show `image` in a Tk window, updated in place on later calls. False when no window can be shown
    (no display, no Tk, the window was closed): the caller then prints text instead."""
    if not window_available():
        return False
    window = _Window.instance or _Window.open(title)
    return window is not None and window.show(image)


def close_window() -> None:
    """Close the window of `show_in_window`, if one is open."""
    window, _Window.instance = _Window.instance, None
    if window is not None:
        try:
            window.root.destroy()
        except Exception:  # already gone
            pass


class _Window:
    """One Tk window reused for every frame (only where a display and tkinter exist)."""

    instance: "_Window | None" = None
    unavailable = False

    @classmethod
    def open(cls, title: str) -> "_Window | None":
        try:
            import tkinter

            from PIL import ImageTk  # noqa: F401  (fails where Pillow was built without Tk support)

            root = tkinter.Tk()
            root.title(title)
            label = tkinter.Label(root)
            label.pack()
        except Exception:  # no display server, no Tk: text it is, from now on
            cls.unavailable = True
            return None
        cls.instance = cls(root, label)
        return cls.instance

    def __init__(self, root, label):
        self.root, self.label, self.photo = root, label, None

    def show(self, image) -> bool:
        try:
            from PIL import ImageTk

            self.photo = ImageTk.PhotoImage(image)
            self.label.configure(image=self.photo)
            self.root.update()
            return True
        except Exception:  # the window was closed
            _Window.instance, _Window.unavailable = None, True
            return False


# --- docs images -------------------------------------------------------------------------------
def write_docs(folder: str = "docs/images", games: Sequence[str] | None = None) -> list[str]:
    """Write docs/images/<game>.png: each game's example position (`picture.example()`), spectator view."""
    from pathlib import Path

    from snack_envs import specs

    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name in games or [spec.name for spec in specs.SPECS]:
        module = picture_module(name)
        game, names = module.example()
        path = out / f"{name}.png"
        module.draw(game, None, names).save(path, optimize=True)
        written.append(str(path))
        print("wrote", path)
    return written


def main(argv: Sequence[str] | None = None) -> None:
    import argparse

    parser = argparse.ArgumentParser(description="Draw the games' pictures.")
    parser.add_argument("--write-docs", action="store_true", help="write docs/images/<game>.png")
    parser.add_argument("--folder", default="docs/images")
    parser.add_argument("games", nargs="*", help="game names (default: every game)")
    args = parser.parse_args(argv)
    if not args.write_docs:
        parser.error("nothing to do: pass --write-docs")
    write_docs(args.folder, args.games)


if __name__ == "__main__":
    main()
